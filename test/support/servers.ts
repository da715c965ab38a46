/**
 * Real servers for integration tests: PostgreSQL and Redis as the machine (or CI) runs them, and an
 * S3 server (s3rver) started on loopback by the test itself. Under CI=true a missing server fails
 * the test file instead of skipping it, so a green CI run always means the real servers were used.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** REGISTRY_INTERNAL_TOKEN of the registries and gateways the tests start (TokenService needs it). */
export const TEST_INTERNAL_TOKEN = 'test-internal-credential-0123456789abcdef';
const inCi = process.env.CI === 'true' || process.env.CI === '1';

/** Resolves true when the probe succeeds; under CI a failure throws (the file fails), else false (skip). */
export async function requireServer(name: string, probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (err) {
    if (inCi) throw new Error(`${name} is required under CI but is not reachable: ${String(err)}`);
    console.warn(`[skip] ${name} not reachable: ${String(err)}`);
    return false;
  }
}

export function postgresAvailable(): Promise<boolean> {
  return requireServer(`PostgreSQL at ${POSTGRES_URL}`, async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
    await client.connect();
    await client.end();
  });
}

export function redisAvailable(): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL);
  return requireServer(`Redis at ${REDIS_URL}`, () => redisPing(hostname, Number(port || 6379)));
}

/** A raw PING keeps this helper free of client options; "+PONG" proves a live server. */
function redisPing(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => socket.write('PING\r\n'));
    socket.setTimeout(2000, () => socket.destroy(new Error('timeout')));
    socket.once('error', reject);
    socket.once('data', (data) => {
      socket.end();
      if (data.toString().startsWith('+PONG')) resolve();
      else reject(new Error(`unexpected reply ${data.toString().trim()}`));
    });
  });
}

/** A fresh database per test file, dropped afterwards: tests never see each other's rows. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A unique Redis key prefix so parallel test files never share lock keys. */
export function uniquePrefix(): string {
  return `test:${randomBytes(6).toString('hex')}:`;
}

/** A temporary directory readable by others: embedded Postgres refuses data under a 0700 path when run as root. */
export function tempDir(label: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `${label}-`));
  chmodSync(path, 0o755);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Ports this process has handed out. The kernel may give a just-released port to the next bind(0),
 * so two calls could return the same port and two services of one stack would then collide on
 * EADDRINUSE (for example a gateway's PORT equal to its registry's metrics port).
 */
const handedOut = new Set<number>();

/** A TCP port free right now on loopback and not handed out before by this process (for child processes that must be told their port). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await bindAndRelease();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no fresh free port on 127.0.0.1 after 50 attempts');
}

function bindAndRelease(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A pg.Pool on a test database that is dropped WITH (FORCE) after the file. pool.end() lets its
 * clients go before their sockets have closed, so the server's FATAL (57P01) may reach a client
 * still closing or idle, and the pool (or the client it let go) had no listener: that became an
 * uncaught error of the whole run (seen in CI). Errors of queries still reach their callers; only
 * connection events are absorbed here.
 */
export function testPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client's error is re-emitted by the pool; one the pool already let go has only its own.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
