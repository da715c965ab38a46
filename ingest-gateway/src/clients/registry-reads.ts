import { AppError, INTERNAL_MESSAGE, registry } from '@dynamic-events/proto';
import { callStream, callUnary } from '@dynamic-events/proto/runtime';
import { toCountRequest, toEventCounts } from './count-mapping.js';
import type { CountQuery, EventCounts } from '../model.js';
import type { CallOptions, ChangeKind, DeviceRecord, EventQuery, EventTypeRecord, ObjectRecord, Page, PageQuery, RecordedEvent, WatchChange, WatchMessage } from '../model.js';
import { toDeviceRecord, toEventTypeRecord, toObjectRecord, toRecordedEvent } from './registry-mapping.js';

/** The registry's lists and its watch, in gateway terms (part of the gateway's `RegistryClient`). */
export interface RegistryReads {
  /** `byOccurrence`: ordered by occurred_at (only events that carry one), else by created_at. */
  listEvents(query: EventQuery & PageQuery & { oldestFirst: boolean; byOccurrence?: boolean }, options: CallOptions): Promise<Page<RecordedEvent>>;
  /** `q`: a case-insensitive substring of the name (or id) of what is listed. */
  listDevices(query: PageQuery & { createdByTokenId?: string; q?: string }, options: CallOptions): Promise<Page<DeviceRecord>>;
  listObjects(query: PageQuery & DomainFilter & { deviceName?: string; q?: string }, options: CallOptions): Promise<Page<ObjectRecord>>;
  listEventTypes(query: PageQuery & DomainFilter & { q?: string }, options: CallOptions): Promise<Page<EventTypeRecord>>;
  /** Events per bucket (and per group) from the registry's counts. */
  countEvents(query: EventQuery & CountQuery, options: CallOptions): Promise<EventCounts>;
  /** Follows commits after `afterCursor` (or from now) until `options.signal` aborts; no deadline. */
  watch(query: EventQuery & { kinds: ChangeKind[]; afterCursor: string }, options: CallOptions & { signal: AbortSignal }): AsyncGenerator<WatchMessage>;
}

/** A list's domain filters: one domain, and/or domain patterns (absent: no filter; empty: nothing matches). */
type DomainFilter = Pick<EventQuery, 'domain' | 'domainPatterns'>;

/** Patterns as the registry takes them: a StringList, so an empty list stays a filter that matches nothing. */
const patternsOf = (patterns: readonly string[] | undefined): registry.StringList | undefined => (patterns === undefined ? undefined : { values: [...patterns] });

const KINDS: Record<ChangeKind, registry.WatchKind> = {
  'event.created': registry.WatchKind.WATCH_KIND_EVENT_CREATED,
  'device.created': registry.WatchKind.WATCH_KIND_DEVICE_CREATED,
  'object.created': registry.WatchKind.WATCH_KIND_OBJECT_CREATED,
  'event_type.created': registry.WatchKind.WATCH_KIND_EVENT_TYPE_CREATED,
};

export function toFilter(query: EventQuery): registry.EventFilter {
  return {
    deviceName: query.deviceName ?? '',
    object: query.object ?? '',
    domain: query.domain ?? '',
    eventType: query.eventType ?? '',
    since: query.since,
    until: query.until,
    tokenId: query.tokenId ?? '',
    domainPatterns: patternsOf(query.domainPatterns),
    occurredSince: query.occurredSince,
    occurredUntil: query.occurredUntil,
  };
}

const nextToken = (token: string): string | null => (token === '' ? null : token);

function toWatchChange(c: registry.WatchChange): WatchChange {
  const { cursor } = c;
  if (!cursor) throw new AppError('INTERNAL', INTERNAL_MESSAGE, {}, new Error('registry Watch change without cursor'));
  if (c.event) return { cursor, kind: 'event.created', event: toRecordedEvent(c.event) };
  if (c.device) return { cursor, kind: 'device.created', device: toDeviceRecord(c.device) };
  if (c.object) return { cursor, kind: 'object.created', object: toObjectRecord(c.object) };
  if (c.eventType) return { cursor, kind: 'event_type.created', eventType: toEventTypeRecord(c.eventType) };
  throw new AppError('INTERNAL', INTERNAL_MESSAGE, {}, new Error('registry Watch change without a record'));
}

/** The registry's list and watch RPCs in gateway terms; failures reject (or throw) with an AppError. */
export function createRegistryReads(client: registry.RegistryServiceClient, deadlineMs: number, watchClient = client): RegistryReads {
  const settings = (requestId: string) => ({ deadlineMs, requestId });
  return {
    async listEvents(query, call) {
      const order = query.oldestFirst ? registry.SortOrder.SORT_ORDER_OLDEST_FIRST : registry.SortOrder.SORT_ORDER_NEWEST_FIRST;
      const orderBy = query.byOccurrence ? registry.EventOrderBy.EVENT_ORDER_BY_OCCURRED_AT : registry.EventOrderBy.EVENT_ORDER_BY_CREATED_AT;
      const request = { filter: toFilter(query), pageSize: query.limit, pageToken: query.pageToken, order, orderBy };
      const response = await callUnary(client.listEvents.bind(client), request, settings(call.requestId));
      return { items: response.events.map(toRecordedEvent), nextPageToken: nextToken(response.nextPageToken) };
    },
    async listDevices(query, call) {
      const request = { pageSize: query.limit, pageToken: query.pageToken, createdByTokenId: query.createdByTokenId ?? '', q: query.q ?? '' };
      const response = await callUnary(client.listDevices.bind(client), request, settings(call.requestId));
      return { items: response.devices.map(toDeviceRecord), nextPageToken: nextToken(response.nextPageToken) };
    },
    async listObjects(query, call) {
      const request = { deviceName: query.deviceName ?? '', domain: query.domain ?? '', domainPatterns: patternsOf(query.domainPatterns), pageSize: query.limit, pageToken: query.pageToken, q: query.q ?? '' };
      const response = await callUnary(client.listObjects.bind(client), request, settings(call.requestId));
      return { items: response.objects.map(toObjectRecord), nextPageToken: nextToken(response.nextPageToken) };
    },
    async listEventTypes(query, call) {
      const request = { domain: query.domain ?? '', domainPatterns: patternsOf(query.domainPatterns), pageSize: query.limit, pageToken: query.pageToken, q: query.q ?? '' };
      const response = await callUnary(client.listEventTypes.bind(client), request, settings(call.requestId));
      return { items: response.eventTypes.map(toEventTypeRecord), nextPageToken: nextToken(response.nextPageToken) };
    },
    async countEvents(query, call) {
      const response = await callUnary(client.countEvents.bind(client), toCountRequest(toFilter(query), query), settings(call.requestId));
      return toEventCounts(response);
    },
    async *watch(query, call) {
      const request = { filter: toFilter(query), kinds: query.kinds.map((k) => KINDS[k]), afterCursor: query.afterCursor };
      // A watch lasts as long as its HTTP client: no deadline, the signal ends it.
      const stream = callStream(watchClient.watch.bind(watchClient), request, { deadlineMs: Infinity, requestId: call.requestId, signal: call.signal });
      for await (const message of stream) {
        if (!message.cursor) throw new AppError('INTERNAL', INTERNAL_MESSAGE, {}, new Error('registry Watch message without cursor'));
        yield { cursor: message.cursor, changes: message.changes.map(toWatchChange) };
      }
    },
  };
}
