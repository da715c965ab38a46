import type { CoalescerTiming } from '@dynamic-events/proto/runtime';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The gateway's HTTP and domain metrics, in one registry per app (so tests never collide). */
export interface Metrics {
  readonly registry: Registry;
  /** Labels: method, route (the route pattern, never the raw path), status_class ("2xx"...). */
  readonly httpRequests: Counter<'method' | 'route' | 'status_class'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  /** Labels: reason ("missing", "invalid"). */
  readonly authFailures: Counter<'reason'>;
  /** Labels: rule (low-cardinality rule names such as "required", "max-length", "base64"). */
  readonly validationFailures: Counter<'rule'>;
  /** Events per RecordEvents batch: how much the coalescing saves under the current load. */
  readonly recordBatchEvents: Histogram;
  /** Seconds an event waited in this gateway before its RecordEvents batch left (all RECORD_CONCURRENCY calls out). */
  readonly recordQueueSeconds: Histogram;
  /** Seconds from a RecordEvents batch leaving to its answer: the hop, the registry's wait and its commit. */
  readonly recordCallSeconds: Histogram;
  /** Token snapshot refreshes from the registry, by result ("changed", "unchanged", "failed"). */
  readonly tokenSyncs: Counter<'result'>;
  /** Seconds since the token snapshot was last confirmed by the registry (revocations wait for it). */
  readonly tokenSnapshotAge: Gauge;
  /** Requests of tokens with a rate, by result ("allowed", "limited", "fallback": Redis unreachable, checked locally). */
  readonly tokenRateChecks: Counter<'result'>;
  /** Open SSE event streams on this gateway (MAX_STREAMS bounds them). */
  readonly eventStreams: Gauge;
}

/** Buckets of the write path's waits: a commit takes milliseconds, a queue behind a slow database seconds. */
const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Registers the HTTP metrics on `registry` (the metrics server's, which adds the process metrics). */
export function createMetrics(registry = new Registry()): Metrics {
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status class',
      labelNames: ['method', 'route', 'status_class'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration in seconds, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    authFailures: new Counter({
      name: 'http_auth_failures_total',
      help: 'Requests rejected by bearer authentication, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    validationFailures: new Counter({
      name: 'http_validation_failures_total',
      help: 'Requests rejected as bad input (4xx), by the rule that failed',
      labelNames: ['rule'],
      registers: [registry],
    }),
    recordBatchEvents: new Histogram({
      name: 'ingest_record_batch_events',
      help: 'Events per RecordEvents batch sent to the registry (concurrent requests are coalesced)',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 500],
      registers: [registry],
    }),
    recordQueueSeconds: new Histogram({
      name: 'ingest_record_queue_seconds',
      help: 'Seconds an event waited in the gateway before its RecordEvents batch was sent (every RECORD_CONCURRENCY call out)',
      buckets: WAIT_BUCKETS,
      registers: [registry],
    }),
    recordCallSeconds: new Histogram({
      name: 'ingest_record_call_seconds',
      help: 'Seconds from a RecordEvents batch being sent to its answer (the registry committed or refused it)',
      buckets: WAIT_BUCKETS,
      registers: [registry],
    }),
    tokenSyncs: new Counter({
      name: 'gateway_token_syncs_total',
      help: 'Token snapshot refreshes from the registry, by result (changed, unchanged, failed)',
      labelNames: ['result'],
      registers: [registry],
    }),
    tokenRateChecks: new Counter({
      name: 'gateway_token_rate_checks_total',
      help: 'Requests of tokens with a rate limit, by result (allowed, limited, fallback: Redis unreachable, checked per gateway; unusable: a stored rate outside its range, refused)',
      labelNames: ['result'],
      registers: [registry],
    }),
    tokenSnapshotAge: new Gauge({
      name: 'gateway_token_snapshot_age_seconds',
      help: 'Seconds since the registry last confirmed the token snapshot (revocations reach this gateway after it)',
      registers: [registry],
    }),
    eventStreams: new Gauge({
      name: 'gateway_event_streams',
      help: 'Open SSE event streams on this gateway',
      registers: [registry],
    }),
  };
}

/** What the record batcher reports (record-batcher.ts), as the gateway's batch size and wait histograms (seconds). */
export function recordBatchMetrics(metrics: Metrics): { onBatch(events: number): void; timing: CoalescerTiming } {
  return {
    onBatch: (events) => metrics.recordBatchEvents.observe(events),
    timing: { waited: (ms) => metrics.recordQueueSeconds.observe(ms / 1000), ran: (ms) => metrics.recordCallSeconds.observe(ms / 1000) },
  };
}

/** The queue of events waiting for a RecordEvents batch, read at each scrape, beside its bound (INGEST_QUEUE_MAX_EVENTS). */
export function registerIngestQueueMetrics(registry: Registry, queue: { eventsWaiting(): number }, maxEvents: number): void {
  new Gauge({
    name: 'gateway_ingest_queue_events',
    help: 'Events waiting for a RecordEvents batch to the registry; at gateway_ingest_queue_max_events a POST gets 503',
    registers: [registry],
    collect() {
      this.set(queue.eventsWaiting());
    },
  });
  new Gauge({ name: 'gateway_ingest_queue_max_events', help: 'INGEST_QUEUE_MAX_EVENTS: the bound of gateway_ingest_queue_events', registers: [registry] }).set(maxEvents);
}
