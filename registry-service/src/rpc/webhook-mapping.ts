import { invalidArgument, microsFromTimestamp, registry, TIMESTAMP_RANGE_TEXT, timestampFromMicros, type Timestamp } from '@dynamic-events/proto';
import type { ChangeKind, DeliveryRecord, DeliveryStatus, WebhookChange, WebhookDraft, WebhookFilter, WebhookRecord } from '../webhooks/webhook-model.js';

/* WebhookService messages ↔ domain types; the handlers (webhooks.ts) and the operator CLI share them. */

const list = (values: string[] | undefined): registry.StringList | undefined => (values === undefined ? undefined : { values });

function toProtoFilter(filter: WebhookFilter): registry.WebhookFilter {
  return { domains: list(filter.domains), eventTypes: list(filter.eventTypes), deviceNames: list(filter.deviceNames), kinds: list(filter.kinds) };
}

/** A filter as sent; its values are the domain's to check (webhook-rules.ts). */
function fromProtoFilter(filter: registry.WebhookFilter | undefined): Partial<WebhookFilter> | undefined {
  if (!filter) return undefined;
  return {
    ...(filter.domains ? { domains: filter.domains.values } : {}),
    ...(filter.eventTypes ? { eventTypes: filter.eventTypes.values } : {}),
    ...(filter.deviceNames ? { deviceNames: filter.deviceNames.values } : {}),
    ...(filter.kinds ? { kinds: filter.kinds.values as ChangeKind[] } : {}),
  };
}

export function toProtoWebhook(webhook: WebhookRecord): registry.Webhook {
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    filter: toProtoFilter(webhook.filter),
    enabled: webhook.enabled,
    disabledReason: webhook.disabledReason,
    createdAt: timestampFromMicros(webhook.createdAtMicros),
    updatedAt: timestampFromMicros(webhook.updatedAtMicros),
  };
}

export function toWebhookDraft(request: registry.CreateWebhookRequest): WebhookDraft {
  return { url: request.url, description: request.description, filter: fromProtoFilter(request.filter), enabled: request.enabled };
}

export function toWebhookChange(request: registry.UpdateWebhookRequest): WebhookChange {
  const filter = fromProtoFilter(request.filter);
  return {
    ...(request.url !== undefined ? { url: request.url } : {}),
    ...(request.description !== undefined ? { description: request.description } : {}),
    ...(filter !== undefined ? { filter } : {}),
    ...(request.enabled !== undefined ? { enabled: request.enabled } : {}),
  };
}

const STATUS: Record<DeliveryStatus, registry.DeliveryStatus> = {
  pending: registry.DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: registry.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: registry.DeliveryStatus.DELIVERY_STATUS_FAILED,
};

/** A requested status filter; UNSPECIFIED is every status. */
export function fromProtoStatus(status: registry.DeliveryStatus): DeliveryStatus | undefined {
  const found = (Object.keys(STATUS) as DeliveryStatus[]).find((s) => STATUS[s] === status);
  if (found === undefined && status !== registry.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED) throw invalidArgument('status', 'one-of', 'status must be pending, succeeded or failed');
  return found;
}

const optionalTimestamp = (us: bigint | undefined): Timestamp | undefined => (us === undefined ? undefined : timestampFromMicros(us));

export function toProtoDelivery(d: DeliveryRecord): registry.Delivery {
  return {
    id: d.id,
    eventId: d.eventId ?? '',
    type: d.type,
    status: STATUS[d.status],
    attemptCount: d.attemptCount,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    nextAttemptAt: optionalTimestamp(d.nextAttemptAtMicros),
    createdAt: timestampFromMicros(d.createdAtMicros),
    succeededAt: optionalTimestamp(d.succeededAtMicros),
    attempts: (d.attempts ?? []).map((a) => ({ at: timestampFromMicros(a.atMicros), statusCode: a.statusCode ?? 0, durationMs: a.durationMs, error: a.error, responseBody: a.responseBody })),
  };
}

/** RecoverDeliveries' since; undefined when unset (the domain says it is required). */
export function sinceMicros(ts: Timestamp | undefined): bigint | undefined {
  if (ts === undefined) return undefined;
  const us = microsFromTimestamp(ts);
  if (us === undefined) throw invalidArgument('since', 'timestamp', `since is not a valid timestamp (${TIMESTAMP_RANGE_TEXT})`);
  return us;
}
