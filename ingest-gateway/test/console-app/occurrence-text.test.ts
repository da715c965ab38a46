/** How the console shows when an event happened, and that it arrived late. */
import { describe, expect, it } from 'vitest';
import { occurrenceText } from '../../console/src/format.js';

const event = (occurred_at: string | null, created_at: string) => ({ occurred_at, created_at });

describe('occurrenceText', () => {
  it('says "not sent" without an occurred_at, and the time alone when it arrived within a minute', () => {
    expect(occurrenceText(event(null, '2026-01-01T10:00:00.000000000Z'))).toBe('not sent');
    expect(occurrenceText(event('2026-01-01T09:59:30.000000000Z', '2026-01-01T10:00:00.000000000Z'))).toBe('2026-01-01 09:59:30 UTC');
  });

  it('says how late an event arrived when it was recorded more than a minute after it happened', () => {
    expect(occurrenceText(event('2026-01-01T09:58:00.000000000Z', '2026-01-01T10:00:00.000000000Z'))).toBe('2026-01-01 09:58:00 UTC (arrived 2 min late)');
    expect(occurrenceText(event('2026-01-01T07:00:00.000000000Z', '2026-01-01T10:00:00.000000000Z'))).toBe('2026-01-01 07:00:00 UTC (arrived 3 h late)');
    expect(occurrenceText(event('2025-12-29T10:00:00.000000000Z', '2026-01-01T10:00:00.000000000Z'))).toBe('2025-12-29 10:00:00 UTC (arrived 3 d late)');
  });
});
