import { checkDomainPattern, DOMAIN_PATTERNS_MAX_COUNT, LIMITS, invalidArgument } from '@dynamic-events/proto';
import { isUuid } from '../uuid-v7.js';
import { withinLength } from '../ingest/validate-event.js';

/** Page sizes of every list: 1 to 1000, 0 (unset) means the default. */
const PAGE_SIZE = Object.freeze({ default: 100, max: 1000 });

/** A filter of events (ListEvents and Watch); empty strings do not filter. */
export interface EventFilterInput {
  deviceName: string;
  /** Full object id "{object_domain}.{object_id}". */
  object: string;
  domain: string;
  eventType: string;
  sinceUs?: bigint;
  untilUs?: bigint;
  /** The token that sent the events (a token id). */
  tokenId: string;
  /** Domain patterns (a token policy's rules); undefined: no filter, empty: nothing matches. */
  domainPatterns?: readonly string[];
  /** occurred_at range (inclusive, exclusive); events without one never match either. */
  occurredSinceUs?: bigint;
  occurredUntilUs?: bigint;
}

/** The same filter, checked: absent fields are undefined. */
export interface EventFilter {
  deviceName?: string;
  object?: string;
  domain?: string;
  eventType?: string;
  sinceUs?: bigint;
  untilUs?: bigint;
  tokenId?: string;
  /** Sorted, without repeats: the same patterns in any order are the same filter (and page token scope). */
  domainPatterns?: readonly string[];
  occurredSinceUs?: bigint;
  occurredUntilUs?: bigint;
}

/** page_size 0 → default; outside 1–max → INVALID_ARGUMENT naming the field. */
export function pageSizeOf(value: number, field = 'page_size'): number {
  if (value === 0) return PAGE_SIZE.default;
  if (!Number.isInteger(value) || value < 1 || value > PAGE_SIZE.max) {
    throw invalidArgument(field, 'range', `${field} must be between 1 and ${PAGE_SIZE.max} (got ${value})`);
  }
  return value;
}

/** An optional name filter: empty means none; a value no stored name can have is refused, naming the field. */
export function nameFilter(field: string, value: string, maxLength: number = LIMITS.nameMaxLength): string | undefined {
  if (value === '') return undefined;
  if (!withinLength(value, maxLength)) throw invalidArgument(field, 'max-length', `${field} must be at most ${maxLength} characters`);
  if (value.includes('\u0000')) throw invalidArgument(field, 'no-nul', `${field} must not contain U+0000`);
  return value;
}

/**
 * q= of the entity lists: empty means none; at most a full object id long (longer matches nothing
 * stored, and is refused naming `q`), no U+0000.
 */
export function searchFilter(value: string): string | undefined {
  return nameFilter('q', value, LIMITS.nameMaxLength * 2 + 1);
}

/** A token id; lower-cased, as Postgres prints the ids a watch compares it with. */
export function tokenIdFilter(value: string, field = 'token_id'): string | undefined {
  if (value === '') return undefined;
  if (!isUuid(value)) throw invalidArgument(field, 'format', `${field} must be a token id (a UUID)`);
  return value.toLowerCase();
}

/** Domain patterns of a filter, each of a policy's shape (`domain_patterns[2]` names a bad one); sorted, without repeats. */
export function domainPatternsFilter(values: readonly string[] | undefined, field = 'domain_patterns'): readonly string[] | undefined {
  if (values === undefined) return undefined;
  if (values.length > DOMAIN_PATTERNS_MAX_COUNT) throw invalidArgument(field, 'max-items', `${field} must hold at most ${DOMAIN_PATTERNS_MAX_COUNT} entries`);
  values.forEach((value, i) => checkDomainPattern(`${field}[${i}]`, value));
  return [...new Set(values)].sort();
}

/** Checks every field of an event filter; since must not be after until. */
export function checkEventFilter(input: EventFilterInput): EventFilter {
  const filter: EventFilter = {
    deviceName: nameFilter('device_name', input.deviceName),
    object: nameFilter('object', input.object, LIMITS.nameMaxLength * 2 + 1),
    domain: nameFilter('domain', input.domain),
    eventType: nameFilter('event_type', input.eventType),
    sinceUs: input.sinceUs,
    untilUs: input.untilUs,
    tokenId: tokenIdFilter(input.tokenId),
    domainPatterns: domainPatternsFilter(input.domainPatterns),
    occurredSinceUs: input.occurredSinceUs,
    occurredUntilUs: input.occurredUntilUs,
  };
  if (filter.sinceUs !== undefined && filter.untilUs !== undefined && filter.sinceUs > filter.untilUs) {
    throw invalidArgument('since', 'order', 'since must not be after until');
  }
  if (filter.occurredSinceUs !== undefined && filter.occurredUntilUs !== undefined && filter.occurredSinceUs > filter.occurredUntilUs) {
    throw invalidArgument('occurred_since', 'order', 'occurred_since must not be after occurred_until');
  }
  return filter;
}
