import type pg from 'pg';
import type { Logger } from 'pino';
import { purgeIdempotencyKeys } from '../db/queries/idempotency-keys.js';
import type { Metrics } from '../metrics.js';
import { createBackgroundJob, deleteInBatches, type BackgroundJob } from './background-job.js';

/** How often expired keys are looked for; a key lives at least its TTL and at most about this much longer. */
const PURGE_INTERVAL_MS = 60_000;
/** Keys deleted per statement: short statements, so the write path never queues behind a large DELETE. */
const PURGE_BATCH = 1000;

interface KeyPurgerOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  /** IDEMPOTENCY_KEY_TTL_SECONDS: how long a key is honoured. */
  ttlSeconds: number;
  intervalMs?: number;
  batch?: number;
}

/** Deletes expired Idempotency-Keys in the background; runOnce resolves with how many went (for tests and start). */
export type KeyPurger = BackgroundJob<number>;

export function createKeyPurger(options: KeyPurgerOptions): KeyPurger {
  const { pool, logger, metrics, ttlSeconds } = options;
  const batch = options.batch ?? PURGE_BATCH;
  return createBackgroundJob({
    pass: () => deleteInBatches(() => purgeIdempotencyKeys(pool, ttlSeconds, batch), batch, (n) => metrics.idempotencyKeysPurged.inc(n)),
    intervalMs: options.intervalMs ?? PURGE_INTERVAL_MS,
    logger,
    failure: 'purging expired idempotency keys failed; next try in a minute',
  });
}
