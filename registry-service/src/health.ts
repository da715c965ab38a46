import type pg from 'pg';
import type { Logger } from 'pino';
import { pgErrorFields } from './db/pool.js';
import { ping } from './db/queries/health.js';

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

export function createDatabaseHealth(options: DatabaseHealthOptions): DatabaseHealth {
  const { pool, logger, onChange } = options;
  const timeoutMs = options.timeoutMs ?? HEALTH_TIMEOUT_MS;
  let state: boolean | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;

  async function probe(): Promise<boolean> {
    let timeout: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ping(pool),
        new Promise((_, reject) => (timeout = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
      ]);
      return true;
    } catch (err) {
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
