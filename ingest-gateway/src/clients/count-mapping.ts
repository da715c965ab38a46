import { formatTimestamp, registry } from '@dynamic-events/proto';
import type { CountQuery, EventCounts } from '../model.js';

/* CountEvents in gateway terms: the HTTP parameters' names ↔ the registry's enums. */

const BUCKETS: Record<CountQuery['bucket'], registry.CountBucketWidth> = {
  minute: registry.CountBucketWidth.COUNT_BUCKET_WIDTH_MINUTE,
  hour: registry.CountBucketWidth.COUNT_BUCKET_WIDTH_HOUR,
  day: registry.CountBucketWidth.COUNT_BUCKET_WIDTH_DAY,
};

const GROUPS: Record<NonNullable<CountQuery['groupBy']>, registry.CountGroupBy> = {
  event_type: registry.CountGroupBy.COUNT_GROUP_BY_EVENT_TYPE,
  domain: registry.CountGroupBy.COUNT_GROUP_BY_DOMAIN,
  device_name: registry.CountGroupBy.COUNT_GROUP_BY_DEVICE_NAME,
};

export function toCountRequest(filter: registry.EventFilter, query: CountQuery): registry.CountEventsRequest {
  return { filter, bucket: BUCKETS[query.bucket], groupBy: query.groupBy === undefined ? registry.CountGroupBy.COUNT_GROUP_BY_UNSPECIFIED : GROUPS[query.groupBy] };
}

/** Counts stay far below 2^53 (a bucket would need 9 × 10^15 events): JSON numbers. */
export function toEventCounts(response: registry.CountEventsResponse): EventCounts {
  return {
    buckets: response.buckets.map((b) => ({
      start: formatTimestamp(b.start),
      total: Number(b.total),
      // Object.fromEntries defines own data properties: a group named "__proto__" stays a group.
      groups: Object.fromEntries(b.groups.map((g) => [g.name, Number(g.count)])),
      other: Number(b.other),
    })),
    other: Number(response.other),
    groups: response.groups,
  };
}
