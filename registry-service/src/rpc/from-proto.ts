import { invalidArgument, microsFromTimestamp, registry, TIMESTAMP_RANGE_TEXT, type Timestamp } from '@dynamic-events/proto';
import type { EventFilterInput } from '../reads/list-filters.js';
import type { ChangeKind } from '../watch/watch.js';

/* Protobuf requests → domain inputs (the counterpart of to-proto.ts). */

function micros(field: string, ts: Timestamp | undefined): bigint | undefined {
  if (ts === undefined) return undefined;
  const us = microsFromTimestamp(ts);
  if (us === undefined) throw invalidArgument(field, 'timestamp', `${field} is not a valid timestamp (${TIMESTAMP_RANGE_TEXT})`);
  return us;
}

export function toEventFilter(filter: registry.EventFilter | undefined): EventFilterInput {
  return {
    deviceName: filter?.deviceName ?? '',
    object: filter?.object ?? '',
    domain: filter?.domain ?? '',
    eventType: filter?.eventType ?? '',
    sinceUs: micros('since', filter?.since),
    untilUs: micros('until', filter?.until),
    tokenId: filter?.tokenId ?? '',
    domainPatterns: filter?.domainPatterns?.values,
    occurredSinceUs: micros('occurred_since', filter?.occurredSince),
    occurredUntilUs: micros('occurred_until', filter?.occurredUntil),
  };
}

/** True when a list is ordered by occurred_at (false: created_at, the default). */
export function isByOccurrence(orderBy: registry.EventOrderBy): boolean {
  if (orderBy === registry.EventOrderBy.EVENT_ORDER_BY_UNSPECIFIED || orderBy === registry.EventOrderBy.EVENT_ORDER_BY_CREATED_AT) return false;
  if (orderBy === registry.EventOrderBy.EVENT_ORDER_BY_OCCURRED_AT) return true;
  throw invalidArgument('order_by', 'enum', 'order_by must be CREATED_AT or OCCURRED_AT');
}

/** True for newest first (the default). */
export function isNewestFirst(order: registry.SortOrder): boolean {
  if (order === registry.SortOrder.SORT_ORDER_UNSPECIFIED || order === registry.SortOrder.SORT_ORDER_NEWEST_FIRST) return true;
  if (order === registry.SortOrder.SORT_ORDER_OLDEST_FIRST) return false;
  throw invalidArgument('order', 'enum', 'order must be NEWEST_FIRST or OLDEST_FIRST');
}

const KINDS = new Map<registry.WatchKind, ChangeKind>([
  [registry.WatchKind.WATCH_KIND_EVENT_CREATED, 'event'],
  [registry.WatchKind.WATCH_KIND_DEVICE_CREATED, 'device'],
  [registry.WatchKind.WATCH_KIND_OBJECT_CREATED, 'object'],
  [registry.WatchKind.WATCH_KIND_EVENT_TYPE_CREATED, 'event_type'],
]);

export const WATCH_KINDS = new Map([...KINDS].map(([wire, kind]) => [kind, wire]));

export function toChangeKinds(kinds: registry.WatchKind[]): ChangeKind[] {
  return kinds.map((wire) => {
    const kind = KINDS.get(wire);
    if (!kind) throw invalidArgument('kinds', 'enum', 'kinds must hold only EVENT_CREATED, DEVICE_CREATED, OBJECT_CREATED or EVENT_TYPE_CREATED');
    return kind;
  });
}
