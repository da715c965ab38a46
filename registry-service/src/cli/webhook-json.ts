import { formatTimestamp, registry, type Timestamp } from '@dynamic-events/proto';
import type { FilterFlag } from './webhook-args.js';

/** A webhook in the HTTP API's snake_case shape: RFC 3339 times, null when unset; never its secret. */
interface WebhookJson {
  id: string;
  url: string;
  description: string;
  filter: FilterFlag;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string | null;
  updated_at: string | null;
}

/** A delivery in the HTTP API's shape, as its delivery log lists it. */
interface DeliveryJson {
  id: string;
  event_id: string | null;
  type: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string | null;
  succeeded_at: string | null;
}

const time = (ts: Timestamp | undefined): string | null => (ts ? formatTimestamp(ts) : null);
const orNull = (text: string): string | null => (text === '' ? null : text);

/** Only the lists that are set (an empty one too), as the HTTP API shows them. */
function filterJson(filter: registry.WebhookFilter | undefined): FilterFlag {
  const json: FilterFlag = {};
  if (filter?.domains) json.domains = filter.domains.values;
  if (filter?.eventTypes) json.event_types = filter.eventTypes.values;
  if (filter?.deviceNames) json.device_names = filter.deviceNames.values;
  if (filter?.kinds) json.kinds = filter.kinds.values;
  return json;
}

/** --filter to the wire: a list given is set, an absent one unset. */
export function toProtoFilter(filter: FilterFlag): registry.WebhookFilter {
  const list = (values: string[] | undefined) => (values === undefined ? undefined : { values });
  return { domains: list(filter.domains), eventTypes: list(filter.event_types), deviceNames: list(filter.device_names), kinds: list(filter.kinds) };
}

export function webhookJson(webhook: registry.Webhook | undefined): WebhookJson {
  if (!webhook) throw new Error('the registry answered without a webhook');
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    filter: filterJson(webhook.filter),
    enabled: webhook.enabled,
    disabled_reason: orNull(webhook.disabledReason),
    created_at: time(webhook.createdAt),
    updated_at: time(webhook.updatedAt),
  };
}

const STATUS_WORDS: Partial<Record<registry.DeliveryStatus, string>> = {
  [registry.DeliveryStatus.DELIVERY_STATUS_PENDING]: 'pending',
  [registry.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED]: 'succeeded',
  [registry.DeliveryStatus.DELIVERY_STATUS_FAILED]: 'failed',
};

/** A status word of --status to the wire; undefined: every status. */
export function toProtoStatus(word: string | undefined): registry.DeliveryStatus {
  const found = Object.entries(STATUS_WORDS).find(([, w]) => w === word);
  return found ? (Number(found[0]) as registry.DeliveryStatus) : registry.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED;
}

export function deliveryJson(delivery: registry.Delivery | undefined): DeliveryJson {
  if (!delivery) throw new Error('the registry answered without a delivery');
  return {
    id: delivery.id,
    event_id: orNull(delivery.eventId),
    type: delivery.type,
    status: STATUS_WORDS[delivery.status] ?? 'unknown',
    attempt_count: delivery.attemptCount,
    last_status_code: delivery.lastStatusCode ?? null,
    last_error: orNull(delivery.lastError),
    next_attempt_at: time(delivery.nextAttemptAt),
    created_at: time(delivery.createdAt),
    succeeded_at: time(delivery.succeededAt),
  };
}
