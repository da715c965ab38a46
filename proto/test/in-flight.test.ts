/**
 * The one bound on what is in flight (in-flight.ts): units up to a limit, the others waiting in
 * order holding nothing; a key shares one unit; a wait ends when its caller leaves or its time is
 * up, whatever the garbage collector did meanwhile; a grant is answered after the turn that freed
 * it, so a caller that left in that turn gets nothing and its unit goes on; a release is idempotent.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter, type Release } from '../src/runtime/in-flight.js';

const never = new AbortController().signal;
const pending = Symbol('pending');
/** What `promise` settled with by the next macrotasks, or `pending`. */
const now = <T>(promise: Promise<T>): Promise<T | typeof pending> => Promise.race([promise, new Promise<typeof pending>((resolve) => setTimeout(() => resolve(pending), 5))]);

/** A full collection (the test process is not started with --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('a limiter', () => {
  it('grants up to its limit, then one per release, first come first served; a second release frees nothing', async () => {
    const limiter = createLimiter({ limit: 2 });
    const a = (await limiter.acquire())!;
    const b = (await limiter.acquire())!;
    const order: string[] = [];
    const c = limiter.acquire({ signal: never }).then((release) => (order.push('c'), release));
    const d = limiter.acquire({ signal: never }).then((release) => (order.push('d'), release));
    expect([limiter.held, limiter.waiting]).toEqual([2, 2]);
    a();
    a();
    await now(d);
    expect(order).toEqual(['c']);
    expect([limiter.held, limiter.waiting]).toEqual([2, 1]);
    b();
    (await c)!();
    (await d)!();
    expect(order).toEqual(['c', 'd']);
    expect(limiter.held).toBe(0);
  });

  it('takes at once only when a unit is free and nobody waits', async () => {
    const limiter = createLimiter({ limit: 1 });
    const first = limiter.tryAcquire()!;
    expect(limiter.tryAcquire()).toBeUndefined();
    const waiting = limiter.acquire();
    first();
    // The freed unit is the waiter's: a caller arriving meanwhile does not jump the queue.
    expect(limiter.tryAcquire()).toBeUndefined();
    (await waiting)!();
    expect(typeof limiter.tryAcquire()).toBe('function');
  });

  it('counts holders of one key as one unit: a caller of a key held joins it at once, ahead of waiters', async () => {
    const limiter = createLimiter({ limit: 1 });
    const p1 = (await limiter.acquire({ key: 'p1' }))!;
    const p2 = limiter.acquire({ key: 'p2' });
    const joined = await now(limiter.acquire({ key: 'p1' }));
    expect(typeof joined).toBe('function');
    expect(limiter.held).toBe(1);
    p1();
    expect(await now(p2)).toBe(pending);
    (joined as Release)();
    (await p2)!();
    expect(limiter.held).toBe(0);
  });

  it('answers undefined when the caller leaves or its time is up, and forgets the waiter', async () => {
    const limiter = createLimiter({ limit: 1 });
    const held = limiter.tryAcquire()!;
    expect(await limiter.acquire({ timeoutMs: 10 })).toBeUndefined();
    const leaving = new AbortController();
    const waiting = limiter.acquire({ signal: leaving.signal });
    leaving.abort();
    expect(await waiting).toBeUndefined();
    expect(await limiter.acquire({ signal: leaving.signal })).toBeUndefined();
    expect(limiter.waiting).toBe(0);
    held();
    expect(typeof limiter.tryAcquire()).toBe('function');
  });

  it('ends a wait at its time even after a full collection while it waits', async () => {
    const limiter = createLimiter({ limit: 1 });
    limiter.tryAcquire();
    const started = Date.now();
    const wait = limiter.acquire({ timeoutMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    collectGarbage();
    const verdict = await Promise.race([wait, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3000))]);
    expect(verdict).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

});

describe('a limiter, when its callers leave', () => {
  it('answers a grant after the turn: a caller that left in that turn gets nothing, and the unit goes to the next', async () => {
    const limiter = createLimiter({ limit: 1 });
    const first = limiter.tryAcquire()!;
    const leaving = new AbortController();
    const gone = limiter.acquire({ signal: leaving.signal, timeoutMs: 10_000 });
    const next = limiter.acquire({ signal: never });
    // Clients closing together: the holder's goes first, the waiter's right after, in one turn.
    first();
    leaving.abort();
    expect(await gone).toBeUndefined();
    const release = await next;
    expect(typeof release).toBe('function');
    expect(limiter.held).toBe(1);
    release!();
    expect(limiter.held).toBe(0);
  });

});

describe('a limiter without a bound, and at random', () => {
  it('without a limit counts its holders, and tells each change of the count', () => {
    const counts: number[] = [];
    const limiter = createLimiter({ onChange: (held) => counts.push(held) });
    const releases = Array.from({ length: 3 }, () => limiter.tryAcquire()!);
    releases[1]!();
    releases[1]!();
    releases[0]!();
    releases[2]!();
    expect(counts).toEqual([1, 2, 3, 2, 1, 0]);
  });

  it('never holds more than its limit, and every caller that stays is served (any order of acquires, leaves and releases)', async () => {
    const step = fc.oneof(fc.constant('acquire' as const), fc.constant('leave' as const), fc.constant('release' as const));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 40 }), async (limit, steps) => {
        let peak = 0;
        const limiter = createLimiter({ limit, onChange: (held) => (peak = Math.max(peak, held)) });
        const holding: Release[] = [];
        const waits: Array<{ leave: AbortController; answer: Promise<Release | undefined> }> = [];
        const granted = (release: Release | undefined) => {
          if (release) holding.push(release);
        };
        for (const s of steps) {
          if (s === 'acquire') {
            const leave = new AbortController();
            const answer = limiter.acquire({ signal: leave.signal });
            void answer.then(granted);
            waits.push({ leave, answer });
          } else if (s === 'leave') waits.shift()?.leave.abort();
          else holding.shift()?.();
          await new Promise((resolve) => setImmediate(resolve));
        }
        // Everyone left gives back what they got: nothing is held, nobody waits for ever.
        for (let i = 0; i < 50 && (holding.length > 0 || limiter.waiting > 0); i++) {
          holding.splice(0).forEach((release) => release());
          await new Promise((resolve) => setImmediate(resolve));
        }
        await Promise.all(waits.map((w) => w.answer));
        expect(peak).toBeLessThanOrEqual(limit);
        expect([limiter.held, limiter.waiting]).toEqual([0, 0]);
      }),
      { numRuns: 100 },
    );
  });
});
