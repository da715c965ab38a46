import type pg from 'pg';
import type { Logger } from 'pino';
import { purgeCommitLog } from '../db/queries/commit-log.js';
import { fanOutFloor } from '../db/queries/webhook-fan-out.js';
import { deleteExpired } from '../db/queries/retention.js';
import { deleteExpiredCounts, rollupFloor } from '../db/queries/event-rollup.js';

/** The counts (migration 0014) go with the events they count. */
const COUNT_TABLES = ['event_counts', 'event_type_counts'] as const;
import type { Metrics } from '../metrics.js';
import { createBackgroundJob, deleteInBatches, type BackgroundJob } from './background-job.js';
import type { CommitHorizon } from '../watch/commit-horizon.js';

/** How often expired rows are looked for. */
const RETENTION_INTERVAL_MS = 60_000;
/** Rows per statement: short statements that never hold up ingest. */
const RETENTION_BATCH = 1000;
/** Pause between two batches, so a large backlog is worked off without hogging the database. */
const BATCH_PAUSE_MS = 20;

interface RetentionOptions {
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

/** Deletes expired events, their webhook deliveries and counts, and watch history in the background; runOnce resolves with the rows removed (for tests). */
export type Retention = BackgroundJob<{ events: number; commits: number; deliveries: number }>;

export function createRetention(options: RetentionOptions): Retention {
  const { pool, logger, metrics, horizon } = options;
  const batch = options.batch ?? RETENTION_BATCH;
  let stopped = false;
  const drain = (step: () => Promise<number>, table: string) =>
    deleteInBatches(step, batch, (n) => metrics.retentionRowsDeleted.inc({ table }, n), { pauseMs: BATCH_PAUSE_MS, stopped: () => stopped });

  async function pass(): Promise<{ events: number; commits: number; deliveries: number }> {
    const seconds = options.eventRetentionSeconds;
    const events = seconds === undefined ? 0 : await drain(() => deleteExpired(pool, 'events', seconds, batch), 'events');
    const deliveries = seconds === undefined ? 0 : await drain(() => deleteExpired(pool, 'webhook_deliveries', seconds, batch), 'webhook_deliveries');
    for (const table of COUNT_TABLES) if (seconds !== undefined) await drain(() => deleteExpiredCounts(pool, table, seconds, batch), table);
    // Only commits every watcher can already see are purged: none appears behind the purge horizon later.
    const readable = await horizon.refresh(5000);
    // Commits no webhook has fanned out yet are its queue, and those not counted yet the counts': kept whatever their age.
    const fannedOut = await fanOutFloor(pool);
    const counted = await rollupFloor(pool);
    const floor = fannedOut !== undefined && fannedOut < counted ? fannedOut : counted;
    const through = floor < readable ? floor : readable;
    // History older than the events it names is of no use: never kept longer than the events.
    const keep = Math.min(options.watchRetentionSeconds, seconds ?? Number.POSITIVE_INFINITY);
    const commits = await drain(() => purgeCommitLog(pool, keep, through, batch), 'commit_log');
    return { events, commits, deliveries };
  }

  return createBackgroundJob({
    pass,
    intervalMs: options.intervalMs ?? RETENTION_INTERVAL_MS,
    logger,
    failure: 'retention pass failed; next try in a minute',
    onStop: () => (stopped = true),
  });
}
