/**
 * Page slots (page-slots.ts): distinct pages held by watchers at once. A watcher asking for a page
 * another holds joins it at once; the others wait in turn, holding nothing, until a slot frees,
 * their client leaves or their keep-alive is due.
 */
import { describe, expect, it } from 'vitest';
import { createPageSlots } from '../src/watch/page-slots.js';

const never = new AbortController().signal;
const pending = Symbol('pending');
/** What `promise` settled with by the next macrotask, or `pending`. */
const now = <T>(promise: Promise<T>): Promise<T | typeof pending> => Promise.race([promise, new Promise<typeof pending>((resolve) => setTimeout(() => resolve(pending), 5))]);

describe('page slots', () => {
  it('grants a slot per distinct page up to the bound; a page already held is joined at once', async () => {
    const slots = createPageSlots(2);
    const a = await slots.acquire('a', never, 1000);
    const b = await slots.acquire('b', never, 1000);
    expect(slots.held).toBe(2);
    const c = slots.acquire('c', never, 1000);
    expect(await now(c)).toBe(pending);
    // Joining a held page costs no slot, even with a watcher waiting.
    const a2 = await now(slots.acquire('a', never, 1000));
    expect(typeof a2).toBe('function');
    a!();
    expect(await now(c)).toBe(pending); // 'a' is still held by the second watcher
    (a2 as () => void)();
    expect(typeof (await now(c))).toBe('function');
    expect(slots.held).toBe(2);
    b!();
  });

  it('hands freed slots out in order of arrival, and lets a waiter for a page that became held join it', async () => {
    const slots = createPageSlots(1);
    const first = await slots.acquire('p1', never, 1000);
    const order: string[] = [];
    const waiters = ['p2', 'p3', 'p1'].map((key) => slots.acquire(key, never, 1000).then((release) => (order.push(key), release)));
    // 'p1' is held: its waiter joins at once, ahead of the others.
    await now(waiters[2]!);
    expect(order).toEqual(['p1']);
    first!();
    (await waiters[2]!)!();
    expect((await now(waiters[0]!)) === pending).toBe(false);
    expect(await now(waiters[1]!)).toBe(pending);
    (await waiters[0]!)!();
    (await waiters[1]!)!();
    expect(order).toEqual(['p1', 'p2', 'p3']);
    expect(slots.held).toBe(0);
  });

  it('answers undefined when the wait outlasts its time or its client leaves, and forgets the waiter', async () => {
    const slots = createPageSlots(1);
    const held = await slots.acquire('a', never, 1000);
    expect(await slots.acquire('b', never, 10)).toBeUndefined();
    const leaving = new AbortController();
    const waiting = slots.acquire('c', leaving.signal, 10_000);
    leaving.abort();
    expect(await waiting).toBeUndefined();
    held!();
    // Nobody waits any more: the next page gets the slot at once.
    expect(typeof (await now(slots.acquire('d', never, 1000)))).toBe('function');
  });

  it('hands nothing to a waiter whose client left in the same turn as the slot freed, and frees the slot again', async () => {
    const slots = createPageSlots(1);
    const first = await slots.acquire('a', never, 1000);
    const leaving = new AbortController();
    const waiting = slots.acquire('b', leaving.signal, 10_000);
    // Clients closing together: the holder's goes first, the waiter's right after, in one turn.
    first!();
    leaving.abort();
    expect(await waiting).toBeUndefined();
    expect(slots.held).toBe(0);
  });

  it('releases a slot once, however often its release is called', async () => {
    const slots = createPageSlots(1);
    const a = await slots.acquire('a', never, 1000);
    const b = slots.acquire('b', never, 1000);
    a!();
    a!();
    const release = await b;
    expect(slots.held).toBe(1);
    const c = slots.acquire('c', never, 1000);
    a!();
    expect(await now(c)).toBe(pending);
    release!();
    (await c)!();
    expect(slots.held).toBe(0);
  });
});
