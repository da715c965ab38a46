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
  // string per value were the gateway's largest cost per listed event.
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
 * Microseconds since the epoch from a protobuf Timestamp, rounded up to the next whole microsecond
 * (bounds compare the same either way at Postgres precision); undefined when out of range (years 0001-9999).
 */
export function microsFromTimestamp(ts: Timestamp): bigint | undefined {
  if (!Number.isInteger(ts.nanos) || ts.nanos < 0 || ts.nanos > 999_999_999 || !/^-?\d{1,12}$/.test(ts.seconds)) return undefined;
  const seconds = BigInt(ts.seconds);
  // RFC 3339 years 0001-9999, as protobuf's Timestamp defines its range.
  if (seconds < -62_135_596_800n || seconds > 253_402_300_799n) return undefined;
  return seconds * 1_000_000n + BigInt(Math.ceil(ts.nanos / 1000));
}
