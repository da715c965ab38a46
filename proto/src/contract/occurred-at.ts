import { invalidArgument } from './app-error.js';
import type { Timestamp } from './gen/google/protobuf/timestamp.js';
import { microsFromTimestamp, parseRfc3339 } from './timestamps.js';

/** The field's path in an event body; `events[i].` qualifies it inside a batch. */
export const OCCURRED_AT_FIELD = 'event.occurred_at';

/** The rule on an event's occurrence time, owned here: the gateway (HTTP) and the registry (gRPC) apply it alike. */
export interface OccurredAtRule {
  /** Microseconds since the epoch of a valid occurrence time; throws INVALID_ARGUMENT naming `field` otherwise. */
  check(field: string, occurredAt: Timestamp): bigint;
  /** The same for the body's text (RFC 3339 with a zone, up to nine fractional digits). */
  parse(field: string, text: string): { timestamp: Timestamp; micros: bigint };
}

/**
 * From 1970-01-01T00:00:00Z to `maxSkewSeconds` ahead of `now()` (the receiving service's clock): a
 * device clock a little ahead is tolerated, one set to another year is refused rather than stored.
 * The instant is stored to the microsecond (rounded up, as every platform timestamp).
 */
export function createOccurredAtRule(maxSkewSeconds: number, now: () => number = Date.now): OccurredAtRule {
  const check = (field: string, occurredAt: Timestamp): bigint => {
    const micros = microsFromTimestamp(occurredAt);
    if (micros === undefined) throw invalidArgument(field, 'timestamp', `${field} is not a valid timestamp`);
    if (micros < 0n) throw invalidArgument(field, 'min', `${field} must not be before 1970-01-01T00:00:00Z`);
    if (micros > BigInt(now()) * 1000n + BigInt(maxSkewSeconds) * 1_000_000n) {
      throw invalidArgument(field, 'max-skew', `${field} must not be more than ${maxSkewSeconds} s in the future (OCCURRED_AT_MAX_SKEW)`);
    }
    return micros;
  };
  return {
    check,
    parse(field, text) {
      const timestamp = parseRfc3339(text);
      if (timestamp === undefined) {
        throw invalidArgument(field, 'format', `${field} must be an RFC 3339 date-time with a time zone, such as 2026-11-21T08:20:04.123Z`);
      }
      return { timestamp, micros: check(field, timestamp) };
    },
  };
}
