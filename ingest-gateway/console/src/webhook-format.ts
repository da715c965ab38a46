import type { WebhookFilterJson, WebhookJson } from './model.js';

/** One filter list in words: absent says nothing, empty matches nothing. */
function listText(values: string[] | undefined, plural: string, none: string): string | undefined {
  if (values === undefined) return undefined;
  return values.length === 0 ? none : `${plural} ${values.join(', ')}`;
}

/** A webhook's filter in words, for the table: its kinds, then what restricts them. */
export function filterText(filter: WebhookFilterJson): string {
  const kinds = filter.kinds === undefined ? 'event.created' : filter.kinds.length === 0 ? 'no kind' : filter.kinds.join(', ');
  const limits = [
    listText(filter.domains, 'domains', 'no domain'),
    listText(filter.event_types, 'event types', 'no event type'),
    listText(filter.device_names, 'devices', 'no device'),
  ].filter((part): part is string => part !== undefined);
  return [kinds, ...(limits.length === 0 ? ['any domain, event type and device'] : limits)].join('; ');
}

/** A webhook's state: enabled, or disabled with the reason the API gives. */
export function stateText(webhook: WebhookJson): string {
  if (webhook.enabled) return 'enabled';
  return webhook.disabled_reason ? `disabled: ${webhook.disabled_reason}` : 'disabled';
}

/** A delivery's or attempt's answer: the status code, the error, both, or none yet. */
export function answerText(statusCode: number | null, error: string | null): string {
  const parts = [statusCode === null ? '' : String(statusCode), error ?? ''].filter((part) => part !== '');
  return parts.length === 0 ? 'none yet' : parts.join(': ');
}

/** How a webhook is named in buttons and headings: its description, else its URL. */
export function webhookName(webhook: WebhookJson): string {
  return webhook.description.trim() === '' ? webhook.url : webhook.description;
}
