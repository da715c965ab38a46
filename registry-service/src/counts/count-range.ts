import { invalidArgument } from '@dynamic-events/proto';
import type { CountWidth, WidthRange } from '../db/queries/event-counts.js';

/** Microseconds of each bucket width; buckets start on UTC boundaries (the epoch is one). */
export const WIDTH_US: Readonly<Record<CountWidth, bigint>> = Object.freeze({ minute: 60_000_000n, hour: 3_600_000_000n, day: 86_400_000_000n });

/** Buckets one answer holds at most: 24 h by minute (1,440) and 31 days by hour (744) fit. */
export const MAX_BUCKETS = 1500;

/** Groups an answer lists at most; the rest are `other`. */
export const MAX_GROUPS = 20;

/** Coarsest first: the widths a range is covered with, down to the asked one. */
const COARSE_TO_FINE: readonly CountWidth[] = ['day', 'hour', 'minute'];

const floorTo = (us: bigint, width: bigint): bigint => {
  const r = us % width;
  return r < 0n ? us - r - width : us - r;
};
const ceilTo = (us: bigint, width: bigint): bigint => {
  const f = floorTo(us, width);
  return f === us ? us : f + width;
};

/** The buckets of a request: from since rounded down to until rounded up, of `width`. */
export interface BucketRange extends WidthRange {
  count: number;
}

/**
 * The whole buckets holding [sinceUs, untilUs): the first starts at or before since, the last ends
 * at or after until (an empty range is its one bucket). More than MAX_BUCKETS is INVALID_ARGUMENT
 * naming `bucket` (a wider bucket, or a shorter range).
 */
export function bucketRange(width: CountWidth, sinceUs: bigint, untilUs: bigint): BucketRange {
  const w = WIDTH_US[width];
  const fromUs = floorTo(sinceUs, w);
  const end = ceilTo(untilUs, w);
  const toUs = end > fromUs ? end : fromUs + w;
  const count = Number((toUs - fromUs) / w);
  if (count > MAX_BUCKETS) {
    throw invalidArgument('bucket', 'max-buckets', `the range holds ${count} buckets of a ${width}; at most ${MAX_BUCKETS} (choose a wider bucket or a shorter range)`);
  }
  return { width, fromUs, toUs, count };
}

/**
 * [fromUs, toUs) (aligned to `finest`) as the fewest ranges of whole buckets, coarsest first in the
 * middle: the days inside, the hours beside them, the minutes at the edges.
 */
export function coverOf(fromUs: bigint, toUs: bigint, finest: CountWidth): WidthRange[] {
  const widths = COARSE_TO_FINE.slice(0, COARSE_TO_FINE.indexOf(finest) + 1);
  const cover = (a: bigint, b: bigint, [width, ...finer]: readonly CountWidth[]): WidthRange[] => {
    if (a >= b || width === undefined) return [];
    if (finer.length === 0) return [{ width, fromUs: a, toUs: b }];
    const lo = ceilTo(a, WIDTH_US[width]);
    const hi = floorTo(b, WIDTH_US[width]);
    if (lo >= hi) return cover(a, b, finer);
    return [...cover(a, lo, finer), { width, fromUs: lo, toUs: hi }, ...cover(hi, b, finer)];
  };
  return cover(fromUs, toUs, widths);
}
