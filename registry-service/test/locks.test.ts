/** Entity-creation locks: Redis (real server) and in-process, and what happens when Redis is down. */
import { Registry } from 'prom-client';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEntityLocks } from '../src/locks/entity-locks.js';
import type { Locker } from '../src/locks/locker.js';
import { createMemoryLocker } from '../src/locks/memory-locker.js';
import { createRedisClient, createRedisLocker, waitForRedis } from '../src/locks/redis-locker.js';
import { createMetrics } from '../src/metrics.js';
import { freePort, REDIS_URL, redisAvailable, uniquePrefix } from '../../test/support/servers.js';
import { counterValue, silent } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Taken before any test fakes the timers. */
const realSetTimeout = globalThis.setTimeout;

/** The contract both lockers share. */
function lockerContract(make: (ttlMs: number) => Locker) {
  it('grants a free lock, makes a second caller wait until release, then lets it proceed', async () => {
    const locker = make(5000);
    const held = await locker.acquire('k1', Date.now() + 1000);
    expect(held.outcome).toBe('acquired');
    let settled = false;
    // A deadline far off: the waiter can only end early by noticing the release.
    const waiting = locker.acquire('k1', Date.now() + 20_000).finally(() => (settled = true));
    await sleep(150);
    expect(settled).toBe(false);
    expect(await held.release()).toBe('released');
    const waited = await waiting;
    // contended, not timeout: it went on at the release, not at its deadline.
    expect(waited.outcome).toBe('contended');
    expect(await waited.release()).toBe('not-held');
    // Released for good: the next caller gets it at once.
    const again = await locker.acquire('k1', Date.now());
    expect(again.outcome).toBe('acquired');
    await again.release();
    await locker.close();
  });

  it('gives up waiting at the deadline (outcome timeout) without taking the lock', async () => {
    const locker = make(5000);
    const held = await locker.acquire('k2', Date.now());
    const started = Date.now();
    const waited = await locker.acquire('k2', Date.now() + 200);
    expect(waited.outcome).toBe('timeout');
    // Not before its deadline (a busy machine only makes it later).
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await held.release()).toBe('released');
    await locker.close();
  });

  it('expires after the TTL; the old holder then cannot release the new holder\'s lock', async () => {
    // A TTL long enough that the second holder's lease outlives the few calls below on a busy machine.
    const ttlMs = 2000;
    const locker = make(ttlMs);
    const first = await locker.acquire('k3', Date.now());
    expect((await locker.acquire('k3', Date.now())).outcome).toBe('timeout');
    await sleep(ttlMs + 300);
    const second = await locker.acquire('k3', Date.now());
    expect(second.outcome).toBe('acquired');
    // The second holder holds it: a third caller must wait.
    expect((await locker.acquire('k3', Date.now() + 50)).outcome).toBe('timeout');
    expect(await first.release()).toBe('expired');
    expect(await second.release()).toBe('released');
    await locker.close();
  });

  it('keeps different keys independent', async () => {
    const locker = make(5000);
    const a = await locker.acquire('a', Date.now());
    const b = await locker.acquire('b', Date.now());
    expect([a.outcome, b.outcome]).toEqual(['acquired', 'acquired']);
    await Promise.all([a.release(), b.release()]);
    await locker.close();
  });
}

describe('in-process locker', () => {
  lockerContract((ttlMs) => createMemoryLocker({ ttlMs }));
});

const up = await redisAvailable();

describe.skipIf(!up)('Redis locker on a real Redis', () => {
  let redis: Redis;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    redis = createRedisClient(REDIS_URL, silent);
    expect(await waitForRedis(redis, 5000)).toBe(true);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  // close() of a locker sharing the client is deferred to afterAll.
  lockerContract((ttlMs) => ({ ...createRedisLocker({ redis, ttlMs, keyPrefix: prefix }), close: async () => {} }));

  it('stores a random token with the TTL under the prefix, and deletes it on release', async () => {
    const locker = createRedisLocker({ redis, ttlMs: 4000, keyPrefix: prefix });
    const lease = await locker.acquire('device:cam', Date.now());
    const token = await redis.get(`${prefix}device:cam`);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    const ttl = await redis.pttl(`${prefix}device:cam`);
    expect(ttl).toBeGreaterThan(3000);
    expect(ttl).toBeLessThanOrEqual(4000);
    // Someone else's token under the same key is never deleted by our release.
    await redis.set(`${prefix}device:cam`, 'someone-else');
    expect(await lease.release()).toBe('expired');
    expect(await redis.get(`${prefix}device:cam`)).toBe('someone-else');
    await redis.del(`${prefix}device:cam`);
  });

  const heldNow = async (keys: string[]) => Promise.all(keys.map(async (k) => (await redis.exists(`${prefix}${k}`)) === 1));

  /** The locker with its calls counted, and the entity locks over it. */
  function counted(ttlMs: number) {
    const locker = createRedisLocker({ redis, ttlMs, keyPrefix: prefix });
    const calls = { acquire: 0, tryAcquireAll: 0 };
    const spied: Locker = {
      acquire: (key, deadline) => (calls.acquire++, locker.acquire(key, deadline)),
      tryAcquireAll: (keys) => (calls.tryAcquireAll++, locker.tryAcquireAll!(keys)),
      close: async () => {},
    };
    const metrics = createMetrics(new Registry());
    return { locker, calls, metrics, locks: createEntityLocks({ locker: spied, waitMs: 2000, metrics, logger: silent }) };
  }

  it('takes a batch of free keys in one pipelined round trip, holds them all during the work, then releases them', async () => {
    const { calls, metrics, locks } = counted(5000);
    const keys = ['device:batch-b', 'object:batch-a', 'device:batch-a', 'event-type:batch-c'];
    const during = await locks(keys, () => heldNow(keys));
    expect(during).toEqual([true, true, true, true]);
    expect(calls).toEqual({ acquire: 0, tryAcquireAll: 1 });
    expect(await counterValue(metrics, 'acquired')).toBe(4);
    expect(await heldNow(keys)).toEqual([false, false, false, false]);
  });

  it('a key held elsewhere: keeps the keys before it, gives back those after it, waits for it alone', async () => {
    const { locker, calls, metrics, locks } = counted(5000);
    const other = await locker.acquire('object:mid-b', Date.now());
    expect(other.outcome).toBe('acquired');
    let settled = false;
    const work = locks(['object:mid-c', 'object:mid-a', 'object:mid-b'], () => heldNow(['object:mid-a', 'object:mid-c'])).finally(() => (settled = true));
    // While waiting for b: a (sorts before) is ours, c (after) was given back, so nobody waits on us crosswise.
    await expect.poll(() => heldNow(['object:mid-a', 'object:mid-c']), { timeout: 10_000 }).toEqual([true, false]);
    expect(settled).toBe(false);
    await other.release();
    expect(await work).toEqual([true, true]);
    expect(calls).toEqual({ acquire: 2, tryAcquireAll: 1 });
    expect(await counterValue(metrics, 'acquired')).toBe(2);
    expect(await counterValue(metrics, 'contended')).toBe(1);
    expect(await heldNow(['object:mid-a', 'object:mid-b', 'object:mid-c'])).toEqual([false, false, false]);
  });
});

describe.skipIf(!up)('Redis locker releases', () => {
  let redis: Redis;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    redis = createRedisClient(REDIS_URL, silent);
    expect(await waitForRedis(redis, 5000)).toBe(true);
  });
  afterAll(() => redis.quit());
  const heldNow = async (keys: string[]) => Promise.all(keys.map(async (k) => (await redis.exists(`${prefix}${k}`)) === 1));

  it('releases asked for in one tick leave in ONE script call, each with its own outcome', async () => {
    const locker = createRedisLocker({ redis, ttlMs: 5000, keyPrefix: prefix });
    const keys = ['device:rel-a', 'device:rel-b', 'object:rel-c'];
    const leases = await locker.tryAcquireAll!(keys);
    const single = await locker.acquire('event-type:rel-d', Date.now());
    // b was lost (TTL) and re-taken by someone else: its release must leave the other holder alone.
    await redis.set(`${prefix}device:rel-b`, 'someone-else');
    const client = redis as unknown as { releaseMany: (...args: string[]) => Promise<number[]> };
    const original = client.releaseMany;
    let calls = 0;
    client.releaseMany = (...args) => (calls++, original.apply(redis, args));
    try {
      const outcomes = await Promise.all([...leases.map((lease) => lease!.release()), single.release()]);
      expect(outcomes).toEqual(['released', 'expired', 'released', 'released']);
      expect(calls).toBe(1);
    } finally {
      client.releaseMany = original;
    }
    expect(await redis.get(`${prefix}device:rel-b`)).toBe('someone-else');
    expect(await heldNow(['device:rel-a', 'object:rel-c', 'event-type:rel-d'])).toEqual([false, false, false]);
    await redis.del(`${prefix}device:rel-b`);
  });

  it('a release that cannot reach Redis answers "failed" (the lock expires after its TTL)', async () => {
    const own = createRedisClient(REDIS_URL, silent);
    expect(await waitForRedis(own, 5000)).toBe(true);
    const locker = createRedisLocker({ redis: own, ttlMs: 5000, keyPrefix: prefix });
    const lease = await locker.acquire('device:rel-down', Date.now());
    expect(lease.outcome).toBe('acquired');
    own.disconnect();
    expect(await lease.release()).toBe('failed');
    expect(await heldNow(['device:rel-down'])).toEqual([true]);
    await redis.del(`${prefix}device:rel-down`);
  });
});

describe('when Redis is down', () => {
  it('falls back at once, counts it, and never fails the caller', async () => {
    const port = await freePort();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, silent);
    expect(await waitForRedis(redis, 300)).toBe(false);
    const locker = createRedisLocker({ redis, ttlMs: 5000 });
    const metrics = createMetrics(new Registry());
    const locks = createEntityLocks({ locker, waitMs: 2000, metrics, logger: silent });
    // "At once" without a stopwatch: with timers frozen, a fallback that waited on any timer (the
    // lock wait, a reconnect, a command timeout) would never settle; the guard keeps a real timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    let result: string;
    try {
      const work = locks(['device:a', 'object:b', 'event-type:c'], async () => 'created');
      result = await Promise.race([work, new Promise<string>((resolve) => realSetTimeout(() => resolve('waited on a timer'), 10_000))]);
    } finally {
      vi.useRealTimers();
    }
    expect(result).toBe('created');
    expect(await counterValue(metrics, 'fallback')).toBe(3);
    expect(await counterValue(metrics, 'acquired')).toBe(0);
    await locker.close();
    redis.disconnect();
  });
});

describe('entity locks', () => {
  it('releases the locks even when the work fails, and counts expired leases', async () => {
    const locker = createMemoryLocker({ ttlMs: 100 });
    const metrics = createMetrics(new Registry());
    const locks = createEntityLocks({ locker, waitMs: 1000, metrics, logger: silent });
    await expect(locks(['x'], async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect((await locker.acquire('x', Date.now())).outcome).toBe('acquired');
    await locker.close();

    await locks(['slow'], () => sleep(250));
    expect(await counterValue(metrics, 'expired')).toBe(1);
    expect(await counterValue(metrics, 'acquired')).toBe(2);
  });
});
