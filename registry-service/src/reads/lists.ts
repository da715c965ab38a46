import { invalidArgument, isStorableMicros, LIST_PAGE_MAX_BYTES } from '@dynamic-events/proto';
import type pg from 'pg';
import { domainScopeOf } from '../db/queries/domain-scope.js';
import { listDevices, listEventTypes, listObjects } from '../db/queries/list-entities.js';
import { listEvents } from '../db/queries/list-events.js';
import { toEventRecord } from './reads.js';
import { checkEventFilter, domainPatternsFilter, nameFilter, pageSizeOf, searchFilter, tokenIdFilter, type EventFilterInput } from './list-filters.js';
import { createTokenCodec, scopeOf } from './page-token.js';
import type { DeviceRecord, EventRecord, EventTypeRecord, ObjectRecord } from '../model.js';
import { isUuid } from '../uuid-v7.js';

/** A page of a list and the token of the next one (undefined on the last page). */
interface Page<T> {
  items: T[];
  nextPageToken: string | undefined;
}

/** Paging input shared by every list. */
interface PageRequest {
  pageSize: number;
  pageToken: string;
}

export interface Lister {
  /** `byOccurrence`: ordered by occurred_at (only events that carry one), else by created_at. */
  listEvents(request: PageRequest & { filter: EventFilterInput; newestFirst: boolean; byOccurrence: boolean }): Promise<Page<EventRecord>>;
  /** `q` (empty: none): a case-insensitive substring of the name or id (searchFilter). */
  listDevices(request: PageRequest & { createdByTokenId: string; q: string }): Promise<Page<DeviceRecord>>;
  listObjects(request: PageRequest & { deviceName: string; domain: string; domainPatterns?: readonly string[]; q: string }): Promise<Page<ObjectRecord>>;
  listEventTypes(request: PageRequest & { domain: string; domainPatterns?: readonly string[]; q: string }): Promise<Page<EventTypeRecord>>;
}

/**
 * What a page token of a list is bound to besides its base filter: optional filters join only when
 * set, so tokens of lists without them stay valid; a value of its own shape (an object) cannot be
 * taken for another field's string.
 */
const optionalScope = (tokenId: string | undefined, patterns: readonly string[] | undefined, q?: string): unknown[] => [
  ...(tokenId ? [tokenId] : []),
  ...(patterns ? [{ domainPatterns: patterns }] : []),
  ...(q !== undefined ? [{ q }] : []),
];

const MICROS = /^-?\d{1,19}$/;

/**
 * Reads one more row than asked: its presence says a next page exists, and the token points after
 * the last row returned (keyset), so rows inserted meanwhile never shift what the next page holds.
 */
async function paged<T>(size: number, read: (limit: number) => Promise<T[]>, positionOf: (last: T) => string[], encode: (p: string[]) => string): Promise<Page<T>> {
  const rows = await read(size + 1);
  const items = rows.slice(0, size);
  const last = items[items.length - 1];
  return { items, nextPageToken: rows.length > size && last !== undefined ? encode(positionOf(last)) : undefined };
}

/** Settings of the lists. */
interface ListerOptions {
  /** Estimated bytes a page of events holds at most (default LIST_PAGE_MAX_BYTES). */
  pageMaxBytes?: number;
}

/** The list RPCs: checks paging and filters (INVALID_ARGUMENT naming the field), then reads a page. */
export function createLister(pool: pg.Pool, options: ListerOptions = {}): Lister {
  const pageMaxBytes = options.pageMaxBytes ?? LIST_PAGE_MAX_BYTES;
  return {
    async listEvents(request) {
      const size = pageSizeOf(request.pageSize);
      const filter = checkEventFilter(request.filter);
      const { deviceName, object, domain, eventType, sinceUs, untilUs, tokenId, domainPatterns, occurredSinceUs, occurredUntilUs } = filter;
      const scope = scopeOf([
        deviceName, object, domain, eventType, sinceUs?.toString(), untilUs?.toString(), request.newestFirst, ...optionalScope(tokenId, domainPatterns),
        // Joined only when used, so page tokens of lists without them stay valid.
        ...(request.byOccurrence || occurredSinceUs !== undefined || occurredUntilUs !== undefined
          ? [{ occurred: [request.byOccurrence, occurredSinceUs?.toString(), occurredUntilUs?.toString()] }]
          : []),
      ]);
      const codec = createTokenCodec('events', scope, 2);
      let after: { us: bigint; id: string } | undefined;
      if (request.pageToken !== '') {
        const [us = '', id = ''] = codec.decode(request.pageToken, 'page_token');
        // A position no stored event can have (outside years 0001-9999) is an edited token.
        if (!MICROS.test(us) || !isStorableMicros(BigInt(us)) || !isUuid(id)) throw invalidArgument('page_token', 'token', 'page_token is malformed');
        after = { us: BigInt(us), id };
      }
      // Cut by count and by bytes (a shorter page when its events are large): never above what may be sent.
      const domainScope = domainPatterns && domainScopeOf(domainPatterns);
      const byOccurrence = request.byOccurrence;
      const page = await listEvents(pool, { ...filter, objectRef: filter.object, scope: domainScope, after, byOccurrence, newestFirst: request.newestFirst, limit: size, maxBytes: pageMaxBytes });
      const last = page.events[page.events.length - 1];
      const position = last && (byOccurrence ? last.occurredUs : last.createdUs);
      const nextPageToken = page.more && last !== undefined && position !== undefined ? codec.encode([position.toString(), last.id]) : undefined;
      return { items: page.events.map(toEventRecord), nextPageToken };
    },
    async listDevices(request) {
      const size = pageSizeOf(request.pageSize);
      const createdByTokenId = tokenIdFilter(request.createdByTokenId, 'created_by_token_id');
      const q = searchFilter(request.q);
      const codec = createTokenCodec('devices', scopeOf(optionalScope(createdByTokenId, undefined, q)), 1);
      const afterName = request.pageToken === '' ? undefined : codec.decode(request.pageToken, 'page_token')[0];
      return paged(size, (limit) => listDevices(pool, { afterName, createdByTokenId, q, limit }), (last) => [last.deviceName], codec.encode);
    },
    async listObjects(request) {
      const size = pageSizeOf(request.pageSize);
      const deviceName = nameFilter('device_name', request.deviceName);
      const domain = nameFilter('domain', request.domain);
      const patterns = domainPatternsFilter(request.domainPatterns);
      const q = searchFilter(request.q);
      const codec = createTokenCodec('objects', scopeOf([deviceName, domain, ...optionalScope(undefined, patterns, q)]), 1);
      const afterId = request.pageToken === '' ? undefined : codec.decode(request.pageToken, 'page_token')[0];
      const scope = patterns && domainScopeOf(patterns);
      return paged(size, (limit) => listObjects(pool, { deviceName, domain, scope, afterId, q, limit }), (last) => [last.id], codec.encode);
    },
    async listEventTypes(request) {
      const size = pageSizeOf(request.pageSize);
      const domain = nameFilter('domain', request.domain);
      const patterns = domainPatternsFilter(request.domainPatterns);
      const q = searchFilter(request.q);
      const codec = createTokenCodec('event-types', scopeOf([domain, ...optionalScope(undefined, patterns, q)]), 2);
      const position = request.pageToken === '' ? undefined : codec.decode(request.pageToken, 'page_token');
      const after = position && { domain: position[0] ?? '', eventType: position[1] ?? '' };
      const scope = patterns && domainScopeOf(patterns);
      return paged(size, (limit) => listEventTypes(pool, { domain, scope, after, q, limit }), (last) => [last.domain, last.eventType], codec.encode);
    },
  };
}
