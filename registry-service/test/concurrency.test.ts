/**
 * 100 concurrent first sightings of the same device/object/event type create exactly one of each,
 * on real PostgreSQL with real Redis locks across two replicas, and still when Redis is down.
 * (The embedded Postgres + in-process lock variant lives in embedded-postgres.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient, createRedisLocker, waitForRedis } from '../src/locks/redis-locker.js';
import { createTestDatabase, freePort, postgresAvailable, REDIS_URL, redisAvailable, uniquePrefix } from '../../test/support/servers.js';
import { counterValue, expectSingleCreation, sampleEvent, silent, startRegistry, unique, type TestRegistry } from './helpers.js';

const up = (await postgresAvailable()) && (await redisAvailable());

describe.skipIf(!up)('concurrent first sightings', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const started: TestRegistry[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const t of started) await t.close();
    await db?.drop();
  });

  async function replica(redisUrl: string, keyPrefix: string, migrate: boolean): Promise<TestRegistry> {
    const redis = createRedisClient(redisUrl, silent);
    await waitForRedis(redis, redisUrl === REDIS_URL ? 2000 : 100);
    const t = await startRegistry({ databaseUrl: db.url, locker: createRedisLocker({ redis, ttlMs: 10_000, keyPrefix }), migrate, poolSize: 10 });
    started.push(t);
    return t;
  }

  it('with real Redis locks across two replicas: one of each, one created outcome each, 100 events', async () => {
    const prefix = uniquePrefix();
    const a = await replica(REDIS_URL, prefix, true);
    const b = await replica(REDIS_URL, prefix, false);
    await expectSingleCreation([a.api, b.api], a.pool, 100);
    const acquired = (await counterValue(a.metrics, 'acquired')) + (await counterValue(b.metrics, 'acquired'));
    const fallback = (await counterValue(a.metrics, 'fallback')) + (await counterValue(b.metrics, 'fallback'));
    expect(acquired).toBeGreaterThanOrEqual(3);
    expect(fallback).toBe(0);
    // Entities this replica has seen skip the lock from then on.
    const event = sampleEvent({ source: { deviceName: unique('known') } });
    const before = await counterValue(a.metrics, 'acquired');
    await a.api.recordEvent(event);
    expect(await counterValue(a.metrics, 'acquired')).toBe(before + 3);
    await a.api.recordEvent(event);
    expect(await counterValue(a.metrics, 'acquired')).toBe(before + 3);
  });

  it('with Redis down: still one of each and no failed call, each fallback counted', async () => {
    const dead = `redis://127.0.0.1:${await freePort()}`;
    const a = await replica(dead, uniquePrefix(), false);
    const b = await replica(dead, uniquePrefix(), false);
    await expectSingleCreation([a.api, b.api], a.pool, 100);
    const fallback = (await counterValue(a.metrics, 'fallback')) + (await counterValue(b.metrics, 'fallback'));
    expect(fallback).toBeGreaterThanOrEqual(3);
    expect(await counterValue(a.metrics, 'acquired')).toBe(0);
  });
});
