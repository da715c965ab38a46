import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { sleep, unheldLease, type Lease, type Locker } from './locker.js';

/** Deletes the key only if it still holds our token, so a lock that expired and was re-taken is left alone. */
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

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

export interface RedisLockerOptions {
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

  /** The lease of a lock we hold under `token`: released only while it still holds that token. */
  const held = (fullKey: string, token: string): Lease => ({
    outcome: 'acquired',
    release: async () => {
      try {
        return (await redis.eval(RELEASE_SCRIPT, 1, fullKey, token)) === 1 ? 'released' : 'expired';
      } catch {
        return 'failed';
      }
    },
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

  /** One pipeline of SET NX: a batch of first sightings pays one round trip, not one per key. */
  async function tryAcquireAll(keys: string[]): Promise<Array<Lease | null>> {
    const token = randomUUID();
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.set(prefix + key, token, 'PX', ttlMs, 'NX');
    const replies = (await pipeline.exec()) ?? [];
    const leases = keys.map((key, i) => (replies[i]?.[1] === 'OK' ? held(prefix + key, token) : null));
    const failed = keys.map((_, i) => (replies[i] ? replies[i][0] : new Error('no reply from Redis'))).find((err) => err);
    if (failed) {
      // A command failed part-way: give back what was taken, so nobody waits for a TTL; the caller falls back.
      await Promise.all(leases.map((lease) => lease?.release()));
      throw failed;
    }
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
