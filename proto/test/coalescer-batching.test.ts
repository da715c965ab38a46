/**
 * The coalescer on its own, with a `run` the test answers by hand (coalescer-harness.ts):
 * when batches leave and what they carry.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCoalescer } from '../src/runtime/index.js';
import { harness, item, items, ok, settledWithin, turn, type Item } from './coalescer-harness.js';

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
