import { invalidArgument, parseRfc3339, TIMESTAMP_RANGE_TEXT } from '@dynamic-events/proto';
import type { ChangeKind, EventQuery, Instant, PageQuery } from '../model.js';

/** The query string as Koa parses it: a repeated parameter arrives as an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** Page sizes: the registry's bounds, checked here so the error names `limit`. */
const LIMIT = { default: 100, max: 1000 };
const KINDS: readonly ChangeKind[] = ['event.created', 'device.created', 'object.created', 'event_type.created'];

/**
 * Reads the allowed parameters of one endpoint: an unknown or repeated parameter is a 400 naming it
 * (a typo such as `devce_name` must not silently list everything). Empty values count as absent.
 */
export function readParams(query: RawQuery, allowed: readonly string[]): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.includes(name)) throw invalidArgument(name, 'unknown', `${name} is not a known parameter (known: ${allowed.join(', ')})`);
    if (Array.isArray(value)) throw invalidArgument(name, 'repeated', `${name} must be given once`);
    params[name] = value === '' ? undefined : value;
  }
  return params;
}

/** limit 1–1000 (default 100) and the opaque page_token. */
export function pageOf(params: Record<string, string | undefined>): PageQuery {
  const raw = params.limit;
  const limit = raw === undefined ? LIMIT.default : /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= LIMIT.max)) throw invalidArgument('limit', 'range', `limit must be an integer between 1 and ${LIMIT.max}`);
  return { limit, pageToken: params.page_token ?? '' };
}

/**
 * An RFC 3339 timestamp (offset required, proto's parseRfc3339) to an exact instant; anything else,
 * or an instant past what the platform stores (TIMESTAMP_RANGE), is a 400 naming `name`.
 */
export function instantOf(name: string, value: string): Instant {
  const instant = parseRfc3339(value);
  if (!instant) throw invalidArgument(name, 'rfc3339', `${name} must be an RFC 3339 timestamp such as 2026-11-21T08:20:04Z, from ${TIMESTAMP_RANGE_TEXT}`);
  return instant;
}

const before = (a: Instant, b: Instant) => BigInt(a.seconds) < BigInt(b.seconds) || (a.seconds === b.seconds && a.nanos < b.nanos);

/** The event filters shared by the list and the stream; since must not be after until. */
export function eventQueryOf(params: Record<string, string | undefined>): EventQuery {
  const since = params.since === undefined ? undefined : instantOf('since', params.since);
  const until = params.until === undefined ? undefined : instantOf('until', params.until);
  if (since && until && before(until, since)) throw invalidArgument('since', 'order', 'since must not be after until');
  return { deviceName: params.device_name, object: params.object, domain: params.domain, eventType: params.event_type, since, until, tokenId: params.token_id };
}

/** The list's occurred_at range (the stream follows commits and takes none); since must not be after until. */
export function occurredRangeOf(params: Record<string, string | undefined>): Pick<EventQuery, 'occurredSince' | 'occurredUntil'> {
  const occurredSince = params.occurred_since === undefined ? undefined : instantOf('occurred_since', params.occurred_since);
  const occurredUntil = params.occurred_until === undefined ? undefined : instantOf('occurred_until', params.occurred_until);
  if (occurredSince && occurredUntil && before(occurredUntil, occurredSince)) throw invalidArgument('occurred_since', 'order', 'occurred_since must not be after occurred_until');
  return { occurredSince, occurredUntil };
}

/** order_by=created_at|occurred_at (default created_at): true for occurred_at. */
export function byOccurrenceOf(value: string | undefined): boolean {
  if (value === undefined || value === 'created_at') return false;
  if (value === 'occurred_at') return true;
  throw invalidArgument('order_by', 'enum', 'order_by must be created_at or occurred_at');
}

/** order=asc|desc (default desc). */
export function oldestFirstOf(value: string | undefined): boolean {
  if (value === undefined || value === 'desc') return false;
  if (value === 'asc') return true;
  throw invalidArgument('order', 'enum', 'order must be asc or desc');
}

/** kinds=event.created,device.created,... (default: all). */
export function kindsOf(value: string | undefined): ChangeKind[] {
  if (value === undefined) return [];
  return value.split(',').map((kind) => {
    if (!KINDS.includes(kind as ChangeKind)) throw invalidArgument('kinds', 'enum', `kinds must be a comma-separated list of ${KINDS.join(', ')}`);
    return kind as ChangeKind;
  });
}
