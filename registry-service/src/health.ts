import type pg from 'pg';
import type { Logger } from 'pino';
import { pgErrorFields } from './db/pool.js';
import { cutConnection } from './db/server-runs.js';
import { serverStarted } from './db/queries/health.js';

/**
 * Readiness follows the database within 2 s both ways: a check every 500 ms, and one that gets no
 * answer within 1 s counts as down (a hung database must not look healthy). A `SELECT 1` on one
 * dedicated connection twice a second costs the database nothing measurable.
 */
const HEALTH_INTERVAL_MS = 500;
const HEALTH_TIMEOUT_MS = 1000;

interface DatabaseHealthOptions {
  pool: pg.Pool;
  logger: Logger;
  /** Called with the new state whenever it changes (and once after the first check). */
  onChange: (serving: boolean) => void;
  /** Called after each check that got an answer, with the server run that answered (its start time). */
  onServer?: (started: string) => void;
  intervalMs?: number;
  /** A check slower than this counts as down (a hung database must not look healthy). */
  timeoutMs?: number;
}

/** Periodic `SELECT 1` that drives the gRPC health status (the gateway's /readyz asks it). */
export interface DatabaseHealth {
  /** Runs the first check, reports it, then keeps checking every interval. */
  start(): Promise<boolean>;
  stop(): void;
  /** Checks now and reports a change; for tests and for start. */
  check(): Promise<boolean>;
}

/** Gives a connection back as broken (the pool drops it) and closes its socket at once. */
function discard(client: pg.PoolClient, err: unknown): void {
  cutConnection(client);
  client.release(err instanceof Error ? err : new Error(String(err)));
}

export function createDatabaseHealth(options: DatabaseHealthOptions): DatabaseHealth {
  const { pool, logger, onChange } = options;
  const timeoutMs = options.timeoutMs ?? HEALTH_TIMEOUT_MS;
  let state: boolean | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;

  /**
   * One check on a connection of its own. A connection that gave no answer in time is destroyed,
   * never handed to the next check: after its host vanished it would stay silent for minutes, and
   * every later check would wait for it.
   */
  async function probe(): Promise<boolean> {
    let timeout: NodeJS.Timeout | undefined;
    let client: pg.PoolClient | undefined;
    let failed: unknown;
    const attempt = pool.connect().then((connected) => {
      client = connected;
      if (failed !== undefined) throw failed;
      return serverStarted(connected);
    });
    try {
      const started = await Promise.race([
        attempt,
        new Promise<never>((_, reject) => (timeout = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
      ]);
      client?.release();
      options.onServer?.(started);
      return true;
    } catch (err) {
      failed = err;
      // A connection arriving after the deadline is let go by the attempt's own failure (below).
      if (client) discard(client, err);
      else void attempt.then(() => undefined, () => client && discard(client, err));
      if (state !== false) logger.warn({ error: pgErrorFields(err) }, 'database health check failed: NOT_SERVING');
      return false;
    } finally {
      clearTimeout(timeout);
    }
  }

  async function check(): Promise<boolean> {
    // Never stack checks: a slow database gets one probe at a time.
    running ??= probe().finally(() => (running = undefined));
    const serving = await running;
    if (serving !== state) {
      if (serving && state === false) logger.info('database reachable again: SERVING');
      state = serving;
      onChange(serving);
    }
    return serving;
  }

  return {
    check,
    async start() {
      const first = await check();
      timer = setInterval(() => void check(), options.intervalMs ?? HEALTH_INTERVAL_MS);
      timer.unref();
      return first;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
