import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The delivery metrics; the per-webhook label is bounded by how many webhooks the admins made. */
export interface WebhookMetrics {
  /** Attempts by outcome: succeeded, retrying (another attempt is scheduled), failed (the schedule ran out). */
  attempts: Counter<'outcome'>;
  attemptSeconds: Histogram;
  /** Deliveries created from commits. */
  fannedOut: Counter;
  /** Webhooks disabled by their answers: gone (410) or failing (WEBHOOK_DISABLE_AFTER). */
  disabled: Counter<'reason'>;
}

/** Pending deliveries per webhook, read when Prometheus scrapes. */
type BacklogReader = () => Promise<Array<{ webhookId: string; pending: number; oldestSeconds: number }>>;

export function createWebhookMetrics(registry: Registry, backlog: BacklogReader): WebhookMetrics {
  // One query answers both gauges at a scrape; the second collect reuses the first's answer.
  let reading: ReturnType<BacklogReader> | undefined;
  const read = () => {
    reading ??= backlog().finally(() => setTimeout(() => (reading = undefined), 100).unref());
    return reading.catch(() => []);
  };
  const perWebhook = (name: string, help: string, value: (r: { pending: number; oldestSeconds: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['webhook_id'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await read()) this.set({ webhook_id: row.webhookId }, value(row));
      },
    });
  perWebhook('registry_webhook_pending_deliveries', 'Deliveries waiting for an attempt, per webhook', (r) => r.pending);
  perWebhook('registry_webhook_oldest_pending_seconds', 'Age of the oldest pending delivery, per webhook', (r) => r.oldestSeconds);
  return {
    attempts: new Counter({ name: 'registry_webhook_attempts_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] }),
    attemptSeconds: new Histogram({
      name: 'registry_webhook_attempt_duration_seconds',
      help: 'Duration of webhook delivery attempts, connection to the answer',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      registers: [registry],
    }),
    fannedOut: new Counter({ name: 'registry_webhook_deliveries_created_total', help: 'Webhook deliveries created from committed changes', registers: [registry] }),
    disabled: new Counter({ name: 'registry_webhooks_disabled_total', help: 'Webhooks disabled by their answers, by reason', labelNames: ['reason'], registers: [registry] }),
  };
}
