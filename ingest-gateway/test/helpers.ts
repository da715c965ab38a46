/**
 * Test support: the real Koa app over a real http.Server on 127.0.0.1:0, with fake registry and
 * media clients (plain objects implementing the client interfaces) that record every call.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { AppError, createLogger, createMetricsServer, imageRuleError, listenHttp, type AsyncServiceImpl, type registry } from '@dynamic-events/proto';
import { createApp, type AppDeps } from '../src/app.js';
import type { ImageStream, MediaClient } from '../src/clients/media.js';
import type { RegistryClient } from '../src/clients/registry.js';
import { createHttpServer, handleClientErrors } from '../src/http-server.js';
import { createMetrics, type Metrics } from '../src/metrics.js';
import type { DeviceRecord, EventInput, EventTypeRecord, ObjectRecord, RecordedEvent, StoredImage, WatchMessage } from '../src/model.js';

export const SEGMENT = 'platform';
export const API = `/api/${SEGMENT}/dh`;
export const CREATED_AT = '2026-11-21T08:20:04.123456000Z';

/** The spec's example body; tests clone and break it. */
export function validBody(): Record<string, unknown> {
  return {
    source: {
      device_name: 'camera-01',
      object_id: 'channel-1',
      object_domain: 'acme.camera.motion',
      object_name: 'Front door',
      object_type: 'video_channel',
    },
    event: {
      event_type: { event_type: 'motion', display_name: 'Motion', display_description: 'Motion detected' },
      event_data: {
        event_additional_properties: { zone: 'north', confidence: '0.93' },
        images: ['https://example.test/a.jpg'],
        video_clips: ['https://example.test/a.mp4'],
      },
    },
  };
}

export interface FakeRegistry extends RegistryClient {
  recorded: EventInput[];
  calls: string[];
  /** The request id each call carried, in call order. */
  requestIds: string[];
  serving: boolean;
  /** When set, every call rejects with it. */
  failWith: unknown;
  /** The last list or watch query received. */
  lastQuery: unknown;
  /** What watch() yields before it waits for its signal. */
  watchMessages: WatchMessage[];
}

/** An in-memory registry: records events, reports NOT_FOUND like the real one. */
export function fakeRegistry(): FakeRegistry {
  const events = new Map<string, RecordedEvent>();
  const devices = new Map<string, DeviceRecord>();
  const objects = new Map<string, ObjectRecord>();
  const types = new Map<string, EventTypeRecord>();
  const fake: FakeRegistry = {
    recorded: [],
    calls: [],
    requestIds: [],
    serving: true,
    failWith: undefined,
    lastQuery: undefined,
    watchMessages: [],
    async listEvents(query) {
      fake.lastQuery = query;
      if (fake.failWith !== undefined) throw fake.failWith;
      const items = [...events.values()].filter((e) => query.domain === undefined || e.domain === query.domain);
      return { items: items.slice(0, query.limit), nextPageToken: items.length > query.limit ? 'next' : null };
    },
    async listDevices(query) {
      fake.lastQuery = query;
      return { items: [...devices.values()].slice(0, query.limit), nextPageToken: null };
    },
    async listObjects(query) {
      fake.lastQuery = query;
      return { items: [...objects.values()].filter((o) => query.deviceName === undefined || o.deviceName === query.deviceName), nextPageToken: null };
    },
    async listEventTypes(query) {
      fake.lastQuery = query;
      return { items: [...types.values()], nextPageToken: null };
    },
    async *watch(query, call) {
      fake.lastQuery = query;
      if (fake.failWith !== undefined) throw fake.failWith;
      for (const message of fake.watchMessages) yield message;
      if (!call.signal.aborted) await new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }));
    },
    async recordEvent(input, call) {
      fake.calls.push('recordEvent');
      fake.requestIds.push(call.requestId);
      if (fake.failWith !== undefined) throw fake.failWith;
      fake.recorded.push(input);
      const { source } = input;
      const fullId = `${source.objectDomain}.${source.objectId}`;
      if (!devices.has(source.deviceName)) devices.set(source.deviceName, { deviceName: source.deviceName, kind: 'generic', createdAt: CREATED_AT, updatedAt: CREATED_AT });
      if (!objects.has(fullId)) {
        objects.set(fullId, { id: fullId, ...source, createdAt: CREATED_AT, updatedAt: CREATED_AT });
      }
      const typeKey = `${source.objectDomain}/${input.eventType.eventType}`;
      if (!types.has(typeKey)) types.set(typeKey, { domain: source.objectDomain, ...input.eventType, createdAt: CREATED_AT, updatedAt: CREATED_AT });
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
      };
      events.set(event.id, event);
      return event;
    },
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
    async isServing() {
      return fake.serving;
    },
    close() {},
  };
  return fake;
}

function found<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new AppError('NOT_FOUND', message);
  return value;
}

export interface FakeMedia extends MediaClient {
  stored: Buffer[];
  calls: string[];
  requestIds: string[];
  serving: boolean;
  images: Map<string, { contentType: string; data: Buffer }>;
  /** When set, StoreImage rejects with it. */
  failWith: unknown;
  /** Chunk size of GetImage streams, and a pause before each chunk (a slow media service). */
  chunkSize: number;
  chunkDelayMs: number;
  /** GetImage streams stopped before their end (the gRPC call would be cancelled). */
  cancelled: number;
}

/** An in-memory media service: a PNG signature is an image, anything else is refused as media refuses it (imageRuleError). */
export function fakeMedia(): FakeMedia {
  const fake: FakeMedia = {
    stored: [],
    calls: [],
    requestIds: [],
    serving: true,
    images: new Map(),
    failWith: undefined,
    chunkSize: 4,
    chunkDelayMs: 0,
    cancelled: 0,
    async storeImage(data, call): Promise<StoredImage> {
      fake.calls.push('storeImage');
      fake.requestIds.push(call.requestId);
      if (fake.failWith !== undefined) throw fake.failWith;
      if (!data.subarray(0, 8).equals(PNG_SIGNATURE)) throw imageRuleError.unsupported();
      fake.stored.push(data);
      const key = `${'ab'.repeat(32)}.png`;
      fake.images.set(key, { contentType: 'image/png', data });
      return { key, contentType: 'image/png', sizeBytes: data.length };
    },
    async openImage(key): Promise<ImageStream> {
      fake.calls.push('openImage');
      const image = fake.images.get(key);
      if (!image) throw new AppError('NOT_FOUND', `image ${key} not found`);
      const { chunkSize, chunkDelayMs } = fake;
      async function* chunks(): AsyncGenerator<Buffer> {
        let completed = false;
        try {
          for (let i = 0; i < image!.data.length; i += chunkSize) {
            if (chunkDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
            yield image!.data.subarray(i, i + chunkSize);
          }
          completed = true;
        } finally {
          // Like the real client: stopping early cancels the gRPC call.
          if (!completed) fake.cancelled++;
        }
      }
      return {
        contentType: image.contentType,
        sizeBytes: image.data.length,
        chunks: chunks(),
        async cancel() {
          fake.cancelled++;
        },
      };
    },
    async isServing() {
      return fake.serving;
    },
    close() {},
  };
  return fake;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Not a valid PNG past the signature, but enough for the fake media service. */
export const TINY_PNG = Buffer.concat([PNG_SIGNATURE, Buffer.from('fake-png-body')]);

export interface TestGateway {
  url: string;
  registry: FakeRegistry;
  media: FakeMedia;
  metrics: Metrics;
  /** The metrics server's /metrics (its own port, as in production). */
  metricsUrl: string;
  draining: AbortController;
  logs: Array<Record<string, unknown>>;
  /** The same lines as written (to search for secrets and sizes). */
  rawLogs: string[];
  server: Server;
  close(): Promise<void>;
  /** POST a JSON value (or raw string) to the dynamic-events endpoint. */
  post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }>;
}

export interface GatewayOptions {
  token?: string;
  maxBodyBytes?: number;
  maxImageBytes?: number;
  /** MAX_INFLIGHT_BODY_BYTES (default 32 MiB). */
  maxInflightBodyBytes?: number;
}

/** Starts the app with fakes on 127.0.0.1:0; logs are captured (not printed) for assertions. */
export async function startGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  const registry = fakeRegistry();
  const media = fakeMedia();
  const draining = new AbortController();
  const logs: Array<Record<string, unknown>> = [];
  const rawLogs: string[] = [];
  // The production logger (its error serializer and redaction), writing into `logs` and `rawLogs`.
  const logger = createLogger('ingest-gateway', 'debug', {
    write: (line: string) => {
      rawLogs.push(line);
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const metricsServer = createMetricsServer(logger);
  const metricsPort = await metricsServer.listen(0, '127.0.0.1');
  const metrics = createMetrics(metricsServer.registry);
  const deps: AppDeps = {
    config: {
      platformSegment: SEGMENT,
      publicBaseUrl: 'http://localhost:8080',
      dynamicEventsToken: options.token,
      maxBodyBytes: options.maxBodyBytes ?? 16 * 1024 * 1024,
      maxImageBytes: options.maxImageBytes ?? 10 * 1024 * 1024,
      maxInflightBodyBytes: options.maxInflightBodyBytes ?? 32 * 1024 * 1024,
    },
    logger,
    registry,
    media,
    metrics,
    draining: draining.signal,
    probeDeadlineMs: 200,
  };
  const server = createHttpServer(createApp(deps).callback(), { requestTimeoutMs: 60_000, headersTimeoutMs: 10_000 });
  handleClientErrors(server, logger);
  const port = await listenHttp(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    registry,
    media,
    metrics,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    draining,
    logs,
    rawLogs,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await metricsServer.close();
    },
    async post(body, headers = {}) {
      const response = await fetch(`${url}${API}/dynamic-events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, headers: response.headers };
    },
  };
}

/** Deep-clones a body and applies a mutation (tests describe their breakage as a function). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests break the body in arbitrary, untyped ways
export function mutate(change: (body: Record<string, any>) => void): Record<string, unknown> {
  const body = structuredClone(validBody());
  change(body);
  return body;
}

type ReadRpcs = 'listEvents' | 'listDevices' | 'listObjects' | 'listEventTypes' | 'watch';

/** Registry list and watch handlers for fake gRPC registries that only serve writes and single reads. */
export function unimplementedReads(): Pick<AsyncServiceImpl<registry.RegistryServiceServer>, ReadRpcs> {
  const no = (): never => {
    throw new AppError('UNIMPLEMENTED', 'not in this fake');
  };
  return {
    listEvents: async () => no(),
    listDevices: async () => no(),
    listObjects: async () => no(),
    listEventTypes: async () => no(),
    // eslint-disable-next-line require-yield
    watch: async function* () {
      no();
    },
  };
}
