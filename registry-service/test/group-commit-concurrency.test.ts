/**
 * Group commit under concurrent calls, over real gRPC servers and a real PostgreSQL database: calls
 * share statements, and a bounded write queue refuses at once instead of hanging.
 */
import { AppError, registry } from '@dynamic-events/proto';
import { createGrpcClient } from '@dynamic-events/proto/runtime';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { countEventInserts, eventTrigger, sleep, UUID_V7 } from './group-commit-support.js';
import { countRows, registryApi, sampleEvent, startRegistry, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();

// One registry on a fresh database for the whole file (the describes below share it).
let t: TestRegistry;
let databaseUrl: string;
if (up) {
  useFreshRegistry((started, url) => {
    t = started;
    databaseUrl = url;
  });
}

describe.skipIf(!up)('group commit: concurrent calls', () => {
  it('share statements: 200 RecordEvent calls from several clients, arriving while statements run, need far fewer INSERTs', async () => {
    const r = await startRegistry({ databaseUrl, migrate: false, writeConcurrency: 2 });
    const clients = Array.from({ length: 4 }, () => createGrpcClient(registry.RegistryServiceClient, r.address));
    const apis = clients.map(registryApi);
    const tag = unique('group');
    // Each statement writing this test's events takes at least 20 ms (one sleep per statement, not per row).
    const drop = await eventTrigger(
      t.pool,
      'slow_statement',
      `IF NEW.device_name LIKE TG_ARGV[0] AND current_setting('test.slept', true) IS DISTINCT FROM 'yes' THEN
         PERFORM set_config('test.slept', 'yes', true); PERFORM pg_sleep(0.02); END IF;`,
      [`${tag}-%`],
    );
    const inserts = countEventInserts(r.pool);
    try {
      const calls: Array<Promise<registry.RecordEventResponse>> = [];
      // 20 waves of 10 calls, 5 ms apart: most arrive while earlier statements are still running.
      for (let i = 0; i < 200; i++) {
        if (i > 0 && i % 10 === 0) await sleep(5);
        calls.push(
          apis[i % apis.length]!.recordEvent(
            sampleEvent({ source: { deviceName: `${tag}-dev-${i % 10}`, objectId: `obj-${i % 7}` }, additionalProperties: [{ key: 'n', value: String(i) }] }),
          ),
        );
      }
      const results = await Promise.all(calls);
      const statements = inserts.count();
      // Without group commit this would be 200 statements: one per call.
      expect(statements).toBeGreaterThan(0);
      expect(statements).toBeLessThanOrEqual(40);
      // Each caller got its own event back, not a neighbour's.
      expect(results.map((res) => res.event!.additionalProperties)).toEqual(results.map((_, i) => [{ key: 'n', value: String(i) }]));
      expect(results.map((res) => res.event!.deviceName)).toEqual(results.map((_, i) => `${tag}-dev-${i % 10}`));
      const ids = results.map((res) => res.event!.id);
      expect(new Set(ids).size).toBe(200);
      const { rows } = await t.pool.query<{ id: string; n: string }>(
        `SELECT id::text, additional_properties->>'n' AS n FROM events WHERE device_name LIKE $1 ORDER BY (additional_properties->>'n')::int`,
        [`${tag}-dev-%`],
      );
      expect(rows).toEqual(ids.map((id, i) => ({ id, n: String(i) })));
      // Each new device was reported created by exactly one of the calls.
      expect(results.filter((res) => res.outcome!.deviceCreated)).toHaveLength(10);
    } finally {
      inserts.stop();
      await drop();
      for (const c of clients) c.close();
      await r.close();
    }
  });
});

describe.skipIf(!up)('group commit: concurrent calls on a full write queue', () => {
  it('are refused with UNAVAILABLE at once when the write queue is full; none hangs, each success is committed once', async () => {
    const QUEUE = 5;
    const BLOCK_SECONDS = 2;
    const r = await startRegistry({ databaseUrl, migrate: false, writeConcurrency: 1, writeQueueMaxEvents: QUEUE });
    const clients = Array.from({ length: 3 }, () => createGrpcClient(registry.RegistryServiceClient, r.address));
    const apis = clients.map(registryApi);
    const tag = unique('overload');
    const drop = await eventTrigger(t.pool, 'slow_event', `IF NEW.device_name = TG_ARGV[0] THEN PERFORM pg_sleep(${BLOCK_SECONDS}); END IF;`, [`${tag}-blocker`]);
    try {
      // One slow statement holds the only write slot.
      const blockerStarted = Date.now();
      const blocker = r.api.recordEvent(sampleEvent({ source: { deviceName: `${tag}-blocker` } }));
      for (let i = 0; ; i++) {
        const { rows } = await t.pool.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'`);
        if (rows.length > 0) break;
        if (i > 100) throw new Error('the slow statement never started');
        await sleep(20);
      }

      const burst = Array.from({ length: 30 }, (_, i) => {
        const started = Date.now();
        return apis[i % apis.length]!
          .recordEvent(sampleEvent({ source: { deviceName: `${tag}-burst` }, additionalProperties: [{ key: 'n', value: String(i) }] }))
          .then(
            (res) => ({ ok: true as const, n: i, id: res.event!.id, ms: Date.now() - started }),
            (error: unknown) => ({ ok: false as const, n: i, error, ms: Date.now() - started }),
          );
      });
      const outcomes = await Promise.all(burst);
      const blocked = await blocker;
      const elapsed = Date.now() - blockerStarted;

      const refused = outcomes.filter((o) => !o.ok);
      const accepted = outcomes.filter((o) => o.ok);
      // While the one slot is held, exactly QUEUE events may wait; every other call is refused.
      expect(accepted).toHaveLength(QUEUE);
      expect(refused).toHaveLength(30 - QUEUE);
      for (const o of refused) {
        expect(o.error).toBeInstanceOf(AppError);
        expect(o.error).toMatchObject({ code: 'UNAVAILABLE', details: { rule: 'overloaded', retryAfterSeconds: 1 } });
        expect((o.error as AppError).message).toMatch(/overloaded.*retry later/);
        // At once: long before the slow statement ends.
        expect(o.ms).toBeLessThan((BLOCK_SECONDS * 1000) / 2);
      }
      // None hangs: the waiting ones went out right after the slow statement.
      expect(elapsed).toBeLessThan(BLOCK_SECONDS * 1000 + 3000);

      expect(await countRows(t.pool, 'events', 'id = $1', [blocked.event!.id])).toBe(1);
      const { rows } = await t.pool.query<{ id: string; n: string }>(
        `SELECT id::text, additional_properties->>'n' AS n FROM events WHERE device_name = $1 ORDER BY (additional_properties->>'n')::int`,
        [`${tag}-burst`],
      );
      expect(rows).toEqual(accepted.map((o) => ({ id: o.id, n: String(o.n) })));

      // The queue drained: the registry takes events again.
      const again = await r.api.recordEvent(sampleEvent({ source: { deviceName: `${tag}-burst` }, additionalProperties: [{ key: 'n', value: '99' }] }));
      expect(again.event!.id).toMatch(UUID_V7);
    } finally {
      await drop();
      for (const c of clients) c.close();
      await r.close();
    }
  });
});
