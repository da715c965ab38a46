/**
 * Health and shutdown as callers see them: SERVING follows the database, a dead database gives
 * UNAVAILABLE "the event store is unavailable" (an outage, retry later; nothing leaks), and an
 * in-flight RecordEvent completes during shutdown.
 */
import { AppError, REGISTRY_SERVICE_NAME } from '@dynamic-events/proto';
import { createHealthChecker } from '@dynamic-events/proto/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLocker } from '../src/locks/memory-locker.js';
import { createTestDatabase, freePort, postgresAvailable } from '../../test/support/servers.js';
import { startTcpProxy } from '../../test/support/tcp-proxy.js';
import { countRows, sampleEvent, startRegistry, unique } from './helpers.js';

const up = await postgresAvailable();

/** A proxy to the test database that can be cut and restored, to play "database down". */
async function startProxy(target: URL): Promise<{ url: string; cut: () => Promise<void>; restore: () => Promise<void> }> {
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const url = new URL(target);
  url.host = `127.0.0.1:${proxy.port}`;
  return { url: url.toString(), cut: proxy.stop, restore: proxy.start };
}

describe.skipIf(!up)('health, failures and shutdown', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('reports NOT_SERVING while the database is down and SERVING once it is back; calls fail as an outage', async () => {
    const proxy = await startProxy(new URL(db.url));
    const t = await startRegistry({ databaseUrl: proxy.url });
    const health = createHealthChecker(t.address);
    try {
      expect(await health.isServing(REGISTRY_SERVICE_NAME, 1000)).toBe(true);
      expect(await health.isServing('', 1000)).toBe(true);

      await proxy.cut();
      expect(await t.server.health.check()).toBe(false);
      expect(await health.isServing(REGISTRY_SERVICE_NAME, 1000)).toBe(false);
      const err = (await t.api.recordEvent(sampleEvent()).catch((e: unknown) => e)) as AppError;
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'UNAVAILABLE', message: 'the event store is unavailable; retry later', details: { retryAfterSeconds: 1 } });
      expect(JSON.stringify({ m: err.message, d: err.details })).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i);
      // Every query goes through one helper that classifies outages: each read, and the key lookup.
      const outage = { code: 'UNAVAILABLE', message: 'the event store is unavailable; retry later' };
      await expect(t.api.getDevice('camera-01')).rejects.toMatchObject(outage);
      await expect(t.api.getEvent('0190b8e4-0000-7000-8000-000000000000')).rejects.toMatchObject(outage);
      await expect(t.api.getObject('acme.camera.channel-1')).rejects.toMatchObject(outage);
      await expect(t.api.getEventType('acme.camera', 'motion')).rejects.toMatchObject(outage);
      await expect(t.api.recordEvent(sampleEvent({ idempotencyKey: 'k-outage', requestHash: 'h' }))).rejects.toMatchObject(outage);

      await proxy.restore();
      expect(await t.server.health.check()).toBe(true);
      expect(await health.isServing(REGISTRY_SERVICE_NAME, 1000)).toBe(true);
      await expect(t.api.recordEvent(sampleEvent({ source: { deviceName: unique('back') } }))).resolves.toMatchObject({ outcome: { deviceCreated: true } });
    } finally {
      health.close();
      await t.close();
      await proxy.cut();
    }
  });

  it('answers UNAVAILABLE when the database was never reachable', async () => {
    const t = await startRegistry({ databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/none`, migrate: false });
    try {
      const health = createHealthChecker(t.address);
      expect(await health.isServing(REGISTRY_SERVICE_NAME, 1000)).toBe(false);
      health.close();
      await expect(t.api.recordEvent(sampleEvent())).rejects.toMatchObject({ code: 'UNAVAILABLE', message: 'the event store is unavailable; retry later' });
    } finally {
      await t.close();
    }
  });

  it('lets an in-flight RecordEvent commit while the server shuts down, and reports NOT_SERVING at once', async () => {
    const locker = createMemoryLocker({ ttlMs: 10_000 });
    const t = await startRegistry({ databaseUrl: db.url, locker, lockWaitMs: 10_000 });
    const device = unique('in-flight');
    // Hold the device's creation lock so the call is provably in flight when shutdown starts.
    const held = await locker.acquire(`device:${device}`, Date.now());
    const inFlight = t.api.recordEvent(sampleEvent({ source: { deviceName: device } }));
    await new Promise((r) => setTimeout(r, 100));
    const health = createHealthChecker(t.address);
    const stopping = t.server.grpc.shutdown(5000);
    expect(await health.isServing(REGISTRY_SERVICE_NAME, 500)).toBe(false);
    health.close();
    await held.release();
    const res = await inFlight;
    expect(res.outcome?.deviceCreated).toBe(true);
    await stopping;
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(1);
    await t.close();
  });
});
