import { describe, expect, it } from 'vitest';
import { createOccurredAtRule } from '../src/contract/index.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const rule = createOccurredAtRule(300, () => NOW);
const field = 'events[2].event.occurred_at';

describe('occurred_at (the rule the gateway and the registry share)', () => {
  it('takes RFC 3339 with any zone, to the nanosecond, and stores microseconds rounded up', () => {
    expect(rule.parse(field, '2026-12-01T13:59:59.123456789+02:00')).toEqual({
      timestamp: { seconds: String(NOW / 1000 - 1), nanos: 123_456_789 },
      micros: BigInt(NOW - 1000) * 1000n + 123_457n,
    });
    expect(rule.parse(field, '1970-01-01T00:00:00Z').micros).toBe(0n);
  });

  it('takes up to OCCURRED_AT_MAX_SKEW ahead of the clock and refuses beyond, naming the field', () => {
    expect(rule.parse(field, '2026-12-01T12:05:00Z').micros).toBe(BigInt(NOW + 300_000) * 1000n);
    expect(() => rule.parse(field, '2026-12-01T12:05:00.000001Z')).toThrow(
      expect.objectContaining({ message: `${field} must not be more than 300 s in the future (OCCURRED_AT_MAX_SKEW)`, details: { field, rule: 'max-skew' } }),
    );
  });

  it('refuses a time before 1970', () => {
    expect(() => rule.parse(field, '1969-12-31T23:59:59.999999Z')).toThrow(expect.objectContaining({ details: { field, rule: 'min' } }));
    expect(() => rule.check(field, { seconds: '-1', nanos: 0 })).toThrow(`${field} must not be before 1970-01-01T00:00:00Z`);
  });

  it.each(['', '2026-13-01T00:00:00Z', '10000-01-01T00:00:00Z', '2016-12-31T23:59:60Z', '2026-12-01T12:00:00', '2026-12-01', 'yesterday'])(
    'refuses %j as not RFC 3339 with a zone',
    (text) => {
      expect(() => rule.parse(field, text)).toThrow(
        expect.objectContaining({ message: `${field} must be an RFC 3339 date-time with a time zone, such as 2026-11-21T08:20:04.123Z`, details: { field, rule: 'format' } }),
      );
    },
  );

  it('refuses a protobuf Timestamp out of range', () => {
    expect(() => rule.check(field, { seconds: '1', nanos: 1_000_000_000 })).toThrow(expect.objectContaining({ details: { field, rule: 'timestamp' } }));
  });
});
