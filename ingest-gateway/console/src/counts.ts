/**
 * The Overview's counts: a quick range as a window of whole buckets ending after the bucket that
 * holds now, and the answer of GET …/dynamic-events/counts as one stacked bar per bucket and as
 * totals per group. The API names at most 20 groups per bucket; the rest of a bucket's total is
 * shown as OTHER.
 */

export type Bucket = 'minute' | 'hour' | 'day';

/** GET …/dynamic-events/counts: per bucket, the total and the counts of its largest groups. */
export interface CountsJson {
  buckets: Array<{ start: string; total: number; groups: Record<string, number> }>;
}

/** The series of a bucket's events that no named group holds (never a name: names are not empty). */
export const OTHER = '';

const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const MINUTE = 60_000;
const DAY = 86_400_000;

/** The quick ranges, each with the bucket that gives it between 15 and 168 bars. */
export const RANGES = [
  { id: '15m', label: '15 min', ms: 15 * MINUTE, bucket: 'minute' },
  { id: '1h', label: '1 h', ms: 60 * MINUTE, bucket: 'minute' },
  { id: '24h', label: '24 h', ms: DAY, bucket: 'hour' },
  { id: '7d', label: '7 d', ms: 7 * DAY, bucket: 'hour' },
  { id: '30d', label: '30 d', ms: 30 * DAY, bucket: 'day' },
] as const satisfies ReadonlyArray<{ id: string; label: string; ms: number; bucket: Bucket }>;

export type Range = (typeof RANGES)[number];

export interface CountWindow {
  since: string;
  until: string;
  bucket: Bucket;
}

/** The window of `range` at `now`: whole buckets (UTC), the last one holding now. */
export function windowOf(range: Range, now: number): CountWindow {
  const step = BUCKET_MS[range.bucket];
  const until = Math.floor(now / step) * step + step;
  return { since: new Date(until - range.ms).toISOString(), until: new Date(until).toISOString(), bucket: range.bucket };
}

/** One bucket's bar: its instants (until exclusive), total, and count per series. */
export interface Bar {
  start: string;
  end: string;
  total: number;
  parts: Map<string, number>;
}

/** A bucket's groups and the rest of its total, in the API's order. */
function partsOf(bucket: CountsJson['buckets'][number]): Map<string, number> {
  const parts = new Map<string, number>();
  let named = 0;
  for (const [group, count] of Object.entries(bucket.groups)) {
    parts.set(group, count);
    named += count;
  }
  if (bucket.total > named) parts.set(OTHER, bucket.total - named);
  return parts;
}

/** One bar per bucket of the window, a bucket the answer leaves out as an empty bar. */
export function barsOf(counts: CountsJson, window: CountWindow): Bar[] {
  const step = BUCKET_MS[window.bucket];
  const byStart = new Map(counts.buckets.map((bucket) => [Date.parse(bucket.start), bucket]));
  const bars: Bar[] = [];
  for (let at = Date.parse(window.since); at < Date.parse(window.until); at += step) {
    const bucket = byStart.get(at);
    const start = new Date(at).toISOString();
    const end = new Date(at + step).toISOString();
    bars.push(bucket ? { start, end, total: bucket.total, parts: partsOf(bucket) } : { start, end, total: 0, parts: new Map() });
  }
  return bars;
}

/** Each series with its count over all buckets, largest first (ties by name), OTHER last. */
export function totalsOf(counts: CountsJson): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const bucket of counts.buckets) for (const [group, count] of partsOf(bucket)) totals.set(group, (totals.get(group) ?? 0) + count);
  return [...totals].sort(([a, m], [b, n]) => (a === OTHER ? 1 : b === OTHER ? -1 : n - m || (a < b ? -1 : 1)));
}

/** The series in stacking order: the largest at the bottom, OTHER on top. */
export function seriesOf(counts: CountsJson): string[] {
  return totalsOf(counts).map(([group]) => group);
}

/** A bucket's start as the operator reads it: "2026-12-02 10:05 UTC", "2026-12-02 10:00 UTC", "2026-12-02 UTC". */
export function bucketText(start: string, bucket: Bucket): string {
  const day = start.slice(0, 10);
  if (bucket === 'day') return `${day} UTC`;
  return `${day} ${bucket === 'hour' ? `${start.slice(11, 13)}:00` : start.slice(11, 16)} UTC`;
}
