import { formatTimestamp, registry, type Timestamp } from '@dynamic-events/proto';
import type { DeliveryAttempt, DeliveryRecord, DeliveryStatus, WebhookFilter, WebhookRecord } from '../webhooks/webhook-model.js';

const optionalTime = (ts: Timestamp | undefined): string | null => (ts ? formatTimestamp(ts) : null);
const list = (values: string[] | undefined): registry.StringList | undefined => (values === undefined ? undefined : { values });
const orNull = (text: string): string | null => (text === '' ? null : text);

/** A filter to the wire: a list given is set (an empty one too), an absent one unset. */
export function toProtoFilter(filter: WebhookFilter): registry.WebhookFilter {
  return { domains: list(filter.domains), eventTypes: list(filter.eventTypes), deviceNames: list(filter.deviceNames), kinds: list(filter.kinds) };
}

function fromProtoFilter(filter: registry.WebhookFilter | undefined): WebhookFilter {
  const result: WebhookFilter = {};
  if (filter?.domains) result.domains = filter.domains.values;
  if (filter?.eventTypes) result.eventTypes = filter.eventTypes.values;
  if (filter?.deviceNames) result.deviceNames = filter.deviceNames.values;
  if (filter?.kinds) result.kinds = filter.kinds.values;
  return result;
}

export function toWebhookRecord(webhook: registry.Webhook | undefined): WebhookRecord {
  if (!webhook) throw new Error('registry answered without a webhook');
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    filter: fromProtoFilter(webhook.filter),
    enabled: webhook.enabled,
    disabledReason: orNull(webhook.disabledReason),
    createdAt: formatTimestamp(webhook.createdAt),
    updatedAt: formatTimestamp(webhook.updatedAt),
  };
}

const STATUS_TO_PROTO: Record<DeliveryStatus, registry.DeliveryStatus> = {
  pending: registry.DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: registry.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: registry.DeliveryStatus.DELIVERY_STATUS_FAILED,
};

/** A status filter to the wire; undefined: every status. */
export function toProtoStatus(status: DeliveryStatus | undefined): registry.DeliveryStatus {
  return status === undefined ? registry.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED : STATUS_TO_PROTO[status];
}

function fromProtoStatus(status: registry.DeliveryStatus): DeliveryStatus {
  const found = (Object.keys(STATUS_TO_PROTO) as DeliveryStatus[]).find((word) => STATUS_TO_PROTO[word] === status);
  if (!found) throw new Error(`registry answered a delivery with status ${String(status)}`);
  return found;
}

function toAttempt(attempt: registry.DeliveryAttempt): DeliveryAttempt {
  return {
    at: formatTimestamp(attempt.at),
    statusCode: attempt.statusCode === 0 ? null : attempt.statusCode,
    durationMs: attempt.durationMs,
    error: orNull(attempt.error),
    responseBody: attempt.responseBody,
  };
}

export function toDeliveryRecord(delivery: registry.Delivery | undefined): DeliveryRecord {
  if (!delivery) throw new Error('registry answered without a delivery');
  return {
    id: delivery.id,
    eventId: orNull(delivery.eventId),
    type: delivery.type,
    status: fromProtoStatus(delivery.status),
    attemptCount: delivery.attemptCount,
    lastStatusCode: delivery.lastStatusCode ?? null,
    lastError: orNull(delivery.lastError),
    nextAttemptAt: optionalTime(delivery.nextAttemptAt),
    createdAt: formatTimestamp(delivery.createdAt),
    succeededAt: optionalTime(delivery.succeededAt),
    attempts: delivery.attempts.map(toAttempt),
  };
}
