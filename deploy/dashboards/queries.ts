/**
 * The PromQL of the service dashboard, one place. Metrics are selected by job, as the chart's
 * ServiceMonitors name it (the component), and by the dashboard's `namespace` variable.
 */
const NS = 'namespace=~"$namespace"';
/** The services' jobs: webhook-delivery is the registry pods that only send webhooks (webhooks.delivery.dedicated). */
const JOBS = 'ingest-gateway|registry-service|webhook-delivery|media-service';
const gateway = (extra = '') => `{job="ingest-gateway", ${NS}${extra}}`;
const registry = (extra = '') => `{job="registry-service", ${NS}${extra}}`;
const media = (extra = '') => `{job="media-service", ${NS}${extra}}`;
/** The registry replicas that send webhooks: the registry pods, or the delivery pods when dedicated. */
const senders = (extra = '') => `{job=~"registry-service|webhook-delivery", ${NS}${extra}}`;
const every = `{job=~"${JOBS}", ${NS}}`;
/** The ingest API: POST …/dynamic-events and …/batch (the route label holds the platform segment). */
const INGEST = ', method="POST", route=~".+/dynamic-events(/batch)?"';
const rate = (selector: string) => `rate(${selector}[$__rate_interval])`;
const quantile = (q: number) => `histogram_quantile(${q}, sum by (le) (${rate(`http_request_duration_seconds_bucket${gateway(INGEST)}`)}))`;

/** One query of a panel: its expression and its legend. */
export interface Query {
  expr: string;
  legend: string;
}

export const queries = {
  ingestByStatus: [{ expr: `sum by (status_class) (${rate(`http_requests_total${gateway(INGEST)}`)})`, legend: '{{status_class}}' }],
  ingestLatency: [
    { expr: quantile(0.5), legend: 'p50' },
    { expr: quantile(0.99), legend: 'p99' },
  ],
  eventsAndFirstSightings: [
    { expr: `sum(${rate(`registry_events_recorded_total${registry()}`)})`, legend: 'events recorded' },
    { expr: `sum by (kind) (${rate(`registry_entities_ensured_total${registry(', result="created"')}`)})`, legend: 'new {{kind}}' },
  ],
  imagesStored: [
    { expr: `sum by (result) (${rate(`media_images_stored_total${media()}`)})`, legend: '{{result}}' },
    { expr: `sum by (rule) (${rate(`media_image_rejections_total${media()}`)})`, legend: 'refused: {{rule}}' },
  ],
  queueDepths: [
    { expr: `sum(gateway_ingest_queue_events${gateway()})`, legend: 'gateway: waiting for a batch' },
    { expr: `sum(registry_write_queue_events${registry()})`, legend: 'registry: waiting for a statement' },
  ],
  streams: [
    { expr: `sum(gateway_event_streams${gateway()})`, legend: 'SSE streams (gateways)' },
    { expr: `sum(registry_watch_streams${registry()})`, legend: 'Watch streams (registries)' },
  ],
  webhookDeliveries: [{ expr: `sum by (outcome) (${rate(`registry_webhook_attempts_total${senders()}`)})`, legend: '{{outcome}}' }],
  // Every replica reports the same database rows: max, not sum.
  webhookBacklog: [
    { expr: `sum by (webhook_id) (max by (namespace, webhook_id) (registry_webhook_pending_deliveries${registry()}))`, legend: 'pending: {{webhook_id}}' },
    { expr: `max by (webhook_id) (registry_webhook_oldest_pending_seconds${registry()})`, legend: 'oldest (s): {{webhook_id}}' },
  ],
  tokenRefusals: [
    { expr: `sum by (reason) (${rate(`http_auth_failures_total${gateway()}`)})`, legend: '401 {{reason}}' },
    { expr: `sum by (rule) (${rate(`http_validation_failures_total${gateway(', rule=~"token-.+"')}`)})`, legend: '{{rule}}' },
  ],
  readiness: [
    { expr: `sum by (job) (service_ready${every})`, legend: 'ready: {{job}}' },
    { expr: `max(gateway_token_snapshot_age_seconds${gateway()})`, legend: 'token copy age (s), oldest gateway' },
  ],
  cpu: [{ expr: `sum by (job) (${rate(`process_cpu_seconds_total${every}`)})`, legend: '{{job}}' }],
  rss: [{ expr: `sum by (job) (process_resident_memory_bytes${every})`, legend: '{{job}}' }],
  gc: [{ expr: `sum by (job) (${rate(`nodejs_gc_duration_seconds_sum${every}`)})`, legend: '{{job}}' }],
} satisfies Record<string, Query[]>;
