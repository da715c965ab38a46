import type { PolicyJson, TokenJson } from './model.js';

/** An RFC 3339 instant as "2026-11-26 19:40:01 UTC" (the API answers UTC); null as "never". */
export function timeText(value: string | null, none = 'never'): string {
  if (value === null) return none;
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(value);
  return match ? `${match[1]} ${match[2]} UTC` : value;
}

/** A datetime-local value ("2026-11-26T19:40", read as UTC) as RFC 3339; '' stays ''. */
export function utcInstant(local: string): string {
  if (local === '') return '';
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local) ? `${local}:00Z` : `${local}Z`;
}

/** How a UTC time is typed: a date, then optionally hours and minutes (and seconds), a space or T between. */
const TYPED = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A time typed in UTC ("2026-12-02 10:05") as RFC 3339; undefined when it is not such a time. A
 * text field, not datetime-local, which the browser shows and reads in its own locale.
 */
export function utcTyped(text: string): string | undefined {
  const match = TYPED.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = match;
  const instant = `${y}-${mo}-${d}T${h}:${mi}:${s}Z`;
  const parsed = new Date(instant);
  // Date rolls February 30 over to March: only a time that reads back the same is real.
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === instant.slice(0, 19) ? instant : undefined;
}

/** An RFC 3339 instant as utcTyped reads it: "2026-12-02 10:05" (seconds when not zero). */
export function utcText(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?/.exec(value);
  if (!match) return value;
  return `${match[1]} ${match[2]}${match[3] && match[3] !== ':00' ? match[3] : ''}`;
}

/** An RFC 3339 instant as a datetime-local value in UTC (the form's "Expires at"). */
export function localValue(value: string | null): string {
  return value === null ? '' : value.slice(0, 16);
}

const KIND_WORDS: Record<string, string> = { devices: 'devices', objects: 'objects', event_types: 'event types' };

/** A token policy in words, for the table: what it restricts, "no restriction" for `{}`. */
export function policyText(policy: PolicyJson): string {
  const parts: string[] = [];
  if (policy.may_create !== undefined) {
    parts.push(policy.may_create.length === 0 ? 'creates nothing' : `creates ${policy.may_create.map((k) => KIND_WORDS[k] ?? k).join(', ')}`);
  }
  if (policy.domains !== undefined) parts.push(policy.domains.length === 0 ? 'no domain' : `domains ${policy.domains.join(', ')}`);
  if (policy.max_devices !== undefined) parts.push(`at most ${policy.max_devices} devices`);
  if (policy.max_objects !== undefined) parts.push(`at most ${policy.max_objects} objects`);
  if (policy.rate !== undefined) parts.push(`${policy.rate.per_second} events/s (burst ${policy.rate.burst})`);
  return parts.length === 0 ? 'no restriction' : parts.join('; ');
}

/** A token's state in words: revoked, expired, the bootstrap token, or active. */
export function statusText(token: TokenJson, now = Date.now()): string {
  if (token.revoked_at !== null) return `revoked ${timeText(token.revoked_at)}`;
  if (token.expires_at !== null && Date.parse(token.expires_at) <= now) return 'expired';
  return token.read_only ? 'active (bootstrap, read-only)' : 'active';
}

/** Who created a record: the token's name when the console knows it, else its id; null: no token. */
export function creatorText(tokenId: string | null, names: ReadonlyMap<string, string>): string {
  if (tokenId === null) return 'no token';
  return names.get(tokenId) ?? tokenId;
}

/** An event's rel ("/objects/{percent-encoded full id}") as the object's full id. */
export function objectOf(rel: string): string {
  const id = rel.replace(/^\/objects\//, '');
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

/** An event recorded more than this after it happened arrived late (a device's backlog). */
const LATE_MS = 60_000;

/** Whole units of a lateness, the largest that fits: "2 min", "3 h", "4 d". */
function lateness(ms: number): string {
  if (ms >= 86_400_000) return `${Math.floor(ms / 86_400_000)} d`;
  if (ms >= 3_600_000) return `${Math.floor(ms / 3_600_000)} h`;
  return `${Math.floor(ms / 60_000)} min`;
}

/** When an event happened (its occurred_at), and how late it arrived when it was recorded more than a minute after. */
export function occurrenceText(event: { occurred_at: string | null; created_at: string }): string {
  if (event.occurred_at === null) return 'not sent';
  const late = Date.parse(event.created_at) - Date.parse(event.occurred_at);
  return late > LATE_MS ? `${timeText(event.occurred_at)} (arrived ${lateness(late)} late)` : timeText(event.occurred_at);
}
