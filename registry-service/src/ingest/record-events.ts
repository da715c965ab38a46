import { AppError } from '@dynamic-events/proto';
import { createCoalescer, type CoalescerTiming, type ItemResult } from '@dynamic-events/proto/runtime';
import type { NewEvent, RecordedEvent } from '../model.js';
import type { WriteEvents } from './write-events.js';

/** Group-commit settings (from the config). */
interface RecorderOptions {
  /** Statements writing events at once; calls arriving meanwhile are merged into the next one. */
  maxConcurrentWrites: number;
  /** Events in one statement. */
  maxBatchEvents: number;
  /** Approximate bytes of event data in one statement. */
  maxBatchBytes: number;
  /** Events waiting for a statement; beyond it calls are refused with UNAVAILABLE (retry later). */
  maxQueuedEvents: number;
  /** Each event's wait for a statement, each statement's time until it committed or failed (metrics). */
  timing?: CoalescerTiming;
}

/** Records validated events, each on its own: one refused event never fails another. */
export interface EventRecorder {
  /** One result per event, in order, once every recorded one is committed. */
  record(events: NewEvent[]): Promise<Array<ItemResult<RecordedEvent>>>;
}

/** The group commit: a recorder whose queue can be read (the registry_write_queue_events gauge). */
interface GroupCommit extends EventRecorder {
  /** Events waiting for a statement (bounded by maxQueuedEvents). */
  waiting(): number;
}

/** Rough size of an event's data, enough to keep one statement's parameters bounded. */
function sizeOf(event: NewEvent): number {
  let bytes = 256;
  for (const p of event.properties) bytes += p.key.length + p.value.length + 8;
  for (const url of event.images) bytes += url.length + 4;
  for (const url of event.videoClips) bytes += url.length + 4;
  return bytes;
}

/** A refusal caused by one caller's value (nothing was committed): worth splitting the group to find it. */
const CALLER_CODES = new Set(['INVALID_ARGUMENT', 'ALREADY_EXISTS', 'FAILED_PRECONDITION', 'PERMISSION_DENIED']);

/**
 * Writes a group of events in one statement. When a caller's value breaks the statement (nothing was
 * committed), the group is split in halves and each half tried again, so the offending event gets its
 * error alone and the others are still recorded. An outage or a database failure fails them all.
 */
async function writeIsolated(write: WriteEvents, events: NewEvent[]): Promise<Array<ItemResult<RecordedEvent>>> {
  try {
    return (await write(events)).map((value) => ({ ok: true, value }));
  } catch (err) {
    if (!(err instanceof AppError) || !CALLER_CODES.has(err.code)) throw err;
    if (events.length === 1) return [{ ok: false, error: err }];
    const middle = events.length >> 1;
    const [first, second] = await Promise.all([writeIsolated(write, events.slice(0, middle)), writeIsolated(write, events.slice(middle))]);
    return [...first, ...second];
  }
}

/**
 * Group commit: events of concurrent calls (several gateways, other platform services) are merged
 * into shared statements, so each commit (one WAL flush) carries as many events as arrived meanwhile.
 */
export function createEventRecorder(write: WriteEvents, options: RecorderOptions): GroupCommit {
  const coalescer = createCoalescer<NewEvent, RecordedEvent>({
    run: (events) => writeIsolated(write, events),
    maxInFlight: options.maxConcurrentWrites,
    maxBatchItems: options.maxBatchEvents,
    maxBatchBytes: options.maxBatchBytes,
    sizeOf,
    timing: options.timing,
    maxQueuedItems: options.maxQueuedEvents,
    maxQueuedBytes: Number.POSITIVE_INFINITY,
    overloaded: () => new AppError('UNAVAILABLE', 'the registry is overloaded: too many events waiting to be written; retry later', { rule: 'overloaded', retryAfterSeconds: 1 }),
  });

  return {
    async record(events) {
      const settled = await Promise.allSettled(events.map((event) => coalescer.submit(event)));
      return settled.map((s) => (s.status === 'fulfilled' ? { ok: true, value: s.value } : { ok: false, error: s.reason as unknown }));
    },
    waiting: coalescer.waiting,
  };
}
