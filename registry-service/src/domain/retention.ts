import type pg from 'pg';
import type { Logger } from 'pino';
import { pgErrorFields } from '../db/pool.js';
import { purgeCommitLog } from '../db/queries/commit-log.js';
import { deleteExpiredEvents } from '../db/queries/retention.js';
import type { Metrics } from '../metrics.js';
import type { CommitHorizon } from './commit-horizon.js';

/** How often expired rows are looked for. */
export const RETENTION_INTERVAL_MS = 60_000;
/** Rows per statement: short statements that never hold up ingest. */
export const RETENTION_BATCH = 1000;
/** Pause between two batches, so a large backlog is worked off without hogging the database. */
const BATCH_PAUSE_MS = 20;

export interface RetentionOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  horizon: CommitHorizon;
  /** EVENT_RETENTION in seconds; undefined keeps every event. */
  eventRetentionSeconds: number | undefined;
  /** WATCH_RETENTION in seconds: how long the commit log (watch history) is kept. */
  watchRetentionSeconds: number;
  intervalMs?: number;
  batch?: number;
}

/** Deletes expired events and watch history in the background (every replica runs it; they skip each other's rows). */
export interface Retention {
  start(): void;
  stop(): void;
  /** One full pass, batch by batch; resolves with the rows removed (for tests). */
  runOnce(): Promise<{ events: number; commits: number }>;
}

export function createRetention(options: RetentionOptions): Retention {
  const { pool, logger, metrics, horizon } = options;
  const batch = options.batch ?? RETENTION_BATCH;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<{ events: number; commits: number }> | undefined;
  let stopped = false;

  async function drain(step: () => Promise<number>, count: (n: number) => void): Promise<number> {
    let total = 0;
    while (!stopped) {
      const removed = await step();
      total += removed;
      count(removed);
      if (removed < batch) break;
      await new Promise((resolve) => setTimeout(resolve, BATCH_PAUSE_MS));
    }
    return total;
  }

  async function pass(): Promise<{ events: number; commits: number }> {
    const seconds = options.eventRetentionSeconds;
    const events = seconds === undefined ? 0 : await drain(() => deleteExpiredEvents(pool, seconds, batch), (n) => metrics.retentionRowsDeleted.inc({ table: 'events' }, n));
    // Only commits every watcher can already see are purged: none appears behind the purge horizon later.
    const through = await horizon.refresh(5000);
    // History older than the events it names is of no use: never kept longer than the events.
    const keep = Math.min(options.watchRetentionSeconds, seconds ?? Number.POSITIVE_INFINITY);
    const commits = await drain(() => purgeCommitLog(pool, keep, through, batch), (n) => metrics.retentionRowsDeleted.inc({ table: 'commit_log' }, n));
    return { events, commits };
  }

  const runOnce = () => (running ??= pass().finally(() => (running = undefined)));

  return {
    runOnce,
    start() {
      timer = setInterval(() => {
        runOnce().catch((err: unknown) => logger.warn({ error: pgErrorFields(err) }, 'retention pass failed; next try in a minute'));
      }, options.intervalMs ?? RETENTION_INTERVAL_MS);
      timer.unref();
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
