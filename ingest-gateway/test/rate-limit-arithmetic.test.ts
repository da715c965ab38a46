/**
 * The rate limiter fails closed: a stored rate whose arithmetic cannot be done (an interval that
 * overflows to Infinity, NaN, a burst below 1) refuses every request, locally and through Redis,
 * with a bounded Retry-After, never "allowed" and never a Redis fallback; and a valid rate at the
 * documented minimum leaves a Redis key that lives no longer than one interval.
 */
import { randomUUID } from 'node:crypto';
import { createLogger } from '@dynamic-events/proto/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.js';
import { createRateLimiter, createRedisClient } from '../src/tokens/rate-limit.js';
import type { TokenCredential } from '../src/tokens/token-model.js';
import { redisAvailable, REDIS_URL } from '../../test/support/servers.js';

const logger = createLogger('test', 'silent');
const tokenWith = (perSecond: number, burst: number): TokenCredential => ({ id: randomUUID(), name: 'vendor-x', policy: { rate: { perSecond, burst } }, expiresAtMs: undefined });

/** Rates no policy may hold now, but a row stored before a rule (or edited in SQL) can. */
const UNUSABLE: Array<[string, number, number]> = [
  ['the smallest double', 5e-324, 1],
  ['1e-308 (interval overflows to Infinity)', 1e-308, 1],
  ['1e-300 (an interval of 1e303 ms)', 1e-300, 1],
  ['1e-9 (a 31-year interval)', 1e-9, 1],
  ['NaN', Number.NaN, 1],
  ['Infinity', Number.POSITIVE_INFINITY, 1],
  ['zero', 0, 1],
  ['a negative rate', -1, 1],
  ['burst 0', 1, 0],
  ['a fractional burst', 1, 1.5],
  ['a burst of 2^32', 1, 2 ** 32],
];

/** Outcomes of `count` checks in a row: 'allowed' or `${code} ${retryAfterSeconds}`. */
async function outcomes(limit: ReturnType<typeof createRateLimiter>, token: TokenCredential, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) {
    seen.push(
      await Promise.resolve(limit(token)).then(
        () => 'allowed',
        (err: { code: string; details: { rule?: string; retryAfterSeconds?: number } }) => `${err.code} ${err.details.rule} ${err.details.retryAfterSeconds}`,
      ),
    );
  }
  return seen;
}

const REFUSED = 'RESOURCE_EXHAUSTED token-rate-unusable 60';

describe('the local limiter fails closed', () => {
  it.each(UNUSABLE)('refuses every request of a token whose rate is %s', async (_, perSecond, burst) => {
    const metrics = createMetrics();
    const limit = createRateLimiter({ redis: undefined, logger, metrics });
    expect(await outcomes(limit, tokenWith(perSecond, burst), 3)).toEqual([REFUSED, REFUSED, REFUSED]);
    expect((await metrics.tokenRateChecks.get()).values.find((v) => v.labels.result === 'allowed')?.value ?? 0).toBe(0);
  });

  it('still applies the documented extremes: 0.001 per second, burst 1; 1,000,000 per second, burst 1,000,000', async () => {
    const limit = createRateLimiter({ redis: undefined, logger, metrics: createMetrics() });
    expect(await outcomes(limit, tokenWith(0.001, 1), 2)).toEqual(['allowed', 'RESOURCE_EXHAUSTED token-rate 1000']);
    expect((await outcomes(limit, tokenWith(1_000_000, 1_000_000), 5)).every((o) => o === 'allowed')).toBe(true);
  });
});

const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('the Redis limiter fails closed', () => {
  const redis = createRedisClient(REDIS_URL);
  // The client queues nothing offline: wait until it is connected.
  beforeAll(() => (redis.status === 'ready' ? undefined : new Promise<void>((resolve) => redis.once('ready', () => resolve()))));
  afterAll(() => redis.disconnect());

  it.each(UNUSABLE)('refuses every request of a token whose rate is %s, without falling back and without a key', async (_, perSecond, burst) => {
    const metrics = createMetrics();
    const limit = createRateLimiter({ redis, logger, metrics });
    const token = tokenWith(perSecond, burst);
    expect(await outcomes(limit, token, 3)).toEqual([REFUSED, REFUSED, REFUSED]);
    // Counted as unusable: no "allowed", no "fallback" (Redis is up, nothing to fall back from).
    const results = (await metrics.tokenRateChecks.get()).values.map((v) => `${v.labels.result}=${v.value}`).filter((v) => !v.endsWith('=0'));
    expect(results).toEqual(['unusable=3']);
    expect(await redis.exists(`dynamic-events:rate:${token.id}`)).toBe(0);
  });

  it('the script itself refuses arithmetic it cannot do (answers -1, writes nothing)', async () => {
    createRateLimiter({ redis, logger, metrics: createMetrics() });
    const gcra = (redis as unknown as { tokenGcra(key: string, interval: string, burst: string): Promise<[number, number]> }).tokenGcra.bind(redis);
    for (const [interval, burst] of [['1e309', '1'], ['inf', '1'], ['nan', '1'], ['-5', '1'], ['1000', '0'], ['x', '1'], ['1e300', '1e10']]) {
      const key = `dynamic-events:rate:${randomUUID()}`;
      expect(await gcra(key, interval!, burst!), `${interval} ${burst}`).toEqual([-1, 0]);
      expect(await redis.exists(key)).toBe(0);
    }
  });

  it('a rate at the documented minimum leaves a key that lives one interval, not years', async () => {
    const limit = createRateLimiter({ redis, logger, metrics: createMetrics() });
    const token = tokenWith(0.001, 1);
    expect(await outcomes(limit, token, 2)).toEqual(['allowed', 'RESOURCE_EXHAUSTED token-rate 1000']);
    const ttl = await redis.pttl(`dynamic-events:rate:${token.id}`);
    expect(ttl).toBeGreaterThan(990_000);
    expect(ttl).toBeLessThanOrEqual(1_001_000);
  });
});
