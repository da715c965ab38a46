/**
 * The coalescer on its own, with a `run` the test answers by hand (coalescer-harness.ts):
 * how the queue is bounded.
 */
import { describe, expect, it } from 'vitest';
import { harness, item, items, settledAtOnce, turn } from './coalescer-harness.js';

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
