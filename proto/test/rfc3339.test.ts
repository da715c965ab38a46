import { describe, expect, it } from 'vitest';
import { microsFromTimestamp, parseRfc3339 } from '../src/contract/index.js';

describe('parseRfc3339 (the one parser of the HTTP API and the registry CLI)', () => {
  it('reads the instant exactly, to the nanosecond, whatever the offset', () => {
    expect(parseRfc3339('2026-11-21T08:20:04Z')).toEqual({ seconds: String(Date.UTC(2026, 10, 21, 8, 20, 4) / 1000), nanos: 0 });
    expect(parseRfc3339('2026-11-21t10:20:04.123456789+02:00')).toEqual({ seconds: String(Date.UTC(2026, 10, 21, 8, 20, 4) / 1000), nanos: 123_456_789 });
    expect(parseRfc3339('2026-11-21T07:50:04.5-00:30')).toEqual({ seconds: String(Date.UTC(2026, 10, 21, 8, 20, 4) / 1000), nanos: 500_000_000 });
    expect(parseRfc3339('1969-12-31T23:59:59.25z')).toEqual({ seconds: '-1', nanos: 250_000_000 });
  });

  it('keeps years 0001-0099 as written (Date.UTC would read 1901-1999) and covers Timestamp range', () => {
    const first = parseRfc3339('0001-01-01T00:00:00Z');
    expect(first).toEqual({ seconds: '-62135596800', nanos: 0 });
    expect(microsFromTimestamp(first!)).toBe(-62_135_596_800_000_000n);
    expect(parseRfc3339('0099-06-01T00:00:00Z')!.seconds).toBe(String(new Date('0099-06-01T00:00:00Z').getTime() / 1000));
    const last = parseRfc3339('9999-12-31T23:59:59.999999Z');
    expect(last).toEqual({ seconds: '253402300799', nanos: 999_999_000 });
    expect(microsFromTimestamp(last!)).toBe(253_402_300_799_999_999n);
  });

  it.each([
    ['9999-12-31T23:59:59.9999999Z', 'seven nines: rounds up into year 10000'],
    ['9999-12-31T23:59:59.999999999Z', 'nine nines: rounds up into year 10000'],
    ['9999-12-31T23:59:59.9999991Z', 'a tenth of a microsecond past the last one'],
    ['9999-12-31T23:00:00-01:00', 'year 10000 once the offset applies'],
    ['0001-01-01T00:30:00+01:00', 'year 0 once the offset applies'],
  ])('refuses %j (%s): nothing the database and the API cannot hold', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });

  it('microsFromTimestamp refuses a Timestamp that rounds past the last storable microsecond', () => {
    expect(microsFromTimestamp({ seconds: '253402300799', nanos: 999_999_000 })).toBe(253_402_300_799_999_999n);
    expect(microsFromTimestamp({ seconds: '253402300799', nanos: 999_999_001 })).toBeUndefined();
    expect(microsFromTimestamp({ seconds: '253402300799', nanos: 999_999_999 })).toBeUndefined();
    expect(microsFromTimestamp({ seconds: '-62135596800', nanos: 0 })).toBe(-62_135_596_800_000_000n);
    expect(microsFromTimestamp({ seconds: '-62135596801', nanos: 999_999_999 })).toBe(-62_135_596_800_000_000n);
    expect(microsFromTimestamp({ seconds: '-62135596801', nanos: 999_998_999 })).toBeUndefined();
  });

  it.each([
    ['', 'empty'],
    ['2026-11-21', 'a date alone'],
    ['2026-11-21T08:20:04', 'no offset'],
    ['2026-11-21 08:20:04Z', 'a space for T'],
    ['2027-02-30T00:00:00Z', 'a day that does not exist'],
    ['2028-02-29T00:00:00Z'.replace('2028', '2027'), 'February 29 of a common year'],
    ['2026-13-01T00:00:00Z', 'month 13'],
    ['2026-11-21T24:00:00Z', 'hour 24'],
    ['2026-11-21T08:60:00Z', 'minute 60'],
    ['2016-12-31T23:59:60Z', 'a leap second'],
    ['2026-11-21T08:20:04+24:00', 'offset hour 24'],
    ['2026-11-21T08:20:04+02:60', 'offset minute 60'],
    ['0000-01-01T00:00:00Z', 'year 0'],
    ['2026-11-21T08:20:04.1234567890Z', 'ten fractional digits'],
    ['+2026-11-21T08:20:04Z', 'an expanded year'],
    ['2026-11-21T08:20:04Z\n', 'a trailing newline'],
  ])('refuses %j (%s)', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });

  it('takes February 29 of a leap year', () => {
    expect(parseRfc3339('2028-02-29T00:00:00Z')).toEqual({ seconds: String(Date.UTC(2028, 1, 29) / 1000), nanos: 0 });
  });
});
