/**
 * Token rate limits (GCRA): per gateway without Redis, shared by every gateway through the real
 * Redis, per gateway again while Redis is unreachable; over HTTP a 429 with Retry-After before the
 * body is read.
 */
import { randomUUID } from 'node:crypto';
import { createLogger } from '@dynamic-events/proto/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../src/metrics.js';
import { createRateLimiter, createRedisClient } from '../src/tokens/rate-limit.js';
import type { TokenCredential } from '../src/tokens/token-model.js';
import { freePort, redisAvailable, REDIS_URL } from '../../test/support/servers.js';
import { fakeTokens } from './fake-tokens.js';
import { startGateway, validBody, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

const logger = createLogger('test', 'silent');
const tokenWith = (perSecond: number, burst: number): TokenCredential => ({ id: randomUUID(), name: 'vendor-x', policy: { rate: { perSecond, burst } }, expiresAtMs: undefined });

/** How many of `count` checks pass right now. */
async function passing(limit: ReturnType<typeof createRateLimiter>, token: TokenCredential, count: number): Promise<number> {
  const outcomes = await Promise.all(Array.from({ length: count }, () => Promise.resolve(limit(token)).then(() => true, () => false)));
  return outcomes.filter(Boolean).length;
}

describe('rate limits without Redis', () => {
  it('lets a burst through, then one event per interval, and refuses with the token, the rule and when to retry', async () => {
    // The limiter reads Date.now(): a fake clock makes "250 ms later" exact on a busy machine too.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const limit = createRateLimiter({ redis: undefined, logger, metrics: createMetrics() });
      const token = tokenWith(10, 3);
      expect(await passing(limit, token, 10)).toBe(3);
      await expect(limit(token)).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: "token 'vendor-x' is over its rate of 10 events per second (burst 3)", details: { rule: 'token-rate', retryAfterSeconds: 1 } });
      vi.setSystemTime(Date.now() + 250);
      expect(await passing(limit, token, 10)).toBe(2);
      // Tokens without a rate (or no token) are never limited, and cost nothing to check.
      expect(limit(undefined)).toBeUndefined();
      expect(limit({ ...token, policy: {} })).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});

const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('rate limits shared through Redis', () => {
  const clients = [createRedisClient(REDIS_URL), createRedisClient(REDIS_URL)];
  // Connected before the first check: a limiter whose Redis is not ready yet falls back to its own count.
  beforeAll(() => Promise.all(clients.map((c) => (c.status === 'ready' ? undefined : new Promise((resolve) => c.once('ready', resolve))))));
  afterAll(() => clients.forEach((c) => c.disconnect()));

  it('holds across gateway replicas: two limiters on one Redis let one burst through between them', async () => {
    const [a, b] = clients.map((redis) => createRateLimiter({ redis, logger, metrics: createMetrics() }));
    const token = tokenWith(5, 4);
    const burstStart = Date.now();
    const [fromA, fromB] = await Promise.all([passing(a!, token, 10), passing(b!, token, 10)]);
    const burstEnd = Date.now();
    expect(fromA + fromB).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 450));
    // Redis keeps the clock (its TIME), so the time between the rounds is measured, not faked: one
    // event per 200 ms since the burst, counted over the shortest and the longest span it can be.
    const roundStart = Date.now();
    const later = (await passing(a!, token, 5)) + (await passing(b!, token, 5));
    const roundEnd = Date.now();
    expect(later).toBeGreaterThanOrEqual(Math.floor(((roundStart - burstEnd) * 5) / 1000));
    expect(later).toBeLessThanOrEqual(Math.min(4, Math.floor(((roundEnd - burstStart) * 5) / 1000)));
  });

  it('applies the limit per gateway while Redis cannot be reached', async () => {
    const down = createRedisClient(`redis://127.0.0.1:${await freePort()}`);
    try {
      const metrics = createMetrics();
      const limit = createRateLimiter({ redis: down, logger, metrics });
      expect(await passing(limit, tokenWith(1, 2), 5)).toBe(2);
      expect((await metrics.tokenRateChecks.get()).values.find((v) => v.labels.result === 'fallback')?.value).toBe(5);
    } finally {
      down.disconnect();
    }
  });
});

describe('rate limits over HTTP', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('answers 429 with Retry-After before the body is read, and records nothing', async () => {
    const tokens = fakeTokens();
    const secret = tokens.add('vendor-x', { policy: { rate: { perSecond: 0.5, burst: 2 } } });
    gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source }, limitRate: createRateLimiter({ redis: undefined, logger, metrics: createMetrics() }) });
    const auth = { Authorization: `Bearer ${secret}` };
    expect([(await gw.post(validBody(), auth)).status, (await gw.post(validBody(), auth)).status]).toEqual([200, 200]);
    const limited = await gw.post('{not even json', auth);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json).toEqual(refusal("token 'vendor-x' is over its rate of 0.5 events per second (burst 2)", { field: false, rule: 'token-rate' }));
    expect(gw.registry.calls).toHaveLength(2);
  });
});
