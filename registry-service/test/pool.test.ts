/**
 * What the pool logs when an idle connection dies: a short line with message, SQLSTATE and severity
 * (never the pg Client pg-pool attaches to the error), a warning for a real failure, and only debug
 * for the server's "terminating connection" notice on sockets closing after end() (shutdown).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../src/db/pool.js';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';

const up = await postgresAvailable();

interface LogLine {
  level: number;
  msg: string;
  error?: Record<string, unknown>;
}

/** A pino logger at debug level that keeps each line, raw and parsed. */
function captureLogger() {
  const raw: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void raw.push(line) });
  return { logger, raw, lines: () => raw.map((line) => JSON.parse(line) as LogLine) };
}

/** A TCP proxy to Postgres that can stop forwarding the client's bytes (its Terminate never arrives). */
async function startProxy(target: URL): Promise<{ url: string; holdClientBytes: () => void; close: () => Promise<void> }> {
  let held = false;
  const sockets = new Set<Socket>();
  // Half-open: the client's FIN (after Terminate) must not close the way back, as with a real server.
  const server: Server = createServer({ allowHalfOpen: true }, (inbound) => {
    const outbound = connect({ port: Number(target.port || 5432), host: target.hostname, allowHalfOpen: true });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.on('data', (chunk) => held || outbound.write(chunk));
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  const url = new URL(target);
  url.host = `127.0.0.1:${address.port}`;
  return {
    url: url.toString(),
    holdClientBytes: () => (held = true),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!up)('pool error logging', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let admin: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  /** The backend pid of the pool's one idle connection. */
  async function idleBackend(pool: pg.Pool): Promise<number> {
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(pool.idleCount).toBe(1);
    return rows[0]!.pid;
  }

  it('warns with message, code and severity only when an idle connection is terminated while the pool is in use', async () => {
    const { logger, raw, lines } = captureLogger();
    const pool = createPool({ connectionString: db.url, max: 1, logger });
    try {
      const pid = await idleBackend(pool);
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await until(() => raw.length > 0, 'the pool error log line');
      expect(lines()).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'idle database connection failed',
          error: { message: 'terminating connection due to administrator command', code: '57P01', severity: 'FATAL' },
        }),
      ]);
      // The pg Client (connection parameters, parsers, buffers) stays out of the log.
      expect(raw[0]!.length).toBeLessThan(400);
      // The pool replaces the dead connection.
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('logs the server terminating a connection after end() (a shutting-down Postgres) at debug, not as a warning', async () => {
    const proxy = await startProxy(new URL(db.url));
    const { logger, raw, lines } = captureLogger();
    const pool = createPool({ connectionString: proxy.url, max: 1, logger });
    try {
      const pid = await idleBackend(pool);
      // As at shutdown: end() sends Terminate, but the server stops the backend before reading it.
      proxy.holdClientBytes();
      const ended = pool.end();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await ended;
      await until(() => raw.length > 0, 'the pool error log line');
      expect(lines()).toEqual([
        expect.objectContaining({ level: 20, msg: 'database connection closed by server shutdown', error: expect.objectContaining({ code: '57P01' }) }),
      ]);
    } finally {
      await proxy.close();
    }
  });
});
