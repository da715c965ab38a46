import type pg from 'pg';
import type { Logger } from 'pino';
import type { ClaimedDelivery } from '../db/queries/webhook-claims.js';
import { recordAttempts, updateWebhookHealth, type AttemptOutcome, type WebhookHealth } from '../db/queries/webhook-outcomes.js';
import { nextAfter, type AttemptResult } from './attempt-outcome.js';
import type { WebhookMetrics } from './webhook-metrics.js';

/** Outcomes waiting for their statement: beyond this, new ones are dropped (their leases end and they are sent again). */
const MAX_QUEUED = 10_000;
/** Outcomes written by one statement at most. */
const MAX_BATCH = 500;

export interface OutcomeWriter {
  add(delivery: ClaimedDelivery, result: AttemptResult): void;
  /** Resolves once every outcome added so far is written (or failed to be). */
  flush(): Promise<void>;
}

interface WriterOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics: WebhookMetrics;
  scheduleSeconds: readonly number[];
  disableAfterSeconds: number;
  /** A webhook this writer disabled (410, or failing for WEBHOOK_DISABLE_AFTER). */
  onDisabled: () => void;
  now?: () => number;
}

/**
 * Writes attempt outcomes in batches: each webhook's failing streak (which may disable it), then
 * the deliveries' new state and the attempts in one statement. A batch is what arrived while the
 * previous statement ran, so the write costs a round trip per batch, not per delivery. An outcome
 * lost with the process leaves its delivery claimed until the lease ends: it is sent again.
 */
export function createOutcomeWriter(o: WriterOptions): OutcomeWriter {
  const now = o.now ?? Date.now;
  let queued: AttemptOutcome[] = [];
  let writing: Promise<void> | undefined;

  // The webhooks' health is written before the attempts: a 410 puts its delivery back to pending,
  // due at once, and only the disable keeps a claim from sending it again. Written after, a claim
  // between the two statements would find it due on a webhook still enabled.
  async function write(batch: AttemptOutcome[]): Promise<void> {
    const health = new Map<string, WebhookHealth>();
    for (const outcome of batch) {
      const h = health.get(outcome.webhookId) ?? { webhookId: outcome.webhookId, succeeded: false, firstFailureMicros: undefined, disables: undefined };
      if (outcome.status === 'succeeded') h.succeeded = true;
      else h.firstFailureMicros ??= outcome.atMicros;
      h.disables ??= outcome.disables;
      health.set(outcome.webhookId, h);
    }
    const disabled = await updateWebhookHealth(o.pool, [...health.values()], o.disableAfterSeconds);
    await recordAttempts(o.pool, batch);
    for (const { id, reason } of disabled) {
      o.metrics.disabled.inc({ reason: reason.includes('410') ? 'gone' : 'failing' });
      o.logger.warn({ webhookId: id, reason }, 'webhook disabled');
    }
    if (disabled.length > 0) o.onDisabled();
  }

  function drain(): void {
    if (writing || queued.length === 0) return;
    const batch = queued.slice(0, MAX_BATCH);
    queued = queued.slice(MAX_BATCH);
    writing = write(batch)
      .catch((err: Error) => o.logger.error({ err: { message: err.message, code: (err as { code?: string }).code }, outcomes: batch.length }, 'recording webhook attempts failed; those deliveries are sent again when their lease ends'))
      .finally(() => {
        writing = undefined;
        drain();
      });
  }

  return {
    add(delivery, result) {
      const atMs = now();
      const next = nextAfter(result, delivery.attemptCount, o.scheduleSeconds, atMs);
      o.metrics.attempts.inc({ outcome: next.status === 'pending' ? 'retrying' : next.status });
      o.metrics.attemptSeconds.observe(result.durationMs / 1000);
      if (queued.length >= MAX_QUEUED) return;
      queued.push({
        deliveryId: delivery.id,
        webhookId: delivery.webhookId,
        atMicros: BigInt(atMs) * 1000n,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        responseBody: result.responseBody,
        status: next.status,
        nextAttemptAtMicros: next.status === 'pending' ? BigInt(next.atMs) * 1000n : undefined,
        disables: next.status === 'pending' ? next.disables : undefined,
      });
      drain();
    },
    async flush() {
      while (writing || queued.length > 0) {
        drain();
        await writing;
      }
    },
  };
}
