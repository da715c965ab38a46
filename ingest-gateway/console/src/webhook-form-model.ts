import type { WebhookFilterJson, WebhookJson } from './model.js';

/** The kinds of change a webhook may receive, in the form's order. */
export const CHANGE_KINDS = ['event.created', 'device.created', 'object.created', 'event_type.created'] as const;
type Kind = (typeof CHANGE_KINDS)[number];

/** The webhook form's values, as its inputs hold them (each list one entry a line). */
export interface WebhookFormValues {
  url: string;
  description: string;
  domains: string;
  eventTypes: string;
  deviceNames: string;
  kinds: Record<Kind, boolean>;
  enabled: boolean;
}

/** The form's inputs, each the owner of the API fields whose refusals it shows. */
export type WebhookInput = 'url' | 'description' | 'domains' | 'eventTypes' | 'deviceNames' | 'kinds' | 'enabled';

/** A new webhook: enabled, event.created only, no other restriction. */
export const EMPTY_WEBHOOK_FORM: WebhookFormValues = {
  url: '',
  description: '',
  domains: '',
  eventTypes: '',
  deviceNames: '',
  kinds: { 'event.created': true, 'device.created': false, 'object.created': false, 'event_type.created': false },
  enabled: true,
};

/** A list box's entries: one a line, trimmed, blank lines dropped. */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** An existing webhook's settings in the form. */
export function webhookFormOf(webhook: WebhookJson): WebhookFormValues {
  const kinds = webhook.filter.kinds ?? ['event.created'];
  return {
    url: webhook.url,
    description: webhook.description,
    domains: (webhook.filter.domains ?? []).join('\n'),
    eventTypes: (webhook.filter.event_types ?? []).join('\n'),
    deviceNames: (webhook.filter.device_names ?? []).join('\n'),
    kinds: Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, kinds.includes(kind)])) as Record<Kind, boolean>,
    enabled: webhook.enabled,
  };
}

/** The filter the form says: an empty box sends no list (no restriction); the kinds ticked always. */
function filterOf(values: WebhookFormValues): WebhookFilterJson {
  const filter: WebhookFilterJson = {};
  const lists: Array<[keyof WebhookFilterJson, string]> = [
    ['domains', values.domains],
    ['event_types', values.eventTypes],
    ['device_names', values.deviceNames],
  ];
  for (const [key, text] of lists) {
    const entries = linesOf(text);
    if (entries.length > 0) filter[key] = entries;
  }
  filter.kinds = CHANGE_KINDS.filter((kind) => values.kinds[kind]);
  return filter;
}

/**
 * The body of POST …/webhooks (create) or PATCH …/webhooks/{id} (edit: the whole filter is
 * replaced; enabled is the table's own switch, so an edit leaves it as it is).
 */
export function webhookBodyOf(values: WebhookFormValues, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { url: values.url.trim(), description: values.description, filter: filterOf(values) };
  if (!editing) body.enabled = values.enabled;
  return body;
}

/** The form input that shows a refusal naming `field` (an API field path); none: shown above the form. */
export function webhookInputOf(field: string | undefined): WebhookInput | undefined {
  if (field === undefined) return undefined;
  const table: Array<[RegExp, WebhookInput]> = [
    [/^url$/, 'url'],
    [/^description$/, 'description'],
    [/^filter\.domains/, 'domains'],
    [/^filter\.event_types/, 'eventTypes'],
    [/^filter\.device_names/, 'deviceNames'],
    [/^filter\.kinds/, 'kinds'],
    [/^enabled$/, 'enabled'],
  ];
  return table.find(([pattern]) => pattern.test(field))?.[1];
}
