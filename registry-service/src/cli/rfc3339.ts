import type { Timestamp } from '@dynamic-events/proto';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * An RFC 3339 date-time ("2027-01-31T12:00:00Z", "…+02:00", up to nine fractional digits) as a
 * protobuf Timestamp, exact to the nanosecond; undefined when it is not one (Date.parse alone
 * would take "2027-02-30" and a dozen other shapes).
 */
export function parseRfc3339(text: string): Timestamp | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', offset = 'Z'] = match;
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCDate() !== Number(day) || calendar.getUTCMonth() !== Number(month) - 1) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const ms = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: String(ms / 1000), nanos: Number(fraction.padEnd(9, '0')) };
}
