import type pg from 'pg';
import type { Logger } from 'pino';
import { lockRollupCursor, pageEnd, rollUp } from '../db/queries/event-rollup.js';
import { inTransaction } from '../db/queries/transaction.js';
import { createBackgroundJob, type BackgroundJob } from '../jobs/background-job.js';
import type { Metrics } from '../metrics.js';
import type { CommitHorizon } from '../watch/commit-horizon.js';
import { createBackfill, type BackfillOptions } from './backfill.js';

/**
 * How often the pass runs: counts and last_seen_at trail the events by about this plus the commit
 * horizon's lag (last_seen_at must stay within 60 s). Longer passes count more events per row
 * written: at 5 s a device sending every second costs one row per bucket width per pass, not five.
 */
const ROLLUP_INTERVAL_MS = 5000;
/** Commits one step reads at most (a group commit holds up to a batch of events). */
const PAGE_COMMITS = 2000;
/** How long a pass waits for the horizon to take in the commits handed out before it. */
const HORIZON_WAIT_MS = 1000;

interface RollupOptions {
  pool: pg.Pool;
  logger: Logger;
  horizon: CommitHorizon;
  metrics: Metrics;
  intervalMs?: number;
  /** The backfill's batch and steps per pass (tests make them small). */
  backfill?: Pick<BackfillOptions, 'batch' | 'stepsPerPass'>;
}

/** A pass's outcome: events counted, whether another replica's pass held the cursor, and the backfill's part. */
interface RollupPass {
  events: number;
  skipped: boolean;
  backfill: { events: number; steps: number; finished: boolean };
}

/**
 * Keeps the counts (GET …/counts) and last_seen_at from the commit log, after the ingest
 * transaction, like the webhook fan-out: each step locks the cursor (a replica whose peer holds it
 * skips the pass), counts a page of finished commits and moves the cursor in the same transaction,
 * so every event is counted once whatever crashes. Steps follow each other until the horizon;
 * then, while the events stored before the counts are not all counted, a few backfill steps.
 */
export function createRollup(options: RollupOptions): BackgroundJob<RollupPass> {
  const { pool, horizon } = options;
  const backfill = createBackfill({ pool, logger: options.logger, metrics: options.metrics, ...options.backfill });
  let stopped = false;

  async function step(bound: bigint): Promise<{ events: number; more: boolean; skipped: boolean }> {
    return inTransaction(pool, async (db) => {
      const after = await lockRollupCursor(db);
      if (after === undefined) return { events: 0, more: false, skipped: true };
      if (after >= bound) return { events: 0, more: false, skipped: false };
      const through = await pageEnd(db, after, bound, PAGE_COMMITS);
      return { events: await rollUp(db, after, through), more: through < bound, skipped: false };
    });
  }

  async function rollUpToHorizon(): Promise<{ events: number; skipped: boolean }> {
    const bound = await horizon.refresh(HORIZON_WAIT_MS);
    let events = 0;
    for (;;) {
      const done = await step(bound);
      events += done.events;
      if (done.skipped) return { events, skipped: true };
      if (!done.more || stopped) return { events, skipped: false };
    }
  }

  async function pass(): Promise<RollupPass> {
    const rolled = await rollUpToHorizon();
    // After the new commits: the backfill's steps never hold up the fresh counts by more than a few steps.
    const filled = rolled.skipped ? { events: 0, steps: 0, finished: false } : await backfill.run(() => stopped);
    return { ...rolled, backfill: filled };
  }

  return createBackgroundJob({
    pass,
    intervalMs: options.intervalMs ?? ROLLUP_INTERVAL_MS,
    logger: options.logger,
    failure: 'counts pass failed; next try at the next interval',
    onStop: () => (stopped = true),
  });
}

export type Rollup = ReturnType<typeof createRollup>;
