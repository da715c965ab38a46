import type { DeliveryAttempt, DeliveryRecord, WebhookFilter, WebhookRecord } from '../webhooks/webhook-model.js';

/** A filter as the admin API shows it: only the lists that are set (an empty one included). */
function presentFilter(filter: WebhookFilter): Record<string, string[]> {
  const json: Record<string, string[]> = {};
  if (filter.domains) json.domains = filter.domains;
  if (filter.eventTypes) json.event_types = filter.eventTypes;
  if (filter.deviceNames) json.device_names = filter.deviceNames;
  if (filter.kinds) json.kinds = filter.kinds;
  return json;
}

/** A webhook as the admin API shows it: never its secret. */
export function presentWebhook(webhook: WebhookRecord): Record<string, unknown> {
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    filter: presentFilter(webhook.filter),
    enabled: webhook.enabled,
    disabled_reason: webhook.disabledReason,
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
  };
}

/** A delivery as the delivery log lists it (its id is the webhook-id header of its attempts). */
export function presentDelivery(delivery: DeliveryRecord): Record<string, unknown> {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    type: delivery.type,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: delivery.nextAttemptAt,
    created_at: delivery.createdAt,
    succeeded_at: delivery.succeededAt,
  };
}

function presentAttempt(attempt: DeliveryAttempt): Record<string, unknown> {
  return { at: attempt.at, status_code: attempt.statusCode, duration_ms: attempt.durationMs, error: attempt.error, response_body: attempt.responseBody };
}

/** One delivery read on its own: the listed shape and its attempts, oldest first. */
export function presentDeliveryWithAttempts(delivery: DeliveryRecord): Record<string, unknown> {
  return { ...presentDelivery(delivery), attempts: delivery.attempts.map(presentAttempt) };
}
