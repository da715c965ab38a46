/**
 * The coalescer on its own, with a `run` the test answers by hand: when batches leave, what they
 * carry, how the queue is bounded, and that one item's (or one batch's) failure stays its own.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError, createCoalescer, type CoalescerOptions, type ItemResult } from '../src/index.js';

interface Item {
  id: string;
  bytes: number;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** One event-loop turn: everything the coalescer scheduled with setImmediate before it has run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * How a promise stands after `n` event-loop turns, without waiting for it any longer (so a hang
 * fails the test at once instead of at the test timeout). A rejection is returned, not thrown.
 */
async function settledWithin<T>(promise: Promise<T>, n = 20): Promise<{ state: 'resolved'; value: T } | { state: 'rejected'; error: unknown } | { state: 'pending' }> {
  let outcome: { state: 'resolved'; value: T } | { state: 'rejected'; error: unknown } | { state: 'pending' } = { state: 'pending' };
  promise.then(
    (value) => (outcome = { state: 'resolved', value }),
    (error: unknown) => (outcome = { state: 'rejected', error }),
  );
  for (let i = 0; i < n && outcome.state === 'pending'; i++) await turn();
  return outcome;
}

/** Settled before the next macrotask: the answer did not wait for any flush, batch or timer. */
async function settledAtOnce<T>(promise: Promise<T>): Promise<'resolved' | 'rejected' | 'pending'> {
  return Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    turn().then(() => 'pending' as const),
  ]);
}

const ok = (item: Item): ItemResult<string> => ({ ok: true, value: `done:${item.id}` });

/**
 * A coalescer whose batches are held until the test answers them: `batches` lists what each `run`
 * received; `answer(i)` resolves batch i with one ok result per item (or the given results).
 */
function harness(overrides: Partial<CoalescerOptions<Item, string>> = {}) {
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

const item = (id: string, bytes = 10): Item => ({ id, bytes });
const items = (prefix: string, n: number, bytes = 10): Item[] => Array.from({ length: n }, (_, i) => item(`${prefix}${i}`, bytes));

afterEach(() => {
  vi.useRealTimers();
});

describe('createCoalescer: when batches leave', () => {
  it('sends a lone item at once: no timer is involved (only setImmediate is real, timers never advance)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const seen: string[][] = [];
    const coalescer = createCoalescer<Item, string>({
      run: async (batch) => {
        seen.push(batch.map((i) => i.id));
        return batch.map(ok);
      },
      maxInFlight: 4,
      maxBatchItems: 100,
      maxBatchBytes: 1000,
      sizeOf: (i) => i.bytes,
      maxQueuedItems: 100,
      maxQueuedBytes: 1000,
      overloaded: () => new Error('overloaded'),
    });
    const result = await settledWithin(coalescer.submit(item('alone')), 5);
    expect(result).toEqual({ state: 'resolved', value: 'done:alone' });
    expect(seen).toEqual([['alone']]);
    // Nothing was left on a (fake) timer either.
    expect(vi.getTimerCount()).toBe(0);
    expect(coalescer.pending()).toBe(0);
  });

  it('sends everything submitted in one turn as one batch when one slot is free', async () => {
    const h = harness({ maxInFlight: 1 });
    const promises = items('a', 5).map((i) => h.coalescer.submit(i));
    expect(h.batches).toEqual([]); // not synchronously: the turn may still add items
    await turn();
    expect(h.ids()).toEqual([['a0', 'a1', 'a2', 'a3', 'a4']]);
    h.answer(0);
    expect(await Promise.all(promises)).toEqual(['done:a0', 'done:a1', 'done:a2', 'done:a3', 'done:a4']);
  });

  it('never runs more than maxInFlight batches, however the items arrive', async () => {
    const h = harness({ maxInFlight: 2, maxBatchItems: 3 });
    const promises: Array<Promise<string>> = [];
    for (let round = 0; round < 10; round++) {
      for (const i of items(`r${round}-`, 4)) promises.push(h.coalescer.submit(i));
      await turn();
      expect(h.open()).toBeLessThanOrEqual(2);
      // Answer the oldest open batch now and then, so slots free up while items keep coming.
      if (round % 3 === 2) h.answer(h.batches.length - h.open());
    }
    await h.drain();
    expect(h.maxRunning()).toBe(2);
    expect((await Promise.all(promises)).length).toBe(40);
    expect(h.batches.flat().map((i) => i.id).sort()).toEqual(promises.map((_, n) => `r${Math.floor(n / 4)}-${n % 4}`).sort());
  });

  it('queues items while every slot is busy and sends them together when one batch ends', async () => {
    const h = harness({ maxInFlight: 2 });
    const first = h.coalescer.submit(item('first'));
    await turn();
    const second = h.coalescer.submit(item('second'));
    await turn();
    expect(h.ids()).toEqual([['first'], ['second']]);
    // Both slots busy: these arrive over several turns and wait.
    const waiting: Array<Promise<string>> = [];
    for (const i of items('w', 5)) {
      waiting.push(h.coalescer.submit(i));
      await turn();
    }
    expect(h.batches).toHaveLength(2);
    expect(h.coalescer.pending()).toBe(7);
    h.answer(0);
    await turn();
    expect(h.ids()[2]).toEqual(['w0', 'w1', 'w2', 'w3', 'w4']);
    expect(await first).toBe('done:first');
    h.answer(1);
    h.answer(2);
    expect(await second).toBe('done:second');
    expect(await Promise.all(waiting)).toEqual(['done:w0', 'done:w1', 'done:w2', 'done:w3', 'done:w4']);
    expect(h.coalescer.pending()).toBe(0);
  });
});

describe('createCoalescer: batch limits', () => {
  it('cuts batches at maxBatchItems', async () => {
    const h = harness({ maxInFlight: 1, maxBatchItems: 3 });
    const promises = items('c', 7).map((i) => h.coalescer.submit(i));
    await h.drain();
    expect(h.batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(h.batches.flat().map((i) => i.id)).toEqual(items('c', 7).map((i) => i.id));
    expect(await Promise.all(promises)).toHaveLength(7);
  });

  it('cuts batches at maxBatchBytes (a batch may fill it exactly) and reports each batch to onBatch', async () => {
    const h = harness({ maxInFlight: 1, maxBatchBytes: 100 });
    const promises = [...items('b', 5, 40), ...items('e', 4, 50)].map((i) => h.coalescer.submit(i));
    await h.drain();
    // 40 + 40 = 80 fits, a third 40 would not; then 40 + 50 = 90; then 50 + 50 = 100 exactly.
    expect(h.ids()).toEqual([['b0', 'b1'], ['b2', 'b3'], ['b4', 'e0'], ['e1', 'e2'], ['e3']]);
    expect(h.sent).toEqual([
      [2, 80],
      [2, 80],
      [2, 90],
      [2, 100],
      [1, 50],
    ]);
    expect(await Promise.all(promises)).toHaveLength(9);
  });

  it('sends an item larger than maxBatchBytes alone instead of never', async () => {
    const h = harness({ maxInFlight: 1, maxBatchBytes: 100 });
    const promises = [item('s1', 30), item('big', 500), item('s2', 30), item('s3', 30)].map((i) => h.coalescer.submit(i));
    await h.drain();
    expect(h.ids()).toEqual([['s1'], ['big'], ['s2', 's3']]);
    expect(await Promise.all(promises)).toEqual(['done:s1', 'done:big', 'done:s2', 'done:s3']);

    const alone = harness({ maxInFlight: 1, maxBatchBytes: 100 });
    const big = alone.coalescer.submit(item('huge', 10_000));
    await alone.drain();
    expect(await big).toBe('done:huge');
  });
});

describe('createCoalescer: a bounded queue', () => {
  it('refuses with overloaded() at once when maxQueuedItems wait, and pending() stays bounded', async () => {
    const h = harness({ maxInFlight: 1, maxQueuedItems: 3 });
    const inFlight = h.coalescer.submit(item('held'));
    await turn(); // it left: the queue is empty again, the only slot busy
    const queued = items('q', 3).map((i) => h.coalescer.submit(i));
    const refused = items('x', 50).map((i) => h.coalescer.submit(i));
    expect(await Promise.all(refused.map(settledAtOnce))).toEqual(Array(50).fill('rejected'));
    expect(await Promise.all(refused.map((p) => p.catch((e: unknown) => e)))).toEqual(Array(50).fill(h.overloadedError));
    expect(h.coalescer.pending()).toBe(4);
    expect(h.batches).toHaveLength(1);

    h.answer(0);
    await turn();
    expect(h.ids()[1]).toEqual(['q0', 'q1', 'q2']);
    // Room again while the queued items are out.
    const later = h.coalescer.submit(item('later'));
    h.answer(1);
    await h.drain();
    expect(await inFlight).toBe('done:held');
    expect(await Promise.all(queued)).toEqual(['done:q0', 'done:q1', 'done:q2']);
    expect(await later).toBe('done:later');
    expect(h.coalescer.pending()).toBe(0);
  });

  it('refuses with overloaded() at once when the waiting bytes would pass maxQueuedBytes', async () => {
    const h = harness({ maxInFlight: 1, maxQueuedBytes: 100 });
    const inFlight = h.coalescer.submit(item('held', 90));
    await turn();
    const queued = [h.coalescer.submit(item('q0', 40)), h.coalescer.submit(item('q1', 40))];
    const tooMuch = h.coalescer.submit(item('x', 40)); // 120 > 100
    expect(await settledAtOnce(tooMuch)).toBe('rejected');
    await expect(tooMuch).rejects.toBe(h.overloadedError);
    const fits = h.coalescer.submit(item('fits', 20)); // exactly 100
    expect(await settledAtOnce(fits)).toBe('pending');
    const nothingMore = h.coalescer.submit(item('y', 1));
    await expect(nothingMore).rejects.toBe(h.overloadedError);
    expect(h.coalescer.pending()).toBe(4);
    await h.drain();
    expect(await inFlight).toBe('done:held');
    expect(await Promise.all([...queued, fits])).toEqual(['done:q0', 'done:q1', 'done:fits']);
    expect(h.ids()).toEqual([['held'], ['q0', 'q1', 'fits']]);
  });

  it('accepts one item larger than maxQueuedBytes when nothing waits (it could never be sent otherwise)', async () => {
    const h = harness({ maxInFlight: 1, maxQueuedBytes: 100, maxBatchBytes: 100 });
    const big = h.coalescer.submit(item('big', 1000));
    expect(await settledAtOnce(big)).toBe('pending');
    await h.drain();
    expect(await big).toBe('done:big');
  });
});

describe('createCoalescer: cancellation and failures', () => {
  it('drops an item whose caller went away before it left: CANCELLED, and run never sees it', async () => {
    const h = harness({ maxInFlight: 1 });
    const held = h.coalescer.submit(item('held'));
    await turn();
    const signal = { aborted: false };
    const gone = h.coalescer.submit(item('gone'), signal).catch((e: unknown) => e);
    const stays = h.coalescer.submit(item('stays'), { aborted: false });
    await turn();
    signal.aborted = true;
    h.answer(0);
    await h.drain();
    expect(h.ids()).toEqual([['held'], ['stays']]);
    const err = await gone;
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('CANCELLED');
    expect(await held).toBe('done:held');
    expect(await stays).toBe('done:stays');
    expect(h.coalescer.pending()).toBe(0);
  });

  it('sends nothing at all when every item of a turn was already abandoned', async () => {
    const h = harness({ maxInFlight: 1 });
    const abandoned = items('a', 3).map((i) => h.coalescer.submit(i, { aborted: true }));
    const results = await Promise.all(abandoned.map((p) => settledWithin(p)));
    expect(results.map((r) => r.state)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect(r).toMatchObject({ error: { code: 'CANCELLED' } });
    expect(h.batches).toEqual([]);
    // The slot was not taken by an empty batch.
    const next = h.coalescer.submit(item('next'));
    await h.drain();
    expect(await next).toBe('done:next');
  });

  it('keeps an item that already left when its caller goes away afterwards', async () => {
    const h = harness({ maxInFlight: 1 });
    const signal = { aborted: false };
    const sent = h.coalescer.submit(item('sent'), signal);
    await turn();
    signal.aborted = true;
    h.answer(0);
    expect(await sent).toBe('done:sent');
  });

  it('gives each item its own result: an error reaches only its item', async () => {
    const h = harness({ maxInFlight: 1 });
    const refusal = new AppError('INVALID_ARGUMENT', 'item b is refused', { field: 'b', rule: 'test' });
    const promises = ['a', 'b', 'c'].map((id) => h.coalescer.submit(item(id)));
    await turn();
    h.answer(0, [ok(item('a')), { ok: false, error: refusal }, ok(item('c'))]);
    const settled = await Promise.allSettled(promises);
    expect(settled).toEqual([
      { status: 'fulfilled', value: 'done:a' },
      { status: 'rejected', reason: refusal },
      { status: 'fulfilled', value: 'done:c' },
    ]);
  });

  it('fails only the batch whose run rejected; the batch queued behind it still runs', async () => {
    const h = harness({ maxInFlight: 1 });
    const doomed = ['d0', 'd1'].map((id) => h.coalescer.submit(item(id)));
    await turn();
    const next = ['n0', 'n1'].map((id) => h.coalescer.submit(item(id)));
    await turn();
    const outage = new Error('connection reset');
    const doomedSettled = Promise.allSettled(doomed);
    h.fail(0, outage);
    expect(await doomedSettled).toEqual([
      { status: 'rejected', reason: outage },
      { status: 'rejected', reason: outage },
    ]);
    await h.drain();
    expect(h.ids()).toEqual([['d0', 'd1'], ['n0', 'n1']]);
    expect(await Promise.all(next)).toEqual(['done:n0', 'done:n1']);
    expect(h.coalescer.pending()).toBe(0);
  });

  it('fails only the batch whose run threw synchronously, and frees its slot', async () => {
    const thrown = new Error('thrown before any promise');
    let calls = 0;
    const coalescer = createCoalescer<Item, string>({
      run(batch) {
        calls++;
        if (batch.some((i) => i.id.startsWith('throw'))) throw thrown;
        return Promise.resolve(batch.map(ok));
      },
      maxInFlight: 1,
      maxBatchItems: 10,
      maxBatchBytes: 1000,
      sizeOf: (i) => i.bytes,
      maxQueuedItems: 100,
      maxQueuedBytes: 1000,
      overloaded: () => new Error('overloaded'),
    });
    const failing = ['throw0', 'throw1'].map((id) => coalescer.submit(item(id)));
    const results = await Promise.all(failing.map((p) => settledWithin(p)));
    expect(results).toEqual([
      { state: 'rejected', error: thrown },
      { state: 'rejected', error: thrown },
    ]);
    // With one slot, a leaked slot would leave this one waiting forever.
    expect(await settledWithin(coalescer.submit(item('after')))).toEqual({ state: 'resolved', value: 'done:after' });
    expect(calls).toBe(2);
    expect(coalescer.pending()).toBe(0);
  });

  it('fails the batch whose run answered the wrong number of results, never pairing results with the wrong items', async () => {
    const h = harness({ maxInFlight: 1 });
    const short = ['a', 'b', 'c'].map((id) => h.coalescer.submit(item(id)));
    await turn();
    const next = h.coalescer.submit(item('next'));
    h.answer(0, [ok(item('a')), ok(item('b'))]);
    const settled = await Promise.all(short.map((p) => settledWithin(p)));
    expect(settled.map((s) => s.state)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const s of settled) expect((s as { error: Error }).error.message).toMatch(/3.*2/);
    await h.drain();
    expect(await next).toBe('done:next');

    const long = harness({ maxInFlight: 1 });
    const one = long.coalescer.submit(item('one'));
    await turn();
    long.answer(0, [ok(item('one')), ok(item('extra'))]);
    await expect(one).rejects.toThrow();
  });
});
