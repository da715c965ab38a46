import { invalidArgument, registry, timestampFromMicros } from '@dynamic-events/proto';
import type { CountAnswer, CountRequest } from '../counts/counts.js';
import type { CountKey, CountWidth } from '../db/queries/event-counts.js';
import { toEventFilter } from './from-proto.js';

/* CountEvents: protobuf ↔ the counter's request and answer. */

const WIDTHS: ReadonlyMap<registry.CountBucketWidth, CountWidth> = new Map([
  [registry.CountBucketWidth.COUNT_BUCKET_WIDTH_UNSPECIFIED, 'hour'],
  [registry.CountBucketWidth.COUNT_BUCKET_WIDTH_MINUTE, 'minute'],
  [registry.CountBucketWidth.COUNT_BUCKET_WIDTH_HOUR, 'hour'],
  [registry.CountBucketWidth.COUNT_BUCKET_WIDTH_DAY, 'day'],
]);

const KEYS: ReadonlyMap<registry.CountGroupBy, CountKey | undefined> = new Map([
  [registry.CountGroupBy.COUNT_GROUP_BY_UNSPECIFIED, undefined],
  [registry.CountGroupBy.COUNT_GROUP_BY_EVENT_TYPE, 'event_type'],
  [registry.CountGroupBy.COUNT_GROUP_BY_DOMAIN, 'domain'],
  [registry.CountGroupBy.COUNT_GROUP_BY_DEVICE_NAME, 'device_name'],
]);

export function toCountRequest(request: registry.CountEventsRequest, nowUs: bigint): CountRequest {
  const width = WIDTHS.get(request.bucket);
  if (width === undefined) throw invalidArgument('bucket', 'enum', 'bucket must be MINUTE, HOUR or DAY');
  if (!KEYS.has(request.groupBy)) throw invalidArgument('group_by', 'enum', 'group_by must be EVENT_TYPE, DOMAIN or DEVICE_NAME');
  return { filter: toEventFilter(request.filter), width, groupBy: KEYS.get(request.groupBy), nowUs };
}

export function toCountResponse(answer: CountAnswer): registry.CountEventsResponse {
  return {
    buckets: answer.buckets.map((b) => ({
      start: timestampFromMicros(b.startUs),
      total: b.total.toString(),
      groups: [...b.groups].map(([name, n]) => ({ name, count: n.toString() })),
      other: b.other.toString(),
    })),
    other: answer.other.toString(),
    groups: answer.groups,
  };
}
