import { Ajv, type ValidateFunction } from 'ajv';
import { checkCharacters, invalidArgument } from '@dynamic-events/proto';
import type { Instant } from '../model.js';
import { instantOf } from '../http/query-params.js';
import { toInputError } from '../tokens/admin-input.js';
import type { DeliveryStatus, WebhookChange, WebhookDraft, WebhookFilter } from './webhook-model.js';

/**
 * JSON shapes of the webhook admin API: types and known fields only. The values' rules (a safe
 * url, domain patterns, kinds, lengths and counts) are the registry's, which names the field.
 */
const STRINGS = { type: 'array', items: { type: 'string' } } as const;
const FILTER = {
  type: 'object',
  additionalProperties: false,
  properties: { domains: STRINGS, event_types: STRINGS, device_names: STRINGS, kinds: STRINGS },
} as const;
const FIELDS = { url: { type: 'string' }, description: { type: 'string' }, filter: FILTER, enabled: { type: 'boolean' } } as const;
const CREATE = { type: 'object', additionalProperties: false, required: ['url'], properties: FIELDS } as const;
const UPDATE = { type: 'object', additionalProperties: false, properties: FIELDS } as const;
const RECOVER = { type: 'object', additionalProperties: false, required: ['since'], properties: { since: { type: 'string' } } } as const;

interface FilterJson {
  domains?: string[];
  event_types?: string[];
  device_names?: string[];
  kinds?: string[];
}

interface WebhookJson {
  url?: string;
  description?: string;
  filter?: FilterJson;
  enabled?: boolean;
}

/** Bodies and parameters of the webhook admin API in gateway terms; each throws INVALID_ARGUMENT naming the field. */
interface WebhookAdminInput {
  draft(body: unknown): WebhookDraft;
  change(body: unknown): WebhookChange;
  /** The recover body's `since`. */
  since(body: unknown): Instant;
}

/** Compiles the schemas once. */
export function createWebhookAdminInput(): WebhookAdminInput {
  const ajv = new Ajv({ allErrors: false, strict: true, ownProperties: true });
  const create = ajv.compile<WebhookJson>(CREATE);
  const update = ajv.compile<WebhookJson>(UPDATE);
  const recover = ajv.compile<{ since: string }>(RECOVER);
  const check = <T>(validate: ValidateFunction<T>, body: unknown): T => {
    if (!validate(body)) throw toInputError(validate.errors?.[0]);
    return body;
  };
  return {
    draft: (body) => ({ url: '', ...changeOf(check(create, body)) }),
    change(body) {
      const json = check(update, body);
      if (Object.keys(json).length === 0) throw invalidArgument('body', 'required', 'body must name at least one of url, description, filter, enabled');
      return changeOf(json);
    },
    since: (body) => instantOf('since', check(recover, body).since),
  };
}

/**
 * The fields given, mapped. The registry owns the text rules, but a lone surrogate would reach it
 * as U+FFFD: refused here, where it is still one.
 */
function changeOf(json: WebhookJson): WebhookChange {
  const change: WebhookChange = {};
  if (json.url !== undefined) change.url = text('url', json.url);
  if (json.description !== undefined) change.description = text('description', json.description);
  if (json.filter !== undefined) change.filter = filterOf(json.filter);
  if (json.enabled !== undefined) change.enabled = json.enabled;
  return change;
}

function filterOf(json: FilterJson): WebhookFilter {
  const texts = (name: string, values: string[] | undefined) => values?.map((value, i) => text(`filter.${name}[${i}]`, value));
  const filter: WebhookFilter = {};
  if (json.domains !== undefined) filter.domains = texts('domains', json.domains);
  if (json.event_types !== undefined) filter.eventTypes = texts('event_types', json.event_types);
  if (json.device_names !== undefined) filter.deviceNames = texts('device_names', json.device_names);
  if (json.kinds !== undefined) filter.kinds = texts('kinds', json.kinds);
  return filter;
}

function text(field: string, value: string): string {
  checkCharacters(field, value);
  return value;
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/** status=pending|succeeded|failed of the delivery log; undefined: every status. */
export function deliveryStatusOf(value: string | undefined): DeliveryStatus | undefined {
  if (value === undefined) return undefined;
  if (!STATUSES.includes(value as DeliveryStatus)) throw invalidArgument('status', 'enum', 'status must be pending, succeeded or failed');
  return value as DeliveryStatus;
}
