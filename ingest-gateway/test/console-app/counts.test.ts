/** The Overview's counts: quick ranges as windows of whole buckets, and the API's answer as stacked bars and totals. */
import { describe, expect, it } from 'vitest';
import { barsOf, OTHER, RANGES, seriesOf, totalsOf, windowOf, type CountsJson } from '../../console/src/counts.js';

const range = (id: string) => RANGES.find((r) => r.id === id)!;
const NOW = Date.parse('2026-12-02T10:17:42.123Z');

describe('overview windows', () => {
  it('offers 15 min, 1 h, 24 h, 7 d and 30 d', () => {
    expect(RANGES.map((r) => r.label)).toEqual(['15 min', '1 h', '24 h', '7 d', '30 d']);
  });

  it('ends a window after the bucket holding now and spans the range in whole buckets', () => {
    expect(windowOf(range('15m'), NOW)).toEqual({ since: '2026-12-02T10:03:00.000Z', until: '2026-12-02T10:18:00.000Z', bucket: 'minute' });
    expect(windowOf(range('24h'), NOW)).toEqual({ since: '2026-12-01T11:00:00.000Z', until: '2026-12-02T11:00:00.000Z', bucket: 'hour' });
    expect(windowOf(range('30d'), NOW)).toEqual({ since: '2026-11-03T00:00:00.000Z', until: '2026-12-03T00:00:00.000Z', bucket: 'day' });
  });
});

describe('overview bars', () => {
  const window = windowOf(range('15m'), NOW);
  const counts: CountsJson = {
    buckets: [
      { start: '2026-12-02T10:05:00Z', total: 7, groups: { motion: 4, door: 1 } },
      { start: '2026-12-02T10:17:00Z', total: 3, groups: { door: 3 } },
    ],
  };

  it('has one bar per bucket of the window, empty buckets as zero', () => {
    const bars = barsOf(counts, window);
    expect(bars).toHaveLength(15);
    expect(bars[0]).toEqual({ start: '2026-12-02T10:03:00.000Z', end: '2026-12-02T10:04:00.000Z', total: 0, parts: new Map() });
    expect(bars[2]).toEqual({ start: '2026-12-02T10:05:00.000Z', end: '2026-12-02T10:06:00.000Z', total: 7, parts: new Map([['motion', 4], ['door', 1], [OTHER, 2]]) });
    expect(bars[14]?.parts).toEqual(new Map([['door', 3]]));
  });

  it('orders the series by count, the rest (beyond the API\'s 20 groups) last', () => {
    expect(seriesOf(counts)).toEqual(['door', 'motion', OTHER]);
    expect(totalsOf(counts)).toEqual([
      ['door', 4],
      ['motion', 4],
      [OTHER, 2],
    ]);
  });

  it('takes a group named like an object property as data', () => {
    const hostile: CountsJson = { buckets: [{ start: '2026-12-02T10:05:00Z', total: 2, groups: JSON.parse('{"__proto__": 1, "constructor": 1}') }] };
    expect(totalsOf(hostile)).toEqual([
      ['__proto__', 1],
      ['constructor', 1],
    ]);
  });
});
