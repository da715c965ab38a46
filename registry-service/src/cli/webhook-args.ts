import { parseRfc3339, TIMESTAMP_RANGE_TEXT, type Timestamp } from '@dynamic-events/proto';
import { booleanFlag, UsageError } from './usage-error.js';

/** A webhook filter as --filter gives it: an absent list is no restriction, an empty one matches nothing. */
export interface FilterFlag {
  domains?: string[];
  event_types?: string[];
  device_names?: string[];
  kinds?: string[];
}

type DeliveryStatusWord = 'pending' | 'succeeded' | 'failed';

/** The webhooks commands, their flags parsed (the values' rules are the registry's to check). */
export type WebhookCommand =
  | { kind: 'webhooks create'; url: string; description?: string; filter?: FilterFlag; enabled?: boolean }
  | { kind: 'webhooks list'; limit?: number; pageToken?: string }
  | { kind: 'webhooks get' | 'webhooks delete'; id: string }
  | { kind: 'webhooks update'; id: string; url?: string; description?: string; filter?: FilterFlag; enabled?: boolean }
  | { kind: 'webhooks deliveries'; id: string; status?: DeliveryStatusWord; eventId?: string; limit?: number; pageToken?: string }
  | { kind: 'webhooks retry'; id: string; deliveryId: string }
  | { kind: 'webhooks recover'; id: string; since: Timestamp };

/** Whether a parsed command is one of the webhooks commands. */
export function isWebhookCommand<C extends { kind: string }>(command: C): command is Extract<C, WebhookCommand> {
  return command.kind.startsWith('webhooks ');
}

export const WEBHOOK_USAGE = `  webhooks create --url URL [--description TEXT] [--filter JSON] [--enabled true|false]
                                                  the secret is under "secret", this once
  webhooks list [--limit N] [--page-token TOKEN]
  webhooks get ID
  webhooks update ID [--url URL] [--description TEXT] [--filter JSON] [--enabled true|false]
  webhooks delete ID
  webhooks deliveries ID [--status pending|succeeded|failed] [--event-id ID] [--limit N] [--page-token TOKEN]
  webhooks retry ID DELIVERY_ID
  webhooks recover ID --since RFC3339             sends again every failed delivery since then`;

export const WEBHOOK_FILTER_USAGE = `--filter: {"domains": ["acme.camera.*"], "event_types": [...], "device_names": [...],
           "kinds": ["event.created","device.created","object.created","event_type.created"]}`;

export const WEBHOOK_OPTIONS = {
  url: { type: 'string' },
  description: { type: 'string' },
  filter: { type: 'string' },
  enabled: { type: 'string' },
  status: { type: 'string' },
  'event-id': { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  'page-token': { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof WEBHOOK_OPTIONS, string>>;

const CHANGES = ['url', 'description', 'filter', 'enabled'];
const PAGE = ['limit', 'page-token'];

/** Flags of each webhooks command, and its positionals (ids) in words. */
export const WEBHOOK_SHAPES: Record<string, { flags: string[]; ids: number; idWords: string }> = {
  'webhooks create': { flags: CHANGES, ids: 0, idWords: 'no argument' },
  'webhooks list': { flags: PAGE, ids: 0, idWords: 'no argument' },
  'webhooks get': { flags: [], ids: 1, idWords: 'one webhook id' },
  'webhooks update': { flags: CHANGES, ids: 1, idWords: 'one webhook id' },
  'webhooks delete': { flags: [], ids: 1, idWords: 'one webhook id' },
  'webhooks deliveries': { flags: ['status', 'event-id', ...PAGE], ids: 1, idWords: 'one webhook id' },
  'webhooks retry': { flags: [], ids: 2, idWords: 'a webhook id and a delivery id' },
  'webhooks recover': { flags: ['since'], ids: 1, idWords: 'one webhook id' },
};

/** The command of a webhooks command line whose shape (flags, ids) was checked. */
export function toWebhookCommand(kind: string, ids: string[], values: Values): WebhookCommand {
  const id = ids[0] ?? '';
  switch (kind) {
    case 'webhooks create':
      if (values.url === undefined) throw new UsageError('webhooks create needs --url');
      return { kind, url: values.url, ...changes(values) };
    case 'webhooks update':
      if (!CHANGES.some((flag) => values[flag as keyof Values] !== undefined)) throw new UsageError('webhooks update needs at least one of --url, --description, --filter, --enabled');
      return { kind, id, ...(values.url !== undefined ? { url: values.url } : {}), ...changes(values) };
    case 'webhooks list':
      return { kind, ...page(values) };
    case 'webhooks deliveries':
      return { kind, id, ...page(values), ...(values.status !== undefined ? { status: statusOf(values.status) } : {}), ...(values['event-id'] !== undefined ? { eventId: values['event-id'] } : {}) };
    case 'webhooks retry':
      return { kind, id, deliveryId: ids[1] ?? '' };
    case 'webhooks recover': {
      if (values.since === undefined) throw new UsageError('webhooks recover needs --since');
      const since = parseRfc3339(values.since);
      if (!since) throw new UsageError(`--since must be an RFC 3339 date-time from ${TIMESTAMP_RANGE_TEXT}, e.g. 2026-11-21T08:00:00Z`);
      return { kind, id, since };
    }
    default:
      return { kind: kind as 'webhooks get' | 'webhooks delete', id };
  }
}

function changes(values: Values): { description?: string; filter?: FilterFlag; enabled?: boolean } {
  return {
    ...(values.description !== undefined ? { description: values.description } : {}),
    ...(values.filter !== undefined ? { filter: filterOf(values.filter) } : {}),
    ...(values.enabled !== undefined ? { enabled: booleanFlag('enabled', values.enabled) } : {}),
  };
}

function page(values: Values): { limit?: number; pageToken?: string } {
  const limit = values.limit === undefined ? undefined : /^\d{1,4}$/.test(values.limit) ? Number(values.limit) : NaN;
  if (limit !== undefined && !(limit >= 1 && limit <= 1000)) throw new UsageError('--limit must be an integer between 1 and 1000');
  return { ...(limit !== undefined ? { limit } : {}), ...(values['page-token'] !== undefined ? { pageToken: values['page-token'] } : {}) };
}

function statusOf(value: string): DeliveryStatusWord {
  if (value === 'pending' || value === 'succeeded' || value === 'failed') return value;
  throw new UsageError('--status must be pending, succeeded or failed');
}

const FILTER_FIELDS = ['domains', 'event_types', 'device_names', 'kinds'] as const;

/** --filter's JSON: an object of string lists; which values are allowed is the registry's rule. */
function filterOf(text: string): FilterFlag {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError('--filter must be JSON, e.g. {"domains": ["acme.camera.*"]}');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new UsageError('--filter must be a JSON object');
  const filter: FilterFlag = {};
  for (const [key, value] of Object.entries(json)) {
    const field = FILTER_FIELDS.find((name) => name === key);
    if (!field) throw new UsageError(`--filter: filter.${key} is not a filter field (fields: ${FILTER_FIELDS.join(', ')})`);
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new UsageError(`--filter: filter.${key} must be an array of strings`);
    filter[field] = value as string[];
  }
  return filter;
}
