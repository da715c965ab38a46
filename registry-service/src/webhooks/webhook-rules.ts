import { checkDomainPattern, DOMAIN_PATTERNS_MAX_COUNT, invalidArgument, LIMITS } from '@dynamic-events/proto';
import type { AddressGuard } from './address-guard.js';
import { CHANGE_KINDS, type ChangeKind, type WebhookFilter } from './webhook-model.js';

/** Longest description of a webhook. */
const WEBHOOK_DESCRIPTION_MAX_LENGTH = 1024;
/** Most names in a filter's event_types or device_names. */
const FILTER_NAMES_MAX_COUNT = 1000;

/**
 * A webhook URL: http or https, no user info, and, when its host is a literal address, one the guard
 * lets through (a name is checked at each connection, on the address it resolves to). Answers the
 * URL as the WHATWG parser normalises it (http://2130706433/ is http://127.0.0.1/, so it is refused).
 */
export function checkWebhookUrl(value: string, guard: AddressGuard): string {
  if (value === '') throw invalidArgument('url', 'required', 'url is required');
  if (value.length > LIMITS.urlMaxLength) throw invalidArgument('url', 'max-length', `url must be at most ${LIMITS.urlMaxLength} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument('url', 'url', 'url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument('url', 'scheme', 'url must use http or https');
  if (url.username !== '' || url.password !== '') throw invalidArgument('url', 'user-info', 'url must not carry a user name or password');
  if (url.hostname === '') throw invalidArgument('url', 'url', 'url must name a host');
  const literal = url.hostname.startsWith('[') || /^[0-9.]+$/.test(url.hostname);
  const why = literal ? guard.refusal(url.hostname) : undefined;
  if (why !== undefined) {
    throw invalidArgument('url', 'internal-address', `url must not point to a ${why} address (WEBHOOK_ALLOWED_NETWORKS lists the networks allowed)`);
  }
  return url.href;
}

export function checkDescription(value: string): string {
  if (value.length > WEBHOOK_DESCRIPTION_MAX_LENGTH) {
    throw invalidArgument('description', 'max-length', `description must be at most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters`);
  }
  if (value.includes('\u0000')) throw invalidArgument('description', 'characters', 'description must not contain NUL');
  return value;
}

function checkNames(field: string, names: string[]): string[] {
  if (names.length > FILTER_NAMES_MAX_COUNT) throw invalidArgument(field, 'max-count', `${field} must have at most ${FILTER_NAMES_MAX_COUNT} entries`);
  names.forEach((name, i) => {
    if (name === '') throw invalidArgument(`${field}[${i}]`, 'required', `${field}[${i}] must not be empty`);
    if (name.length > LIMITS.nameMaxLength) throw invalidArgument(`${field}[${i}]`, 'max-length', `${field}[${i}] must be at most ${LIMITS.nameMaxLength} characters`);
  });
  return names;
}

/** A filter's lists checked, kinds defaulted to event.created. */
export function checkFilter(filter: Partial<WebhookFilter> | undefined): WebhookFilter {
  const checked: WebhookFilter = { kinds: ['event.created'] };
  if (!filter) return checked;
  if (filter.domains !== undefined) {
    if (filter.domains.length > DOMAIN_PATTERNS_MAX_COUNT) throw invalidArgument('filter.domains', 'max-count', `filter.domains must have at most ${DOMAIN_PATTERNS_MAX_COUNT} patterns`);
    filter.domains.forEach((pattern, i) => checkDomainPattern(`filter.domains[${i}]`, pattern));
    checked.domains = filter.domains;
  }
  if (filter.eventTypes !== undefined) checked.eventTypes = checkNames('filter.event_types', filter.eventTypes);
  if (filter.deviceNames !== undefined) checked.deviceNames = checkNames('filter.device_names', filter.deviceNames);
  if (filter.kinds !== undefined) {
    filter.kinds.forEach((kind, i) => {
      if (!(CHANGE_KINDS as readonly string[]).includes(kind)) {
        throw invalidArgument(`filter.kinds[${i}]`, 'one-of', `filter.kinds[${i}] must be one of ${CHANGE_KINDS.join(', ')}`);
      }
    });
    checked.kinds = [...new Set(filter.kinds)] as ChangeKind[];
  }
  return checked;
}
