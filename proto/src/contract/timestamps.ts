import type { Timestamp } from './gen/google/protobuf/timestamp.js';

/** A protobuf Timestamp from microseconds since the epoch (Postgres timestamptz precision). */
export function timestampFromMicros(micros: bigint): Timestamp {
  const seconds = micros / 1_000_000n - (micros % 1_000_000n < 0n ? 1n : 0n);
  const nanos = Number((micros - seconds * 1_000_000n) * 1000n);
  return { seconds: seconds.toString(), nanos };
}

/** RFC 3339 in UTC with exactly nine fractional digits, e.g. "2026-11-21T08:20:04.123456000Z". */
export function formatTimestamp(ts: Timestamp | undefined): string {
  if (!ts) throw new Error('timestamp missing');
  // Events written together share their seconds (a list of 100 spans a few): the date and time of
  // day are formatted once per distinct second, only the fraction per value. A Date and its ISO
  // string per value would be the gateway's largest cost per listed event.
  if (ts.seconds === lastSeconds && ts.nanos === lastNanos) return lastText;
  if (ts.seconds !== lastSeconds) {
    // Seconds of any representable date are far below 2^53: a double holds them exactly.
    lastWhole = new Date(Number(ts.seconds) * 1000).toISOString().slice(0, 19);
    lastSeconds = ts.seconds;
  }
  lastNanos = ts.nanos;
  lastText = `${lastWhole}.${String(ts.nanos).padStart(9, '0')}Z`;
  return lastText;
}

let lastSeconds = '';
let lastWhole = '';
let lastNanos = -1;
let lastText = '';

/**
 * The instants the platform accepts and stores, in microseconds since the epoch (Postgres
 * timestamptz precision): 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z, RFC 3339's years and
 * protobuf Timestamp's range. Postgres itself goes to year 294276, but nothing past 9999 can be
 * written back as RFC 3339 or as a Timestamp, so nothing past it is taken in.
 */
const TIMESTAMP_RANGE = Object.freeze({ minMicros: -62_135_596_800_000_000n, maxMicros: 253_402_300_799_999_999n });

/** The range as people read it, for messages. */
export const TIMESTAMP_RANGE_TEXT = '0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z';

/** Whether microseconds since the epoch lie within TIMESTAMP_RANGE. */
export function isStorableMicros(micros: bigint): boolean {
  return micros >= TIMESTAMP_RANGE.minMicros && micros <= TIMESTAMP_RANGE.maxMicros;
}

/**
 * Microseconds since the epoch from a protobuf Timestamp, rounded up to the next whole microsecond
 * (bounds compare the same either way at Postgres precision); undefined when the result is outside
 * TIMESTAMP_RANGE, so 9999-12-31T23:59:59.9999999Z, which rounds into year 10000, is refused too.
 */
export function microsFromTimestamp(ts: Timestamp): bigint | undefined {
  if (!Number.isInteger(ts.nanos) || ts.nanos < 0 || ts.nanos > 999_999_999 || !/^-?\d{1,12}$/.test(ts.seconds)) return undefined;
  const micros = BigInt(ts.seconds) * 1_000_000n + BigInt(Math.ceil(ts.nanos / 1000));
  return isStorableMicros(micros) ? micros : undefined;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time ("2027-01-31T12:00:00Z", "…+02:00", up to nine fractional digits; the
 * offset is required) as a protobuf Timestamp, exact to the nanosecond; undefined when it is not
 * one. The one parser of the HTTP API's timestamps and the registry CLI's flags. Date.parse alone
 * would take "2027-02-30" and a dozen other shapes, and Date.UTC reads years 0-99 as 1900-1999;
 * here a date must exist as written, and the instant, offset applied and rounded up to the
 * microsecond, must lie in TIMESTAMP_RANGE. A leap second (:60) is refused: a Timestamp cannot hold it.
 */
export function parseRfc3339(text: string): Timestamp | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh = '0', om = '0'] = m;
  const year = Number(y);
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as they are.
  const check = new Date(0);
  check.setUTCFullYear(year, Number(mo) - 1, Number(d));
  check.setUTCHours(Number(h), Number(mi), Number(s), 0);
  // A date that does not round-trip does not exist ("2027-02-30" rolls over into March).
  if (year < 1 || check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return undefined;
  if (check.getUTCHours() !== Number(h) || Number(mi) > 59 || Number(s) > 59) return undefined;
  if (Number(oh) > 23 || Number(om) > 59) return undefined;
  const offset = (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const instant = { seconds: String(Math.floor(check.getTime() / 1000) - offset), nanos: Number(fraction.padEnd(9, '0')) };
  return microsFromTimestamp(instant) === undefined ? undefined : instant;
}
