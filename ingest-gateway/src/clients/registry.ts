import {
  callUnary,
  createGrpcClient,
  createLanePool,
  createHealthChecker,
  type Interceptor,
} from '@dynamic-events/proto/runtime';
import {
  registry,
  REGISTRY_MAX_MESSAGE_BYTES,
  REGISTRY_SERVICE_NAME,
  REGISTRY_MAX_REQUEST_BYTES,
} from '@dynamic-events/proto';
import type { CallOptions, DeviceRecord, EventInput, EventTypeRecord, ObjectRecord, RecordedEvent } from '../model.js';
import { createRegistryReads, type RegistryReads } from './registry-reads.js';
import { required, toDeviceRecord, toEventTypeRecord, toObjectRecord, toRecordedEvent } from './registry-mapping.js';
import { createRecordBatcher, type RecordBatcherOptions } from './record-batcher.js';

/** The registry as the gateway uses it: plain gateway types in and out; failures reject with AppError. */
export interface RegistryClient extends RegistryReads {
  /** Resolves once the registry committed the event (coalesced with concurrent ones into RecordEvents calls). */
  recordEvent(input: EventInput, options: CallOptions): Promise<RecordedEvent>;
  /** Resolves when the registry would record the event (its values and its token's policy); writes nothing. */
  checkEvent(input: EventInput, options: CallOptions): Promise<void>;
  /** The committed keys among a token's `keys` (FindRequestKeys), each with the hash of the request that used it; writes nothing. */
  findRequestKeys(tokenId: string | undefined, keys: string[], options: CallOptions): Promise<Map<string, string>>;
  getEvent(id: string, options: CallOptions): Promise<RecordedEvent>;
  getDevice(deviceName: string, options: CallOptions): Promise<DeviceRecord>;
  /** `id` is the object's full identifier "{object_domain}.{object_id}". */
  getObject(id: string, options: CallOptions): Promise<ObjectRecord>;
  getEventType(domain: string, eventType: string, options: CallOptions): Promise<EventTypeRecord>;
  /** True while the registry reports SERVING (it does so only while its database is usable). */
  isServing(deadlineMs: number): Promise<boolean>;
  close(): void;
}

/** The receive window of the gateway's Watch streams, per stream and for their connection. */
const WATCH_RECEIVE_WINDOW_BYTES = 1024 * 1024;

/** Settings of the registry client. */
interface RegistryClientOptions {
  /** Deadline of every call; no request waits on the registry longer than this. */
  deadlineMs: number;
  /** Run on every call (the grpc_client_* metrics). */
  interceptors?: Interceptor[];
  /** How events are coalesced into RecordEvents batches (each waits at most `deadlineMs`). */
  batching: RecordBatcherOptions;
}

/** Creates the gateway's only registry client (one channel, reused by every request). */
export function createRegistryClient(address: string, options: RegistryClientOptions): RegistryClient & {
  /** Events waiting for a RecordEvents batch (INGEST_QUEUE_MAX_EVENTS bounds them): the gateway_ingest_queue_events gauge. */
  eventsWaiting(): number;
} {
  const client = createGrpcClient(registry.RegistryServiceClient, address, {
    maxMessageBytes: REGISTRY_MAX_REQUEST_BYTES,
    maxReceiveMessageBytes: REGISTRY_MAX_MESSAGE_BYTES,
    interceptors: options.interceptors,
  });
  // Watch streams on a channel of their own, whose receive window is small: each SSE client catching
  // up on a registry stream of its own would otherwise let the registry push up to 16 MiB into it
  // ahead of the client (and the registry then serializes more for it).
  const watchClient = createGrpcClient(registry.RegistryServiceClient, address, {
    maxMessageBytes: REGISTRY_MAX_REQUEST_BYTES,
    maxReceiveMessageBytes: REGISTRY_MAX_MESSAGE_BYTES,
    interceptors: options.interceptors,
    receiveWindowBytes: WATCH_RECEIVE_WINDOW_BYTES,
  });
  const health = createHealthChecker(address, { interceptors: options.interceptors });
  const settings = (call: CallOptions) => ({ deadlineMs: options.deadlineMs, requestId: call.requestId });
  // Batches travel as messages on a few open RecordEventsStream lanes, not as unary calls: a unary
  // call costs the gateway and the registry several times what the message does (`npm run bench:grpc`).
  const lanes = createLanePool(() => client.recordEventsStream(), { deadlineMs: options.deadlineMs, channel: client.getChannel() });
  const record = createRecordBatcher(async (batch) => required((await lanes.send({ batch })).batch, 'RecordEventsStream', 'batch'), options.batching);

  return {
    ...createRegistryReads(client, options.deadlineMs, watchClient),
    eventsWaiting: record.waiting,
    async recordEvent(input, call) {
      const response = await record(toNewEvent(input), call);
      return toRecordedEvent(required(response.event, 'RecordEvents', 'event'));
    },
    async checkEvent(input, call) {
      await callUnary(client.checkEvent.bind(client), { event: toNewEvent(input) }, settings(call));
    },
    async findRequestKeys(tokenId, keys, call) {
      const response = await callUnary(client.findRequestKeys.bind(client), { tokenId: tokenId ?? '', idempotencyKeys: keys }, settings(call));
      return new Map(response.keys.map((k) => [k.idempotencyKey, k.requestHash]));
    },
    async getEvent(id, call) {
      const response = await callUnary(client.getEvent.bind(client), { id }, settings(call));
      return toRecordedEvent(required(response.event, 'GetEvent', 'event'));
    },
    async getDevice(deviceName, call) {
      const response = await callUnary(client.getDevice.bind(client), { deviceName }, settings(call));
      return toDeviceRecord(required(response.device, 'GetDevice', 'device'));
    },
    async getObject(id, call) {
      const response = await callUnary(client.getObject.bind(client), { id }, settings(call));
      return toObjectRecord(required(response.object, 'GetObject', 'object'));
    },
    async getEventType(domain, eventType, call) {
      const response = await callUnary(client.getEventType.bind(client), { domain, eventType }, settings(call));
      return toEventTypeRecord(required(response.eventType, 'GetEventType', 'event_type'));
    },
    isServing: (deadlineMs) => health.isServing(REGISTRY_SERVICE_NAME, deadlineMs),
    close() {
      client.close();
      health.close();
    },
  };
}

function toNewEvent(input: EventInput): registry.NewEvent {
  return {
    source: { ...input.source },
    eventType: { ...input.eventType },
    additionalProperties: input.properties.map(({ key, value }) => ({ key, value })),
    images: [...input.images],
    videoClips: [...input.videoClips],
    idempotencyKey: input.idempotency?.key ?? '',
    requestHash: input.idempotency?.requestHash ?? '',
    tokenId: input.tokenId ?? '',
    occurredAt: input.occurredAt,
  };
}

