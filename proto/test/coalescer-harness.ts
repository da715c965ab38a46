/**
 * Shared set-up of the coalescer-*.test.ts files: the coalescer on its own, with a `run` the test
 * answers by hand, and helpers that tell how a promise stands after a few event-loop turns.
 */
import { AppError } from '../src/contract/index.js';
import { createCoalescer, type ItemResult } from '../src/runtime/index.js';
import { type CoalescerOptions } from '../src/runtime/coalescer.js';

export interface Item {
  id: string;
  bytes: number;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** One event-loop turn: everything the coalescer scheduled with setImmediate before it has run. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * How a promise stands after `n` event-loop turns, without waiting for it any longer (so a hang
 * fails the test at once instead of at the test timeout). A rejection is returned, not thrown.
 */
export async function settledWithin<T>(promise: Promise<T>, n = 20): Promise<{ state: 'resolved'; value: T } | { state: 'rejected'; error: unknown } | { state: 'pending' }> {
  let outcome: { state: 'resolved'; value: T } | { state: 'rejected'; error: unknown } | { state: 'pending' } = { state: 'pending' };
  promise.then(
    (value) => (outcome = { state: 'resolved', value }),
    (error: unknown) => (outcome = { state: 'rejected', error }),
  );
  for (let i = 0; i < n && outcome.state === 'pending'; i++) await turn();
  return outcome;
}

/** Settled before the next macrotask: the answer did not wait for any flush, batch or timer. */
export async function settledAtOnce<T>(promise: Promise<T>): Promise<'resolved' | 'rejected' | 'pending'> {
  return Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    turn().then(() => 'pending' as const),
  ]);
}

export const ok = (item: Item): ItemResult<string> => ({ ok: true, value: `done:${item.id}` });

/**
 * A coalescer whose batches are held until the test answers them: `batches` lists what each `run`
 * received; `answer(i)` resolves batch i with one ok result per item (or the given results).
 */
export function harness(overrides: Partial<CoalescerOptions<Item, string>> = {}) {
  const batches: Item[][] = [];
  const held: Array<Deferred<Array<ItemResult<string>>>> = [];
  const answered = new Set<number>();
  const sent: Array<[number, number]> = [];
  let running = 0;
  let maxRunning = 0;
  const overloadedError = new AppError('UNAVAILABLE', 'test queue is full', { rule: 'overloaded', retryAfterSeconds: 1 });
  const coalescer = createCoalescer<Item, string>({
    run(items) {
      batches.push(items);
      const d = deferred<Array<ItemResult<string>>>();
      held.push(d);
      running++;
      maxRunning = Math.max(maxRunning, running);
      return d.promise.finally(() => running--);
    },
    maxInFlight: 1,
    maxBatchItems: 1000,
    maxBatchBytes: 1_000_000,
    sizeOf: (item) => item.bytes,
    maxQueuedItems: 1000,
    maxQueuedBytes: 1_000_000,
    overloaded: () => overloadedError,
    onBatch: (items, bytes) => sent.push([items, bytes]),
    ...overrides,
  });
  return {
    coalescer,
    batches,
    sent,
    overloadedError,
    maxRunning: () => maxRunning,
    ids: () => batches.map((b) => b.map((i) => i.id)),
    /** Batches sent and not answered yet. */
    open: () => batches.length - answered.size,
    answer(index: number, results?: Array<ItemResult<string>>) {
      answered.add(index);
      held[index]!.resolve(results ?? batches[index]!.map(ok));
    },
    fail(index: number, error: unknown) {
      answered.add(index);
      held[index]!.reject(error);
    },
    /** Answers every batch sent so far and every one sent while doing so, until nothing is held. */
    async drain() {
      for (let i = 0; i < 1000; i++) {
        await turn();
        const open = held.findIndex((_, n) => !answered.has(n));
        if (open === -1) return;
        answered.add(open);
        held[open]!.resolve(batches[open]!.map(ok));
      }
      throw new Error('batches kept coming');
    },
  };
}

export const item = (id: string, bytes = 10): Item => ({ id, bytes });
export const items = (prefix: string, n: number, bytes = 10): Item[] => Array.from({ length: n }, (_, i) => item(`${prefix}${i}`, bytes));
