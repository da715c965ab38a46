/** A batch counts one unit per event against its token's rate: the events beyond what is left get 429, the others go on. */
import { randomUUID } from 'node:crypto';
import { createLogger } from '@dynamic-events/proto/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.js';
import { createRateLimiter, createRedisClient } from '../src/tokens/rate-limit.js';
import { redisAvailable, REDIS_URL } from '../../test/support/servers.js';
import { fakeTokens } from './fake-tokens.js';
import { API, mutate, startGateway, type TestGateway } from './helpers.js';

const logger = createLogger('test', 'silent');

describe('a batch against policy.rate', () => {
  const tokens = fakeTokens();
  const secret = tokens.add('vendor-x', { policy: { rate: { perSecond: 0.5, burst: 3 } } });
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source }, limitRate: createRateLimiter({ redis: undefined, logger, metrics: createMetrics() }) });
  });
  afterAll(() => gw.close());

  it('takes one unit per event: the events beyond the burst get 429 in their results, with Retry-After', async () => {
    const events = Array.from({ length: 5 }, (_, i) => mutate((b) => (b.source.device_name = `cam-${i}`)));
    const response = await fetch(`${gw.url}${API}/dynamic-events/batch`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` },
      body: JSON.stringify({ events }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('retry-after')).toBe('2');
    const json = (await response.json()) as { results: Array<{ status: number; error?: string }>; recorded: number; refused: number };
    const limited = { status: 429, error: "token 'vendor-x' is over its rate of 0.5 events per second (burst 3)", rule: 'token-rate' };
    expect(json.results.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(json.results.slice(3)).toEqual([limited, limited]);
    expect([json.recorded, json.refused]).toEqual([3, 2]);
    expect(gw.registry.recorded.map((e) => e.source.deviceName)).toEqual(['cam-0', 'cam-1', 'cam-2']);
    // Nothing is left for a single POST either, nor for another batch: with no unit left the whole call is a 429.
    expect((await gw.post(mutate(() => {}), { Authorization: `Bearer ${secret}` })).status).toBe(429);
    const again = await fetch(`${gw.url}${API}/dynamic-events/batch`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` },
      body: JSON.stringify({ events }),
    });
    expect([again.status, again.headers.get('retry-after'), await again.json()]).toEqual([429, '2', { error: limited.error, rule: 'token-rate' }]);
  });
});

const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('a batch against policy.rate in Redis', () => {
  const redis = createRedisClient(REDIS_URL);
  afterAll(() => redis.quit());

  it('grants what is left of the burst in one step and refuses the rest', async () => {
    const limit = createRateLimiter({ redis, logger, metrics: createMetrics() });
    const token = { id: randomUUID(), name: 'vendor-y', policy: { rate: { perSecond: 1, burst: 4 } }, expiresAtMs: undefined };
    expect(await limit.take(token, 3)).toEqual({ granted: 3, refusal: undefined });
    const second = await limit.take(token, 3);
    expect(second.granted).toBe(1);
    expect(second.refusal).toMatchObject({ code: 'RESOURCE_EXHAUSTED', details: { rule: 'token-rate', retryAfterSeconds: 1 } });
    await expect(limit(token)).rejects.toMatchObject({ details: { rule: 'token-rate' } });
  });
});
