/**
 * Test support: an in-memory registry that records every call (a plain object implementing
 * RegistryClient), and the read handlers of fake gRPC registries that serve writes only.
 */
import { randomUUID } from 'node:crypto';
import { AppError, domainAllowed, formatTimestamp, microsFromTimestamp, timestampFromMicros, type registry } from '@dynamic-events/proto';
import { type AsyncServiceImpl } from '@dynamic-events/proto/runtime';
import type { RegistryClient } from '../src/clients/registry.js';
import type { DeviceRecord, EventInput, EventTypeRecord, ObjectRecord, RecordedEvent, WatchMessage } from '../src/model.js';

export const CREATED_AT = '2026-11-21T08:20:04.123456000Z';

export interface FakeRegistry extends RegistryClient {
  recorded: EventInput[];
  calls: string[];
  /** The request id each call carried, in call order. */
  requestIds: string[];
  serving: boolean;
  /** When set, every call rejects with it. */
  failWith: unknown;
  /** When set, checkEvent rejects with it (a token's policy refusing the event). */
  checkFailsWith: unknown;
  /** The last list or watch query received. */
  lastQuery: unknown;
  /** What watch() yields before it waits for its signal. */
  watchMessages: WatchMessage[];
}

/** What the fake remembers and what tests set; the RPC methods are added to this same object. */
type FakeState = Omit<FakeRegistry, keyof RegistryClient>;

interface Store {
  events: Map<string, RecordedEvent>;
  /** Idempotency-Keys by scope and key: the request hash and the event, as the registry keeps them. */
  keys: Map<string, { requestHash: string; event: RecordedEvent }>;
  devices: Map<string, DeviceRecord>;
  objects: Map<string, ObjectRecord>;
  types: Map<string, EventTypeRecord>;
}

type ReadRpcs = 'listEvents' | 'listDevices' | 'listObjects' | 'listEventTypes' | 'countEvents' | 'watch';

/** An in-memory registry: records events, reports NOT_FOUND like the real one. */
export function fakeRegistry(): FakeRegistry {
  const store: Store = { events: new Map(), keys: new Map(), devices: new Map(), objects: new Map(), types: new Map() };
  const fake: FakeState = {
    recorded: [],
    calls: [],
    requestIds: [],
    serving: true,
    failWith: undefined,
    checkFailsWith: undefined,
    lastQuery: undefined,
    watchMessages: [],
  };
  return Object.assign(fake, fakeLists(fake, store), fakeWrites(fake, store), fakeGets(fake, store));
}

/** The registry's domain filters: one domain and/or patterns (absent: no filter; empty: nothing). */
const inDomain = (query: { domain?: string; domainPatterns?: readonly string[] }, domain: string): boolean =>
  (query.domain === undefined || domain === query.domain) && (query.domainPatterns === undefined || domainAllowed(query.domainPatterns, domain));

function fakeLists(fake: FakeState, { events, devices, objects, types }: Store): Pick<RegistryClient, ReadRpcs> {
  return {
    async listEvents(query) {
      fake.lastQuery = query;
      if (fake.failWith !== undefined) throw fake.failWith;
      const items = [...events.values()].filter(
        (e) => inDomain(query, e.domain) && (query.object === undefined || e.rels[0] === `/objects/${query.object}`) && (query.tokenId === undefined || e.tokenId === query.tokenId),
      );
      return { items: items.slice(0, query.limit), nextPageToken: items.length > query.limit ? 'next' : null };
    },
    async listDevices(query) {
      fake.lastQuery = query;
      const items = [...devices.values()].filter((d) => query.createdByTokenId === undefined || d.createdByTokenId === query.createdByTokenId);
      return { items: items.slice(0, query.limit), nextPageToken: null };
    },
    async listObjects(query) {
      fake.lastQuery = query;
      return { items: [...objects.values()].filter((o) => (query.deviceName === undefined || o.deviceName === query.deviceName) && inDomain(query, o.objectDomain)), nextPageToken: null };
    },
    async listEventTypes(query) {
      fake.lastQuery = query;
      return { items: [...types.values()].filter((t) => inDomain(query, t.domain)), nextPageToken: null };
    },
    // Counting is the registry's (its tests); the fake answers no buckets and keeps the query.
    async countEvents(query) {
      fake.lastQuery = query;
      if (fake.failWith !== undefined) throw fake.failWith;
      return { buckets: [], other: 0, groups: [] };
    },
    async *watch(query, call) {
      fake.lastQuery = query;
      if (fake.failWith !== undefined) throw fake.failWith;
      for (const message of fake.watchMessages) yield message;
      if (!call.signal.aborted) await new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }));
    },
  };
}

function fakeWrites(fake: FakeState, { events, keys, devices, objects, types }: Store): Pick<RegistryClient, 'checkEvent' | 'recordEvent' | 'findRequestKeys' | 'isServing' | 'close'> {
  const slot = (tokenId: string | undefined, key: string) => `${tokenId ?? ''}\n${key}`;
  return {
    async findRequestKeys(tokenId, wanted, call) {
      fake.calls.push('findRequestKeys');
      fake.requestIds.push(call.requestId);
      if (fake.failWith !== undefined) throw fake.failWith;
      const found = wanted.flatMap((key) => {
        const kept = keys.get(slot(tokenId, key));
        return kept ? [[key, kept.requestHash] as [string, string]] : [];
      });
      return new Map(found);
    },
    async checkEvent(_input, call) {
      fake.calls.push('checkEvent');
      fake.requestIds.push(call.requestId);
      if (fake.failWith !== undefined) throw fake.failWith;
      if (fake.checkFailsWith !== undefined) throw fake.checkFailsWith;
    },
    async recordEvent(input, call) {
      fake.calls.push('recordEvent');
      fake.requestIds.push(call.requestId);
      if (fake.failWith !== undefined) throw fake.failWith;
      fake.recorded.push(input);
      const key = input.idempotency && slot(input.tokenId, input.idempotency.key);
      const kept = key === undefined ? undefined : keys.get(key);
      if (kept) {
        if (kept.requestHash === input.idempotency!.requestHash) return kept.event;
        throw new AppError('ALREADY_EXISTS', 'Idempotency-Key was already used for a different request', { field: 'Idempotency-Key', rule: 'key-reused' });
      }
      const { source } = input;
      const fullId = `${source.objectDomain}.${source.objectId}`;
      if (!devices.has(source.deviceName)) devices.set(source.deviceName, { deviceName: source.deviceName, kind: 'generic', createdAt: CREATED_AT, updatedAt: CREATED_AT, createdByTokenId: input.tokenId ?? null, lastSeenAt: null });
      if (!objects.has(fullId)) {
        objects.set(fullId, { id: fullId, ...source, createdAt: CREATED_AT, updatedAt: CREATED_AT, createdByTokenId: input.tokenId ?? null, lastSeenAt: null });
      }
      const typeKey = `${source.objectDomain}/${input.eventType.eventType}`;
      if (!types.has(typeKey)) types.set(typeKey, { domain: source.objectDomain, ...input.eventType, createdAt: CREATED_AT, updatedAt: CREATED_AT, createdByTokenId: input.tokenId ?? null });
      const event: RecordedEvent = {
        id: randomUUID(),
        domain: source.objectDomain,
        eventType: input.eventType.eventType,
        rels: [`/objects/${fullId}`],
        images: [...input.images],
        videoClips: [...input.videoClips],
        properties: input.properties.map((p) => ({ ...p })),
        createdAt: CREATED_AT,
        updatedAt: CREATED_AT,
        tokenId: input.tokenId ?? null,
        // As the registry stores it: to the microsecond, rounded up.
        occurredAt: input.occurredAt === undefined ? null : formatTimestamp(timestampFromMicros(microsFromTimestamp(input.occurredAt)!)),
      };
      events.set(event.id, event);
      if (key !== undefined) keys.set(key, { requestHash: input.idempotency!.requestHash, event });
      return event;
    },
    async isServing() {
      return fake.serving;
    },
    close() {},
  };
}

function fakeGets(fake: FakeState, { events, devices, objects, types }: Store): Pick<RegistryClient, 'getEvent' | 'getDevice' | 'getObject' | 'getEventType'> {
  return {
    async getEvent(id) {
      fake.calls.push('getEvent');
      if (fake.failWith !== undefined) throw fake.failWith;
      return found(events.get(id), `event ${id} not found`);
    },
    async getDevice(name) {
      fake.calls.push('getDevice');
      return found(devices.get(name), `device ${name} not found`);
    },
    async getObject(id) {
      fake.calls.push('getObject');
      return found(objects.get(id), `object ${id} not found`);
    },
    async getEventType(domain, eventType) {
      fake.calls.push('getEventType');
      return found(types.get(`${domain}/${eventType}`), `event type ${eventType} not found in ${domain}`);
    },
  };
}

function found<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new AppError('NOT_FOUND', message);
  return value;
}

/**
 * Registry list and watch handlers for fake gRPC registries that only serve writes and single reads,
 * and a CheckEvent that accepts every event (no token policies in those fakes).
 */
export function unimplementedReads(): Pick<AsyncServiceImpl<registry.RegistryServiceServer>, ReadRpcs | 'checkEvent' | 'findRequestKeys'> {
  const no = (): never => {
    throw new AppError('UNIMPLEMENTED', 'not in this fake');
  };
  return {
    checkEvent: async () => ({}),
    findRequestKeys: async () => ({ keys: [] }),
    listEvents: async () => no(),
    listDevices: async () => no(),
    listObjects: async () => no(),
    listEventTypes: async () => no(),
    countEvents: async () => no(),
    // eslint-disable-next-line require-yield
    watch: async function* () {
      no();
    },
  };
}

type RegistryImpl = AsyncServiceImpl<registry.RegistryServiceServer>;

/** A fake's RecordEvents also served as the lane the gateway sends its batches on (RecordEventsStream). */
export function withLane(service: Omit<RegistryImpl, 'recordEventsStream'>): RegistryImpl {
  return { ...service, recordEventsStream: async (request, ctx) => ({ batch: await service.recordEvents(request.batch!, ctx) }) };
}
