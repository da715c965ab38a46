import type pg from 'pg';
import type { Logger } from 'pino';
import { backfillPageEnd, backfillState, backfillStep } from '../db/queries/counts-backfill.js';
import { lockRollupCursor } from '../db/queries/event-rollup.js';
import { inTransaction } from '../db/queries/transaction.js';
import type { Metrics } from '../metrics.js';

/** Events one step counts at most: a short transaction, whatever the size of the events table. */
const BACKFILL_BATCH = 5000;
/** Steps per counts pass: the pass's own rollup waits at most this many steps. */
const STEPS_PER_PASS = 20;

export interface BackfillOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  /** Events per step (tests make it small). */
  batch?: number;
  /** Steps per call of run (tests make it 1). */
  stepsPerPass?: number;
}

/** A backfill run's outcome: events counted, steps taken, whether it is finished. */
interface BackfillRun {
  events: number;
  steps: number;
  finished: boolean;
}

/**
 * Counts the events stored before the counts existed (migration 0016), a bounded page of ids per
 * transaction, under the rollup cursor's lock (a replica whose peer holds it skips). The counts and
 * last_seen_at miss those events until it has finished: it says so in the log and as
 * registry_counts_backfill_running.
 */
export function createBackfill(options: BackfillOptions) {
  const { pool, logger, metrics } = options;
  const batch = options.batch ?? BACKFILL_BATCH;
  const stepsPerPass = options.stepsPerPass ?? STEPS_PER_PASS;
  // Once finished it stays finished: later passes ask the database nothing more.
  let finished = false;
  let announced = false;

  /** One step; `reached`: this step counted the last page. */
  async function step(): Promise<{ events: number; finished: boolean; reached: boolean } | undefined> {
    return inTransaction(pool, async (db) => {
      const rolledThrough = await lockRollupCursor(db);
      if (rolledThrough === undefined) return undefined;
      const state = await backfillState(db);
      if (state === undefined) return { events: 0, finished: true, reached: false };
      const through = await backfillPageEnd(db, state.countedThrough, state.bound, batch);
      const events = await backfillStep(db, state.countedThrough, through, rolledThrough);
      return { events, finished: through === state.bound, reached: through === state.bound };
    });
  }

  /** Up to stepsPerPass steps, fewer when finished, when a peer holds the lock, or once `stopped`. */
  async function run(stopped: () => boolean = () => false): Promise<BackfillRun> {
    const done: BackfillRun = { events: 0, steps: 0, finished };
    while (!finished && done.steps < stepsPerPass && !stopped()) {
      const result = await step();
      if (result === undefined) break;
      done.steps += 1;
      done.events += result.events;
      metrics.countsBackfilledEvents.inc(result.events);
      finished = result.finished;
      metrics.countsBackfillRunning.set(finished ? 0 : 1);
      if (result.reached) logger.info('counts backfill finished: counts and last_seen_at include every event');
      else if (!finished && !announced) logger.warn('counts backfill running: counts and last_seen_at leave out events stored before the counts existed until it finishes');
      announced = true;
    }
    return { ...done, finished };
  }

  return { run };
}

