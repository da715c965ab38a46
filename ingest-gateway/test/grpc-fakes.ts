/**
 * Shared set-up of the clients-*.test.ts files: real gRPC servers on 127.0.0.1:0 implementing the
 * registry and media services with simple in-memory fakes, and the real clients/*.ts dialling them.
 * `seen` records what the servers received. The bindings below are filled in by startFakeServices().
 */
import { pino } from 'pino';
import {
  AppError,
  imageRuleError,
  LIMITS,
  media,
  registry,
  ruleError,
  timestampFromMicros,
} from '@dynamic-events/proto';
import {
  createGrpcServer,
  type AsyncServiceImpl,
  type CallContext,
  type GrpcServer,
} from '@dynamic-events/proto/runtime';
import { createMediaClient, type MediaClient } from '../src/clients/media.js';
import { createRegistryClient, type RegistryClient } from '../src/clients/registry.js';
import type { EventInput } from '../src/model.js';
import { PNG_SIGNATURE, unimplementedReads, withLane } from './helpers.js';

export const logger = pino({ level: 'silent' });
export const CREATED = timestampFromMicros(1_763_713_204_123_456n);
export const UPDATED = { seconds: '1763713205', nanos: 7 };
export const MAX_IMAGE = 6 * 1024 * 1024;

/** What the fake servers saw. */
export const seen = {
  /** Events per RecordEvents call. */
  calls: [] as number[],
  requests: [] as registry.NewEvent[],
  requestIds: [] as string[],
  images: new Map<string, Buffer>(),
  cancelled: 0,
};

/** Batching as main.ts sets it up, with the defaults' queue bounds. */
export const TEST_BATCHING = { maxInFlight: 4, maxBatchEvents: 500, maxBatchBytes: 1024 * 1024, maxQueuedEvents: 10_000, maxQueuedBytes: 64 * 1024 * 1024 };

export function deferred() {
  let resolve = (): void => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A refusal the real registry makes (its validate-event rules come from @dynamic-events/proto). */
const REFUSAL = ruleError.maxLength('source.device_name', LIMITS.nameMaxLength);

/** `stalled()` holds RecordEvents calls naming the device "stall" until it resolves. */
function fakeRegistryService(stalled: () => Promise<void>): AsyncServiceImpl<registry.RegistryServiceServer> {
  const events = new Map<string, registry.Event>();
  return withLane({
    ...unimplementedReads(),
    async recordEvent(): Promise<registry.RecordEventResponse> {
      throw new AppError('UNIMPLEMENTED', 'the gateway sends RecordEvents');
    },
    async recordEvents(request: registry.RecordEventsRequest, ctx: CallContext): Promise<registry.RecordEventsResponse> {
      seen.calls.push(request.events.length);
      if (request.events.some((e) => e.source?.deviceName === 'boom')) throw new Error('secret: password=hunter2');
      if (request.events.some((e) => e.source?.deviceName === 'stall')) await stalled();
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
            tokenId: event.tokenId,
            occurredAt: event.occurredAt,
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
      return { device: { deviceName: 'camera-01', kind: 'generic', createdAt: CREATED, updatedAt: UPDATED, createdByTokenId: '', lastSeenAt: undefined } };
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
          createdByTokenId: '',
          lastSeenAt: undefined,
        },
      };
    },
    async getEventType(request: registry.GetEventTypeRequest): Promise<registry.GetEventTypeResponse> {
      return {
        eventType: { domain: request.domain, eventType: request.eventType, displayName: 'Motion', displayDescription: 'Moved', createdAt: CREATED, updatedAt: UPDATED, createdByTokenId: '' },
      };
    },
  });
}

function fakeMediaService(): AsyncServiceImpl<media.MediaServiceServer> {
  async function storeImage(request: media.StoreImageRequest, ctx: CallContext): Promise<media.StoreImageResponse> {
    seen.requestIds.push(ctx.requestId);
    if (!request.data.subarray(0, 8).equals(PNG_SIGNATURE)) throw imageRuleError.unsupported();
    const key = `${String(seen.images.size).padStart(64, '0')}.png`;
    seen.images.set(key, Buffer.from(request.data));
    return { key, contentType: 'image/png', sizeBytes: String(request.data.length), width: 1, height: 1, created: true };
  }
  return {
    storeImage,
    // The lane the gateway sends images on (StoreImageStream): the same, per message.
    async storeImageStream(request, ctx) {
      return { image: await storeImage(request.image!, ctx) };
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

export let registryServer: GrpcServer;
export let mediaServer: GrpcServer;
export let registryClient: RegistryClient;
export let registryAddress = '';
export let mediaClient: MediaClient;

/** Starts both servers and the clients (from beforeAll); only clients-batching holds "stall" calls. */
export async function startFakeServices(stalled: () => Promise<void> = () => Promise.resolve()): Promise<void> {
  registryServer = createGrpcServer({ logger });
  registryServer.addService<registry.RegistryServiceServer>(registry.RegistryServiceService, fakeRegistryService(stalled));
  const registryPort = await registryServer.listen('127.0.0.1:0');
  registryServer.setServing(true);
  mediaServer = createGrpcServer({ logger, maxMessageBytes: MAX_IMAGE + 1024 * 1024 });
  mediaServer.addService<media.MediaServiceServer>(media.MediaServiceService, fakeMediaService());
  const mediaPort = await mediaServer.listen('127.0.0.1:0');
  registryAddress = `127.0.0.1:${registryPort}`;
  registryClient = createRegistryClient(`127.0.0.1:${registryPort}`, { deadlineMs: 5000, batching: TEST_BATCHING });
  mediaClient = createMediaClient(`127.0.0.1:${mediaPort}`, { deadlineMs: 5000, streamDeadlineMs: 10_000, maxMessageBytes: MAX_IMAGE + 1024 * 1024 });
}

export async function stopFakeServices(): Promise<void> {
  registryClient.close();
  mediaClient.close();
  await registryServer.shutdown(1000);
  await mediaServer.shutdown(1000);
}

export const input = (deviceName = 'camera-01'): EventInput => ({
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
