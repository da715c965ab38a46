import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { sleep, unheldLease, type Lease, type Locker } from './locker.js';

/**
 * Deletes each key only if it still holds its token (ARGV[i] for KEYS[i]), so a lock that expired
 * and was re-taken is left alone; answers 1 (deleted) or 0 per key. Keys of one call must share a
 * hash slot on Redis Cluster; this service speaks to a single Redis (or a primary), as REDIS_URL says.
 */
const RELEASE_MANY_SCRIPT = `local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[i] then out[i] = redis.call('del', key) else out[i] = 0 end
end
return out`;

/** A release waiting for the end of the current tick, when all of that tick's releases leave together. */
interface PendingRelease {
  key: string;
  token: string;
  resolve(outcome: 'released' | 'expired' | 'failed'): void;
}

/** Sets KEYS in order to ARGV[1] (NX, PX ARGV[2]) until one exists; answers how many it set. */
const ACQUIRE_MANY_SCRIPT = `for i, key in ipairs(KEYS) do
  if not redis.call('set', key, ARGV[1], 'PX', ARGV[2], 'NX') then return i - 1 end
end
return #KEYS`;

/** The client with the lock scripts defined (EVALSHA, and EVAL once when Redis does not know one yet). */
type ScriptedRedis = Redis & {
  acquireMany(numKeys: number, ...keysThenTokenAndTtl: string[]): Promise<number>;
  releaseMany(numKeys: number, ...keysThenTokens: string[]): Promise<number[]>;
};

/**
 * An ioredis client that never stalls a request while Redis is down: no offline queue (commands
 * fail at once instead of waiting for a reconnect), short connect and command timeouts, one retry,
 * and reconnects in the background. Errors are logged at most every 10 s.
 */
export function createRedisClient(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    connectTimeout: 1000,
    commandTimeout: 1000,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let lastLog = 0;
  redis.on('error', (err: Error) => {
    if (Date.now() - lastLog < 10_000) return;
    lastLog = Date.now();
    logger.warn({ err: { message: err.message } }, 'redis unavailable: entity locks fall back to the database constraints');
  });
  return redis;
}

/**
 * Waits until the client is ready, at most `timeoutMs`; never fails: a Redis that is down at start
 * only means locks fall back until it comes back. Resolves whether Redis is ready.
 */
export async function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

interface RedisLockerOptions {
  redis: Redis;
  ttlMs: number;
  /** Namespace for lock keys (tests use a unique one). */
  keyPrefix?: string;
}

/**
 * Redis lock: `SET key token NX PX ttl`; a waiter polls (5 ms doubling to 100 ms) until the holder
 * releases, then proceeds without taking the lock: the entity exists by then, and if the holder
 * rolled back, the UNIQUE constraint still decides which of the waiters creates it.
 */
export function createRedisLocker(options: RedisLockerOptions): Locker {
  const { redis, ttlMs } = options;
  const prefix = options.keyPrefix ?? 'dynamic-events:registry:lock:';
  const scripted = redis as ScriptedRedis;
  // Defined once per client (several lockers may share one, as the tests do).
  if (typeof scripted.acquireMany !== 'function') redis.defineCommand('acquireMany', { lua: ACQUIRE_MANY_SCRIPT });
  if (typeof scripted.releaseMany !== 'function') redis.defineCommand('releaseMany', { lua: RELEASE_MANY_SCRIPT });
  let pending: PendingRelease[] = [];

  /**
   * Sends the releases asked for in this tick as ONE script call. One EVAL and one socket write per
   * released lock take about 10 % of the registry's busy CPU under first sightings (CPU profile of
   * the bench `first` scenario; one call per tick: 1.125 × its events per second).
   */
  function flushReleases(): void {
    const batch = pending;
    pending = [];
    scripted.releaseMany(batch.length, ...batch.map((r) => r.key), ...batch.map((r) => r.token)).then(
      (deleted) => batch.forEach((r, i) => r.resolve(deleted[i] === 1 ? 'released' : 'expired')),
      () => batch.forEach((r) => r.resolve('failed')),
    );
  }

  /** The lease of a lock we hold under `token`: released only while it still holds that token. */
  const held = (fullKey: string, token: string): Lease => ({
    outcome: 'acquired',
    release: () =>
      new Promise((resolve) => {
        if (pending.push({ key: fullKey, token, resolve }) === 1) process.nextTick(flushReleases);
      }),
  });

  async function acquire(key: string, deadline: number): Promise<Lease> {
    const fullKey = prefix + key;
    const token = randomUUID();
    try {
      if ((await redis.set(fullKey, token, 'PX', ttlMs, 'NX')) === 'OK') return held(fullKey, token);
      for (let delay = 5; Date.now() < deadline; delay = Math.min(delay * 2, 100)) {
        await sleep(Math.min(delay, deadline - Date.now()));
        if ((await redis.exists(fullKey)) === 0) return unheldLease('contended');
      }
      return unheldLease('timeout');
    } catch (err) {
      return unheldLease('fallback', err);
    }
  }

  /**
   * One script call takes the keys in order until one is held elsewhere (SET NX PX each, one token
   * for the batch), so a batch of first sightings pays one command and one round trip, and keys
   * after a busy one are never taken only to be given back. Answers a lease per key taken, then null
   * for the busy key; the keys after it are left out. A script that fails part-way leaves what it
   * took to expire (TTL): the caller falls back to the database constraints meanwhile.
   */
  async function tryAcquireAll(keys: string[]): Promise<Array<Lease | null>> {
    const token = randomUUID();
    const taken = await scripted.acquireMany(keys.length, ...keys.map((key) => prefix + key), token, String(ttlMs));
    const leases: Array<Lease | null> = keys.slice(0, taken).map((key) => held(prefix + key, token));
    if (taken < keys.length) leases.push(null);
    return leases;
  }

  return {
    acquire,
    tryAcquireAll,
    async close() {
      // quit() waits for pending replies; when Redis is down there are none worth waiting for.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
