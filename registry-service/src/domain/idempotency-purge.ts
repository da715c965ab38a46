import type pg from 'pg';
import type { Logger } from 'pino';
import { pgErrorFields } from '../db/pool.js';
import { purgeIdempotencyKeys } from '../db/queries/idempotency-keys.js';
import type { Metrics } from '../metrics.js';

/** How often expired keys are looked for; a key lives at least its TTL and at most about this much longer. */
export const PURGE_INTERVAL_MS = 60_000;
/** Keys deleted per statement: short statements, so the write path never queues behind a large DELETE. */
export const PURGE_BATCH = 1000;

export interface KeyPurgerOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  /** IDEMPOTENCY_KEY_TTL_SECONDS: how long a key is honoured. */
  ttlSeconds: number;
  intervalMs?: number;
  batch?: number;
}

/** Deletes expired Idempotency-Keys in the background (every replica runs it; they skip each other's rows). */
export interface KeyPurger {
  start(): void;
  stop(): void;
  /** Deletes every key older than the TTL, batch by batch; resolves with how many went (for tests and start). */
  runOnce(): Promise<number>;
}

export function createKeyPurger(options: KeyPurgerOptions): KeyPurger {
  const { pool, logger, metrics, ttlSeconds } = options;
  const batch = options.batch ?? PURGE_BATCH;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function purgeAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await purgeIdempotencyKeys(pool, ttlSeconds, batch);
      total += deleted;
      metrics.idempotencyKeysPurged.inc(deleted);
      if (deleted < batch) return total;
    }
  }

  // Never two purges at once in one process: a slow one simply delays the next.
  const runOnce = (): Promise<number> => (running ??= purgeAll().finally(() => (running = undefined)));

  return {
    runOnce,
    start() {
      timer = setInterval(() => {
        runOnce().catch((err: unknown) => logger.warn({ error: pgErrorFields(err) }, 'purging expired idempotency keys failed; next try in a minute'));
      }, options.intervalMs ?? PURGE_INTERVAL_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
