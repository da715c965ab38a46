/**
 * The real clients/*.ts against real gRPC servers on 127.0.0.1:0 that implement the services with
 * simple in-memory fakes: proves the protobuf ↔ gateway mapping (timestamps, property order,
 * errors, request ids, large messages, streaming and cancellation).
 */
import { createServer } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppError,
  createGrpcServer,
  imageRuleError,
  LIMITS,
  listenHttp,
  media,
  registry,
  ruleError,
  timestampFromMicros,
  UNSUPPORTED_IMAGE_MESSAGE,
  type AsyncServiceImpl,
  type CallContext,
  type GrpcServer,
} from '@dynamic-events/proto';
import { createApp } from '../src/app.js';
import { createMediaClient, type MediaClient } from '../src/clients/media.js';
import { createRegistryClient, type RegistryClient } from '../src/clients/registry.js';
import { createMetrics } from '../src/metrics.js';
import type { EventInput } from '../src/model.js';
import { PNG_SIGNATURE, unimplementedReads, validBody } from './helpers.js';

const logger = pino({ level: 'silent' });
const CREATED = timestampFromMicros(1_763_713_204_123_456n);
const UPDATED = { seconds: '1763713205', nanos: 7 };
const MAX_IMAGE = 6 * 1024 * 1024;

/** What the fake servers saw. */
const seen = {
  /** Events per RecordEvents call. */
  calls: [] as number[],
  requests: [] as registry.NewEvent[],
  requestIds: [] as string[],
  images: new Map<string, Buffer>(),
  cancelled: 0,
};

/** Batching as main.ts sets it up, with the defaults' queue bounds. */
const TEST_BATCHING = { maxInFlight: 4, maxBatchEvents: 500, maxBatchBytes: 1024 * 1024, maxQueuedEvents: 10_000, maxQueuedBytes: 64 * 1024 * 1024 };

function deferred() {
  let resolve = (): void => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Holds RecordEvents calls naming the device "stall" until released. */
let stall = deferred();

/** A refusal the real registry makes (its validate-event rules come from @dynamic-events/proto). */
const REFUSAL = ruleError.maxLength('source.device_name', LIMITS.nameMaxLength);

function fakeRegistryService(): AsyncServiceImpl<registry.RegistryServiceServer> {
  const events = new Map<string, registry.Event>();
  return {
    ...unimplementedReads(),
    async recordEvent(): Promise<registry.RecordEventResponse> {
      throw new AppError('UNIMPLEMENTED', 'the gateway sends RecordEvents');
    },
    async recordEvents(request: registry.RecordEventsRequest, ctx: CallContext): Promise<registry.RecordEventsResponse> {
      seen.calls.push(request.events.length);
      if (request.events.some((e) => e.source?.deviceName === 'boom')) throw new Error('secret: password=hunter2');
      if (request.events.some((e) => e.source?.deviceName === 'stall')) await stall.promise;
      return {
        results: request.events.map((event, i): registry.RecordEventResult => {
          seen.requestIds.push(request.requestIds[i] || ctx.requestId);
          seen.requests.push(event);
          const device = event.source!.deviceName;
          if (device === 'refused') return { error: { code: 3, message: REFUSAL.message, field: REFUSAL.details.field ?? '', rule: REFUSAL.details.rule ?? '' } };
          if (device === 'empty') return {};
          if (device === 'no-event') return { recorded: { event: undefined, outcome: undefined } };
          const recorded: registry.Event = {
            id: `00000000-0000-4000-8000-${String(events.size).padStart(12, '0')}`,
            domain: event.source!.objectDomain,
            eventType: event.eventType!.eventType,
            rels: [`/objects/${event.source!.objectDomain}.${event.source!.objectId}`],
            images: event.images,
            videoClips: event.videoClips,
            additionalProperties: event.additionalProperties,
            createdAt: CREATED,
            updatedAt: UPDATED,
            deviceName: device,
            objectId: event.source!.objectId,
          };
          events.set(recorded.id, recorded);
          return { recorded: { event: recorded, outcome: { deviceCreated: true, objectCreated: true, eventTypeCreated: true } } };
        }),
      };
    },
    async getEvent(request: registry.GetEventRequest): Promise<registry.GetEventResponse> {
      const event = events.get(request.id);
      if (!event) throw new AppError('NOT_FOUND', `event ${request.id} not found`);
      return { event };
    },
    async getDevice(request: registry.GetDeviceRequest): Promise<registry.GetDeviceResponse> {
      if (request.deviceName !== 'camera-01') throw new AppError('NOT_FOUND', `device ${request.deviceName} not found`);
      return { device: { deviceName: 'camera-01', kind: 'generic', createdAt: CREATED, updatedAt: UPDATED } };
    },
    async getObject(request: registry.GetObjectRequest): Promise<registry.GetObjectResponse> {
      if (request.id !== 'acme.camera.channel-1') throw new AppError('NOT_FOUND', `object ${request.id} not found`);
      return {
        object: {
          id: request.id,
          objectId: 'channel-1',
          objectDomain: 'acme.camera',
          objectName: 'Front door',
          objectType: 'video_channel',
          deviceName: 'camera-01',
          createdAt: CREATED,
          updatedAt: UPDATED,
        },
      };
    },
    async getEventType(request: registry.GetEventTypeRequest): Promise<registry.GetEventTypeResponse> {
      return {
        eventType: { domain: request.domain, eventType: request.eventType, displayName: 'Motion', displayDescription: 'Moved', createdAt: CREATED, updatedAt: UPDATED },
      };
    },
  };
}

function fakeMediaService(): AsyncServiceImpl<media.MediaServiceServer> {
  return {
    async storeImage(request: media.StoreImageRequest, ctx: CallContext): Promise<media.StoreImageResponse> {
      seen.requestIds.push(ctx.requestId);
      if (!request.data.subarray(0, 8).equals(PNG_SIGNATURE)) throw imageRuleError.unsupported();
      const key = `${String(seen.images.size).padStart(64, '0')}.png`;
      seen.images.set(key, Buffer.from(request.data));
      return { key, contentType: 'image/png', sizeBytes: String(request.data.length), width: 1, height: 1, created: true };
    },
    async *getImage(request: media.GetImageRequest, ctx: CallContext): AsyncGenerator<media.GetImageResponse> {
      const data = seen.images.get(request.key);
      if (!data) throw new AppError('NOT_FOUND', `image ${request.key} not found`);
      const size = 64 * 1024;
      try {
        for (let i = 0; i < data.length; i += size) {
          if (ctx.signal.aborted) return;
          yield { contentType: i === 0 ? 'image/png' : '', sizeBytes: i === 0 ? String(data.length) : '0', chunk: data.subarray(i, i + size) };
          // Slow enough that a cancelled reader is noticed mid-stream.
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      } finally {
        if (ctx.signal.aborted) seen.cancelled++;
      }
    },
  };
}

let registryServer: GrpcServer;
let mediaServer: GrpcServer;
let registryClient: RegistryClient;
let registryAddress = '';
let mediaClient: MediaClient;

beforeAll(async () => {
  registryServer = createGrpcServer({ logger });
  registryServer.addService<registry.RegistryServiceServer>(registry.RegistryServiceService, fakeRegistryService());
  const registryPort = await registryServer.listen('127.0.0.1:0');
  registryServer.setServing(true);
  mediaServer = createGrpcServer({ logger, maxMessageBytes: MAX_IMAGE + 1024 * 1024 });
  mediaServer.addService<media.MediaServiceServer>(media.MediaServiceService, fakeMediaService());
  const mediaPort = await mediaServer.listen('127.0.0.1:0');
  registryAddress = `127.0.0.1:${registryPort}`;
  registryClient = createRegistryClient(`127.0.0.1:${registryPort}`, { deadlineMs: 5000, batching: TEST_BATCHING });
  mediaClient = createMediaClient(`127.0.0.1:${mediaPort}`, { deadlineMs: 5000, streamDeadlineMs: 10_000, maxMessageBytes: MAX_IMAGE + 1024 * 1024 });
});

afterAll(async () => {
  registryClient.close();
  mediaClient.close();
  await registryServer.shutdown(1000);
  await mediaServer.shutdown(1000);
});

const input = (deviceName = 'camera-01'): EventInput => ({
  source: { deviceName, objectId: 'channel-1', objectDomain: 'acme.camera', objectName: 'Front door', objectType: 'video_channel' },
  eventType: { eventType: 'motion', displayName: 'Motion', displayDescription: 'Moved' },
  properties: [
    { key: 'zeta', value: '1' },
    { key: '__proto__', value: 'data' },
    { key: 'alpha', value: '' },
    { key: 'constructor', value: 'x' },
  ],
  images: ['https://a.test/1.jpg', 'https://a.test/2.jpg'],
  videoClips: ['https://a.test/1.mp4'],
});

describe('registry client', () => {
  it('maps the event both ways: fields, property order, nine-digit timestamps, request id', async () => {
    const event = await registryClient.recordEvent(input(), { requestId: 'req-1' });
    expect(seen.requests.at(-1)).toEqual({
      source: { deviceName: 'camera-01', objectId: 'channel-1', objectDomain: 'acme.camera', objectName: 'Front door', objectType: 'video_channel' },
      eventType: { eventType: 'motion', displayName: 'Motion', displayDescription: 'Moved' },
      additionalProperties: input().properties,
      images: ['https://a.test/1.jpg', 'https://a.test/2.jpg'],
      videoClips: ['https://a.test/1.mp4'],
      // No Idempotency-Key: the proto's empty strings.
      idempotencyKey: '',
      requestHash: '',
    });
    expect(seen.requestIds.at(-1)).toBe('req-1');
    await registryClient.recordEvent({ ...input(), idempotency: { key: 'k-1', requestHash: 'h-1' } }, { requestId: 'req-2' });
    expect(seen.requests.at(-1)).toMatchObject({ idempotencyKey: 'k-1', requestHash: 'h-1' });
    expect(event).toEqual({
      id: expect.any(String),
      domain: 'acme.camera',
      eventType: 'motion',
      rels: ['/objects/acme.camera.channel-1'],
      images: ['https://a.test/1.jpg', 'https://a.test/2.jpg'],
      videoClips: ['https://a.test/1.mp4'],
      properties: input().properties,
      createdAt: '2025-11-21T08:20:04.123456000Z',
      updatedAt: '2025-11-21T08:20:05.000000007Z',
    });
    expect(await registryClient.getEvent(event.id, { requestId: 'req-2' })).toEqual(event);
  });

  it('maps devices, objects and event types', async () => {
    const call = { requestId: 'r' };
    expect(await registryClient.getDevice('camera-01', call)).toEqual({
      deviceName: 'camera-01',
      kind: 'generic',
      createdAt: '2025-11-21T08:20:04.123456000Z',
      updatedAt: '2025-11-21T08:20:05.000000007Z',
    });
    expect(await registryClient.getObject('acme.camera.channel-1', call)).toMatchObject({ id: 'acme.camera.channel-1', objectId: 'channel-1', objectDomain: 'acme.camera', deviceName: 'camera-01' });
    expect(await registryClient.getEventType('acme.camera', 'motion', call)).toMatchObject({ domain: 'acme.camera', eventType: 'motion', displayDescription: 'Moved' });
  });

  it('keeps NOT_FOUND, hides internal failures, rejects responses without their message', async () => {
    await expect(registryClient.getDevice('nope', { requestId: 'r' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'device nope not found' });
    const internal = await registryClient.recordEvent(input('boom'), { requestId: 'r' }).catch((e: unknown) => e);
    expect(internal).toBeInstanceOf(AppError);
    expect(internal).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    await expect(registryClient.recordEvent(input('no-event'), { requestId: 'r' })).rejects.toThrow('registry RecordEvents response has no event');
    await expect(registryClient.recordEvent(input('empty'), { requestId: 'r' })).rejects.toThrow('registry RecordEvents result has neither recorded nor error');
  });

  it('coalesces concurrent events into RecordEvents calls; each caller gets its own event and its request id travels', async () => {
    seen.calls.length = 0;
    const devices = Array.from({ length: 40 }, (_, i) => `cam-${i}`);
    const events = await Promise.all(devices.map((d, i) => registryClient.recordEvent(input(d), { requestId: `batch-${i}` })));
    // Submitted in one event-loop turn: far fewer calls than events (at most one per free slot).
    expect(seen.calls.reduce((a, b) => a + b, 0)).toBe(40);
    expect(seen.calls.length).toBeLessThanOrEqual(TEST_BATCHING.maxInFlight);
    expect(new Set(events.map((e) => e.id)).size).toBe(40);
    expect(seen.requests.slice(-40).map((e) => e.source!.deviceName).sort()).toEqual([...devices].sort());
    expect(seen.requestIds.slice(-40).sort()).toEqual(devices.map((_, i) => `batch-${i}`).sort());
  });

  it('sends a lone event at once, without waiting on a timer', async () => {
    seen.calls.length = 0;
    const started = performance.now();
    await registryClient.recordEvent(input(), { requestId: 'alone' });
    expect(seen.calls).toEqual([1]);
    // Generous: a timer-based batcher would add its window; this one adds an event-loop turn.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('fails only the event the registry refused; the others of the same call are recorded', async () => {
    // One slot: the three events travel in one call.
    const client = createRegistryClient(registryAddress, { deadlineMs: 5000, batching: { ...TEST_BATCHING, maxInFlight: 1 } });
    seen.calls.length = 0;
    const results = await Promise.allSettled(['cam-a', 'refused', 'cam-b'].map((d) => client.recordEvent(input(d), { requestId: d })));
    client.close();
    expect(seen.calls).toEqual([3]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (results[1] as PromiseRejectedResult).reason as AppError;
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'source.device_name must be at most 255 characters', details: { field: 'source.device_name', rule: 'max-length' } });
  });

  it('cuts batches by bytes as well as by count', async () => {
    const client = createRegistryClient(registryAddress, { deadlineMs: 5000, batching: { ...TEST_BATCHING, maxInFlight: 1, maxBatchBytes: 2000 } });
    try {
      seen.calls.length = 0;
      // About 600 encoded bytes each: three fit under 2,000 bytes, a fourth does not.
      await Promise.all(Array.from({ length: 12 }, (_, i) => client.recordEvent({ ...input(`bytes-${i}`), properties: [{ key: 'k', value: 'x'.repeat(400) }] }, { requestId: 'b' })));
      expect(seen.calls.reduce((a, b) => a + b, 0)).toBe(12);
      expect(Math.max(...seen.calls)).toBe(3);
    } finally {
      client.close();
    }
  });

  it('answers UNAVAILABLE (retry after 1 s) at once when its queue is full, instead of growing it', async () => {
    const client = createRegistryClient(registryAddress, { deadlineMs: 5000, batching: { ...TEST_BATCHING, maxInFlight: 1, maxQueuedEvents: 2 } });
    stall = deferred();
    try {
      const held = client.recordEvent(input('stall'), { requestId: 's' });
      await new Promise((resolve) => setTimeout(resolve, 50)); // the stalled call is out, its slot taken
      const queued = [client.recordEvent(input('q1'), { requestId: 'q1' }), client.recordEvent(input('q2'), { requestId: 'q2' })];
      const refused = await client.recordEvent(input('q3'), { requestId: 'q3' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: 'UNAVAILABLE', details: { rule: 'overloaded', retryAfterSeconds: 1 } });
      stall.resolve();
      await expect(held).resolves.toMatchObject({ domain: 'acme.camera' });
      expect((await Promise.all(queued)).map((e) => e.domain)).toEqual(['acme.camera', 'acme.camera']);
    } finally {
      stall.resolve();
      client.close();
    }
  });

  it('reports health', async () => {
    expect(await registryClient.isServing(1000)).toBe(true);
    registryServer.setServing(false);
    expect(await registryClient.isServing(1000)).toBe(false);
    registryServer.setServing(true);
  });
});

describe('media client', () => {
  const image = Buffer.concat([PNG_SIGNATURE, Buffer.alloc(5 * 1024 * 1024, 0xab)]);
  let key = '';

  it('stores an image larger than the 4 MiB gRPC default', async () => {
    const stored = await mediaClient.storeImage(image, { requestId: 'img-1' });
    key = stored.key;
    expect(stored).toEqual({ key, contentType: 'image/png', sizeBytes: image.length });
    expect(seen.requestIds.at(-1)).toBe('img-1');
  });

  it('keeps INVALID_ARGUMENT with its details', async () => {
    await expect(mediaClient.storeImage(Buffer.from('<svg/>'), { requestId: 'r' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: UNSUPPORTED_IMAGE_MESSAGE,
      details: { field: 'data', rule: 'format' },
    });
  });

  it('streams an image back exactly', async () => {
    const stream = await mediaClient.openImage(key, { requestId: 'r' });
    expect(stream.contentType).toBe('image/png');
    expect(stream.sizeBytes).toBe(image.length);
    const chunks: Buffer[] = [];
    for await (const chunk of stream.chunks) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(image)).toBe(true);
  });

  it('answers NOT_FOUND before any chunk', async () => {
    await expect(mediaClient.openImage('missing.png', { requestId: 'r' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('cancels the gRPC call when the reader stops early or never reads', async () => {
    const before = seen.cancelled;
    const stream = await mediaClient.openImage(key, { requestId: 'r' });
    for await (const _chunk of stream.chunks) break;
    await expect.poll(() => seen.cancelled, { timeout: 2000 }).toBe(before + 1);
    const unread = await mediaClient.openImage(key, { requestId: 'r' });
    await unread.cancel();
    await expect.poll(() => seen.cancelled, { timeout: 2000 }).toBe(before + 2);
  });
});

describe('the app over the real clients', () => {
  it('stores the image, records the event and serves the image back', async () => {
    const metrics = createMetrics();
    const app = createApp({
      config: { platformSegment: 'platform', publicBaseUrl: 'http://localhost:8080', dynamicEventsToken: undefined, maxBodyBytes: 16 * 1024 * 1024, maxImageBytes: MAX_IMAGE, maxInflightBodyBytes: 64 * 1024 * 1024 },
      logger,
      registry: registryClient,
      media: mediaClient,
      metrics,
    });
    const server = createServer(app.callback());
    const port = await listenHttp(server, 0, '127.0.0.1');
    try {
      const body = validBody() as { event: { event_data: { event_additional_properties: Record<string, string> } } };
      body.event.event_data.event_additional_properties.base64_image = `data:image/png;base64,${image().toString('base64')}`;
      const response = await fetch(`http://127.0.0.1:${port}/api/platform/dh/dynamic-events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'e2e-1' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      const event = (await response.json()) as { images: string[]; created_at: string; event_additional_properties: Record<string, string> };
      expect(event.images).toHaveLength(2);
      expect(event.created_at).toBe('2025-11-21T08:20:04.123456000Z');
      expect(event.event_additional_properties).toEqual({ zone: 'north', confidence: '0.93' });
      expect(seen.requestIds.slice(-2)).toEqual(['e2e-1', 'e2e-1']);

      const key = event.images[1]!.split('/').pop()!;
      const served = await fetch(`http://127.0.0.1:${port}/api/platform/dh/media/${key}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-length')).toBe(String(image().length));
      expect(Buffer.from(await served.arrayBuffer()).equals(image())).toBe(true);

      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ error: 'not ready: media' });
      mediaServer.setServing(true);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

function image(): Buffer {
  return Buffer.concat([PNG_SIGNATURE, Buffer.alloc(300 * 1024, 0x5a)]);
}
