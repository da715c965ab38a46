/**
 * The coalescer on its own, with a `run` the test answers by hand (coalescer-harness.ts):
 * items whose caller went away, and one result per item.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/contract/index.js';
import { harness, item, items, ok, settledWithin, turn } from './coalescer-harness.js';

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
});
