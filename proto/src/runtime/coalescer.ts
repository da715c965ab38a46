import { AppError } from '../contract/app-error.js';

/** What a batch answers for one of its items: a value, or an error that concerns that item alone. */
export type ItemResult<O> = { ok: true; value: O } | { ok: false; error: unknown };

/** How a coalescer groups items into batches and how far its queue may grow. */
export interface CoalescerOptions<I, O> {
  /** Runs one batch; resolves with one result per item, in order. A rejection fails every item of the batch. */
  run(items: I[]): Promise<ItemResult<O>[]>;
  /** Batches running at once. Items arriving while all are busy wait, and leave together when one ends. */
  maxInFlight: number;
  /** Items in one batch. */
  maxBatchItems: number;
  /** Bytes in one batch (by `sizeOf`); an item larger than this alone still goes, alone. */
  maxBatchBytes: number;
  sizeOf(item: I): number;
  /** Items waiting (not yet sent). Beyond it, or beyond maxQueuedBytes, `submit` rejects with `overloaded()`. */
  maxQueuedItems: number;
  maxQueuedBytes: number;
  overloaded(): Error;
  /** Called for every batch sent (metrics). */
  onBatch?(items: number, bytes: number): void;
  /** Where the time goes (metrics): each item's wait until its batch left, each batch's time until it was answered. */
  timing?: CoalescerTiming;
}

/** Milliseconds, as performance.now() measures them. */
export interface CoalescerTiming {
  waited(ms: number): void;
  ran(ms: number): void;
}

/** Groups concurrent submissions into batches ("natural batching": no timer, no wait when idle). */
interface Coalescer<I, O> {
  /** Resolves with the item's own result. An aborted `signal` drops an item that has not left yet (CANCELLED). */
  submit(item: I, signal?: { readonly aborted: boolean }): Promise<O>;
  /** Items waiting plus items in batches not yet answered. */
  pending(): number;
  /** Items waiting, not yet sent: what `maxQueuedItems` bounds. */
  waiting(): number;
}

interface Waiting<I, O> {
  item: I;
  bytes: number;
  signal: { readonly aborted: boolean } | undefined;
  resolve(value: O): void;
  reject(error: unknown): void;
  /** performance.now() at submit, when timings are asked for. */
  at: number;
}

/** Runs a batch and settles each waiter with its own result; a run that throws or miscounts rejects them all. */
async function settle<I, O>(batch: Array<Waiting<I, O>>, run: () => Promise<Array<ItemResult<O>>>): Promise<void> {
  try {
    const results = await run();
    if (results.length !== batch.length) throw new Error(`batch of ${batch.length} answered ${results.length} results`);
    batch.forEach((w, i) => {
      const result = results[i]!;
      if (result.ok) w.resolve(result.value);
      else w.reject(result.error);
    });
  } catch (err) {
    for (const w of batch) w.reject(err);
  }
}

/**
 * Creates a coalescer. Nothing waits on a timer: the first submission of an event-loop turn schedules
 * a flush for the end of that turn (setImmediate), so everything submitted in the same turn leaves in
 * one batch and a lone request leaves at once. While `maxInFlight` batches run, new items queue; each
 * finished batch sends what queued meanwhile. Under load, batches therefore grow with the load itself.
 */
export function createCoalescer<I, O>(options: CoalescerOptions<I, O>): Coalescer<I, O> {
  const queue: Array<Waiting<I, O>> = [];
  let queuedBytes = 0;
  let inFlight = 0;
  let inFlightItems = 0;
  let scheduled = false;

  function takeBatch(): Array<Waiting<I, O>> {
    const batch: Array<Waiting<I, O>> = [];
    let bytes = 0;
    let count = 0;
    while (count < queue.length && batch.length < options.maxBatchItems) {
      const next = queue[count]!;
      if (batch.length > 0 && bytes + next.bytes > options.maxBatchBytes) break;
      count++;
      queuedBytes -= next.bytes;
      if (next.signal?.aborted) {
        next.reject(new AppError('CANCELLED', 'the caller went away before the event was sent'));
        continue;
      }
      batch.push(next);
      bytes += next.bytes;
    }
    queue.splice(0, count);
    return batch;
  }

  function send(batch: Array<Waiting<I, O>>): void {
    let bytes = 0;
    for (const w of batch) bytes += w.bytes;
    inFlight++;
    inFlightItems += batch.length;
    options.onBatch?.(batch.length, bytes);
    const { timing } = options;
    const left = timing ? performance.now() : 0;
    if (timing) for (const w of batch) timing.waited(left - w.at);
    void settle(batch, () => options.run(batch.map((w) => w.item))).finally(() => {
      timing?.ran(performance.now() - left);
      inFlight--;
      inFlightItems -= batch.length;
      flush();
    });
  }

  function flush(): void {
    scheduled = false;
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const batch = takeBatch();
      if (batch.length > 0) send(batch);
    }
  }

  return {
    submit(item, signal) {
      const bytes = options.sizeOf(item);
      if (queue.length >= options.maxQueuedItems || (queue.length > 0 && queuedBytes + bytes > options.maxQueuedBytes)) {
        return Promise.reject(options.overloaded());
      }
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, bytes, signal, resolve, reject, at: options.timing ? performance.now() : 0 });
        queuedBytes += bytes;
        if (!scheduled && inFlight < options.maxInFlight) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    pending: () => queue.length + inFlightItems,
    waiting: () => queue.length,
  };
}
