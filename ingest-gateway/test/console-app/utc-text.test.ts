/** Times typed in UTC on the Events screen: "2026-12-02 10:05" read as UTC, an instant shown back the same way. */
import { describe, expect, it } from 'vitest';
import { utcText, utcTyped } from '../../console/src/format.js';

describe('UTC times as typed', () => {
  it('reads "YYYY-MM-DD HH:MM[:SS]" (or with a T) as UTC', () => {
    expect(utcTyped('2026-12-02 10:05')).toBe('2026-12-02T10:05:00Z');
    expect(utcTyped(' 2026-12-02T10:05:30 ')).toBe('2026-12-02T10:05:30Z');
    expect(utcTyped('2026-12-02')).toBe('2026-12-02T00:00:00Z');
  });

  it('refuses what is not such a time, whatever the browser\'s locale would make of it', () => {
    for (const text of ['12/02/2026 10:05', '2026-13-02 10:05', '2026-12-02 25:00', '2026-12-02 10:05 PM', 'yesterday']) expect(utcTyped(text), text).toBeUndefined();
  });

  it('shows an instant as it is typed, seconds only when not zero', () => {
    expect(utcText('2026-12-02T10:05:00.000Z')).toBe('2026-12-02 10:05');
    expect(utcText('2026-12-02T10:05:30Z')).toBe('2026-12-02 10:05:30');
    expect(utcText('not a time')).toBe('not a time');
  });
});
