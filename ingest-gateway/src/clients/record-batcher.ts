import { AppError, fromItemStatus, type registry } from '@dynamic-events/proto';
import { createCoalescer, type CoalescerTiming, type ItemResult } from '@dynamic-events/proto/runtime';
import type { CallOptions } from '../model.js';

/** One event on its way to the registry, with the request id it arrived with. */
interface Pending {
  event: registry.NewEvent;
  requestId: string | undefined;
}

/**
 * Where a RecordEvents batch is cut: far larger batches brought nothing measurable. An event larger
 * than this still goes, alone (the registry's channel takes any event the documented limits accept).
 */
export const RECORD_BATCH_MAX_BYTES = 1024 * 1024;

/** How the gateway coalesces events into RecordEvents calls (from the config). */
export interface RecordBatcherOptions {
  /** RecordEvents calls outstanding at once; events arriving meanwhile leave together in the next one. */
  maxInFlight: number;
  maxBatchEvents: number;
  /** Encoded bytes of one RecordEvents request (RECORD_BATCH_MAX_BYTES in production). */
  maxBatchBytes: number;
  /** Events waiting for a call, and their encoded bytes: beyond either, requests get 503 at once. */
  maxQueuedEvents: number;
  maxQueuedBytes: number;
  onBatch?(events: number, bytes: number): void;
  /** Each event's wait before its call left, each call's time until answered (metrics). */
  timing?: CoalescerTiming;
}

/** Sends one event; resolves with the registry's answer for that event alone. */
type RecordBatcher = ((event: registry.NewEvent, call: CallOptions) => Promise<registry.RecordEventResponse>) & {
  /** Events waiting for a call (bounded by maxQueuedEvents). */
  waiting(): number;
};

/** Sends one batch and resolves with the registry's answer (a message on a lane: registry.ts); its deadline is the sender's. */
type SendBatch = (batch: registry.RecordEventsRequest) => Promise<registry.RecordEventsResponse>;

/**
 * Coalesces the events of concurrent HTTP requests into RecordEvents batches: one gRPC message each
 * way and one SQL statement carry as many events as arrived while the previous batches were out. A lone request
 * leaves at once. Each request still gets its own answer: an event the registry refused fails alone.
 */
export function createRecordBatcher(send: SendBatch, options: RecordBatcherOptions): RecordBatcher {
  const coalescer = createCoalescer<Pending, registry.RecordEventResponse>({
    async run(items) {
      const response = await send({ events: items.map((i) => i.event), requestIds: items.map((i) => i.requestId ?? '') });
      return response.results.map(toItemResult);
    },
    maxInFlight: options.maxInFlight,
    maxBatchItems: options.maxBatchEvents,
    maxBatchBytes: options.maxBatchBytes,
    sizeOf: (item) => fieldSize(newEventSize(item.event)) + fieldSize(Buffer.byteLength(item.requestId ?? '')),
    maxQueuedItems: options.maxQueuedEvents,
    maxQueuedBytes: options.maxQueuedBytes,
    overloaded: () =>
      new AppError('UNAVAILABLE', 'too many events are waiting to be recorded; retry later', { rule: 'overloaded', retryAfterSeconds: 1 }),
    onBatch: options.onBatch,
    timing: options.timing,
  });
  return Object.assign((event: registry.NewEvent, call: CallOptions) => coalescer.submit({ event, requestId: call.requestId }, call.gone), { waiting: coalescer.waiting });
}

function toItemResult(result: registry.RecordEventResult): ItemResult<registry.RecordEventResponse> {
  if (result.recorded) return { ok: true, value: result.recorded };
  if (result.error) return { ok: false, error: fromItemStatus(result.error) };
  return { ok: false, error: new Error('registry RecordEvents result has neither recorded nor error') };
}

/** Bytes of a length-delimited field (tag, length varint, payload): protobuf's own arithmetic. */
function fieldSize(bytes: number): number {
  let varint = 1;
  for (let n = bytes; n >= 0x80; n >>>= 7) varint++;
  return 1 + varint + bytes;
}

const stringField = (value: string): number => (value === '' ? 0 : fieldSize(Buffer.byteLength(value)));

/** Bytes of a varint of `value` (a negative int64 takes ten). */
function varintSize(value: bigint): number {
  if (value < 0n) return 10;
  let bytes = 1;
  for (let n = value; n >= 0x80n; n >>= 7n) bytes++;
  return bytes;
}

/** A google.protobuf.Timestamp field: seconds (1) and nanos (2), each only when not zero. */
function timestampField(ts: { seconds: string; nanos: number } | undefined): number {
  if (ts === undefined) return 0;
  const seconds = BigInt(ts.seconds);
  return fieldSize((seconds === 0n ? 0 : 1 + varintSize(seconds)) + (ts.nanos === 0 ? 0 : 1 + varintSize(BigInt(ts.nanos))));
}

/** The encoded size of a NewEvent, exactly, without encoding it. */
export function newEventSize(event: registry.NewEvent): number {
  let bytes = 0;
  const source = event.source;
  if (source) {
    bytes += fieldSize(
      stringField(source.deviceName) + stringField(source.objectId) + stringField(source.objectDomain) + stringField(source.objectName) + stringField(source.objectType),
    );
  }
  const type = event.eventType;
  if (type) bytes += fieldSize(stringField(type.eventType) + stringField(type.displayName) + stringField(type.displayDescription));
  for (const p of event.additionalProperties) bytes += fieldSize(stringField(p.key) + stringField(p.value));
  for (const url of event.images) bytes += fieldSize(Buffer.byteLength(url));
  for (const url of event.videoClips) bytes += fieldSize(Buffer.byteLength(url));
  return bytes + stringField(event.idempotencyKey) + stringField(event.requestHash) + stringField(event.tokenId) + timestampField(event.occurredAt);
}
