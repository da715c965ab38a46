/**
 * The coalescer on its own, with a `run` the test answers by hand (coalescer-harness.ts):
 * a batch whose run fails stays its own failure.
 */
import { describe, expect, it } from 'vitest';
import { createCoalescer } from '../src/runtime/index.js';
import { harness, item, ok, settledWithin, turn, type Item } from './coalescer-harness.js';

describe('createCoalescer: cancellation and failures', () => {
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
