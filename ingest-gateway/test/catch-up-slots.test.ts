/** Catch-up streams at once (catch-up-slots.ts): the others wait in order, holding nothing, and may leave. */
import { describe, expect, it } from 'vitest';
import { createCatchUpSlots } from '../src/watch/catch-up-slots.js';

describe('catch-up slots', () => {
  it('grants up to its slots, then one per release, first come first served', async () => {
    const slots = createCatchUpSlots(2);
    const live = new AbortController().signal;
    const [a, b] = [await slots.acquire(live), await slots.acquire(live)];
    const order: string[] = [];
    const c = slots.acquire(live).then((free) => (order.push('c'), free));
    const d = slots.acquire(live).then((free) => (order.push('d'), free));
    expect(slots.taken).toBe(2);
    a();
    a(); // a second release of the same slot frees nothing more
    await c;
    expect(order).toEqual(['c']);
    expect(slots.taken).toBe(2);
    b();
    await d;
    expect(order).toEqual(['c', 'd']);
  });

  it('drops a waiter whose client left, without giving it a slot', async () => {
    const slots = createCatchUpSlots(1);
    const free = await slots.acquire(new AbortController().signal);
    const gone = new AbortController();
    const waiting = slots.acquire(gone.signal);
    gone.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    free();
    expect(slots.taken).toBe(0);
  });
});
