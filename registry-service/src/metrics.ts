import type { CoalescerTiming } from '@dynamic-events/proto/runtime';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The registry's domain metrics, registered on the Registry its metrics server exposes (gRPC metrics come from the shared interceptor). */
export interface Metrics {
  /** acquired | contended (waited for another creator) | timeout (waited LOCK_WAIT_MS, went on) | fallback (lock store down) | expired (lost before release). */
  lockOutcomes: Counter<'outcome'>;
  lockWaitSeconds: Histogram;
  /** Seconds an event waited for a write statement (every WRITE_CONCURRENCY statement running). */
  writeQueueSeconds: Histogram;
  /** Seconds of one write statement, from its start to its commit (a pool connection, entity locks, the statement, the WAL flush). */
  writeStatementSeconds: Histogram;
  /** Distinct entities a committed call named, by kind (device, object, event_type) and result (created, reused). */
  entitiesEnsured: Counter<'kind' | 'result'>;
  eventsRecorded: Counter;
  /** Events that carried an Idempotency-Key, by outcome: recorded (first use), replayed (a retry), conflict (another request). */
  idempotencyKeys: Counter<'outcome'>;
  /** Expired keys the background purge deleted. */
  idempotencyKeysPurged: Counter;
  /** Rows removed by retention, by table: events and webhook_deliveries (EVENT_RETENTION), commit_log (WATCH_RETENTION). */
  retentionRowsDeleted: Counter<'table'>;
  /** Open Watch streams on this replica. */
  watchStreams: Gauge;
  /** How long the oldest commit not yet readable by watchers has waited for older transactions to end. */
  watchHorizonLagSeconds: Gauge;
  /** Watch pages by source: horizon (read with the poll that made them readable) or read (a query of their own: a watcher behind the tail). */
  watchPages: Counter<'source'>;
  /** 1 while the last database health check got an answer, else 0 (also before the first). */
  databaseUp: Gauge;
  /** 1 while the counts' backfill (migration 0016) has events left to count, 0 once it has none; unset until this replica's pass has looked. */
  countsBackfillRunning: Gauge;
  /** Events stored before the counts existed that this replica's backfill counted. */
  countsBackfilledEvents: Counter;
}

/** Buckets of the write path's waits: a commit takes milliseconds, a queue behind a slow database seconds. */
const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(registry: Registry): Metrics {
  return {
    lockOutcomes: new Counter({
      name: 'registry_lock_outcomes_total',
      help: 'Entity-creation lock attempts by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    lockWaitSeconds: new Histogram({
      name: 'registry_lock_wait_seconds',
      help: 'Time spent acquiring or waiting for an entity-creation lock',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    writeQueueSeconds: new Histogram({
      name: 'registry_write_queue_seconds',
      help: 'Seconds an event waited for a write statement (every WRITE_CONCURRENCY statement running)',
      buckets: WAIT_BUCKETS,
      registers: [registry],
    }),
    writeStatementSeconds: new Histogram({
      name: 'registry_write_statement_seconds',
      help: 'Seconds of a write statement from its start to its commit or failure (pool connection, creation locks, the statement, the WAL flush)',
      buckets: WAIT_BUCKETS,
      registers: [registry],
    }),
    entitiesEnsured: new Counter({
      name: 'registry_entities_ensured_total',
      help: 'Devices, objects and event types named by committed calls, by kind and result (created on first sighting, or reused)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    }),
    eventsRecorded: new Counter({
      name: 'registry_events_recorded_total',
      help: 'Events committed',
      registers: [registry],
    }),
    idempotencyKeys: new Counter({
      name: 'registry_idempotency_keys_total',
      help: 'Events that carried an Idempotency-Key, by outcome: recorded (first use), replayed (same request again: the recorded event is returned), conflict (another request: refused)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    idempotencyKeysPurged: new Counter({
      name: 'registry_idempotency_keys_purged_total',
      help: 'Expired Idempotency-Keys deleted by the background purge',
      registers: [registry],
    }),
    retentionRowsDeleted: new Counter({
      name: 'registry_retention_deleted_rows_total',
      help: 'Rows removed by retention, by table: events (EVENT_RETENTION) and commit_log (WATCH_RETENTION, the watch history)',
      labelNames: ['table'],
      registers: [registry],
    }),
    watchStreams: new Gauge({
      name: 'registry_watch_streams',
      help: 'Open Watch streams on this replica',
      registers: [registry],
    }),
    watchHorizonLagSeconds: new Gauge({
      name: 'registry_watch_horizon_lag_seconds',
      help: 'How long the newest commits have waited to become readable by watchers because older transactions in the database are still running (0 normally; grows with a long-running transaction)',
      registers: [registry],
    }),
    watchPages: new Counter({
      name: 'registry_watch_pages_total',
      help: 'Commit-log pages served to watchers, by source: horizon (read in the same statement as the poll that made them readable, shared by every watcher at the tail) or read (a query of its own, for watchers behind the tail)',
      labelNames: ['source'],
      registers: [registry],
    }),
    databaseUp: new Gauge({
      name: 'registry_database_up',
      help: 'Whether the database (the event store) answered the last health check (1) or not (0)',
      registers: [registry],
    }),
    ...countsMetrics(registry),
  };
}

/** The counts backfill's metrics (counts/backfill.ts). */
function countsMetrics(registry: Registry): Pick<Metrics, 'countsBackfillRunning' | 'countsBackfilledEvents'> {
  return {
    countsBackfillRunning: new Gauge({
      name: 'registry_counts_backfill_running',
      help: 'Whether the counts backfill still has events stored before the counts existed to count (1: counts and last_seen_at are incomplete) or not (0)',
      registers: [registry],
    }),
    countsBackfilledEvents: new Counter({
      name: 'registry_counts_backfilled_events_total',
      help: 'Events stored before the counts existed that the counts backfill counted on this replica',
      registers: [registry],
    }),
  };
}

/** The group commit's timings (record-events.ts) as the two write histograms, in seconds. */
export function writeTiming(metrics: Metrics): CoalescerTiming {
  return { waited: (ms) => metrics.writeQueueSeconds.observe(ms / 1000), ran: (ms) => metrics.writeStatementSeconds.observe(ms / 1000) };
}

/** The group commit's queue, read at each scrape, beside its bound (WRITE_QUEUE_MAX_EVENTS), so saturation is a ratio. */
export function registerWriteQueueMetrics(registry: Registry, queue: { waiting(): number }, maxEvents: number): void {
  new Gauge({
    name: 'registry_write_queue_events',
    help: 'Events waiting for a statement; at registry_write_queue_max_events calls are refused with UNAVAILABLE',
    registers: [registry],
    collect() {
      this.set(queue.waiting());
    },
  });
  new Gauge({ name: 'registry_write_queue_max_events', help: 'WRITE_QUEUE_MAX_EVENTS: the bound of registry_write_queue_events', registers: [registry] }).set(maxEvents);
}
