/** The buckets of a counts request and the coarsest buckets covering a range (pure functions, with fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketRange, coverOf, WIDTH_US } from '../src/counts/count-range.js';

const MINUTE = WIDTH_US.minute;
const DAY = WIDTH_US.day;

describe('count ranges', () => {
  it('holds since and until in whole UTC buckets; an empty range is its one bucket', () => {
    const since = 1_764_633_600_000_000n + 90_000_000n; // 2025-12-02T00:01:30Z
    expect(bucketRange('minute', since, since + 120_000_000n)).toMatchObject({ fromUs: since - 30_000_000n, toUs: since + 150_000_000n, count: 3 });
    expect(bucketRange('hour', since, since)).toMatchObject({ count: 1 });
    expect(bucketRange('day', since, since + DAY)).toMatchObject({ fromUs: since - 90_000_000n, count: 2 });
  });

  it('refuses more than 1,500 buckets, naming bucket', () => {
    expect(() => bucketRange('minute', 0n, 1501n * MINUTE)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'bucket', rule: 'max-buckets' } }));
    expect(bucketRange('minute', 0n, 1500n * MINUTE).count).toBe(1500);
  });

  it('covers a range exactly, without gaps or overlaps, each piece whole buckets of its width', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 100_000n }), fc.bigInt({ min: 0n, max: 100_000n }), (a, len) => {
        const from = a * MINUTE;
        const to = from + len * MINUTE;
        const cover = coverOf(from, to, 'minute');
        let at = from;
        for (const piece of cover) {
          expect(piece.fromUs).toBe(at);
          expect(piece.fromUs % WIDTH_US[piece.width]).toBe(0n);
          expect(piece.toUs % WIDTH_US[piece.width]).toBe(0n);
          expect(piece.toUs > piece.fromUs).toBe(true);
          at = piece.toUs;
        }
        expect(at).toBe(to);
        // At most the days inside, an hour range on each side, a minute range on each side.
        expect(cover.length).toBeLessThanOrEqual(5);
      }),
    );
  });
});
