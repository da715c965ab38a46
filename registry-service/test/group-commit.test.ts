/**
 * Group commit in the registry, over a real gRPC server and a real PostgreSQL database: time-ordered
 * ids, a caller's bad value isolated to its own event by bisection, concurrent calls sharing
 * statements, and a bounded write queue that refuses at once instead of hanging.
 */
import { AppError, createGrpcClient, registry } from '@dynamic-events/proto';
import type pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { countRows, registryApi, sampleEvent, startRegistry, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix milliseconds in a UUID v7's first 48 bits. */
const millisOf = (id: string): number => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts the statements that insert events, from now until `stop()` (the spy is removed then). */
function countEventInserts(pool: pg.Pool) {
  const spy = vi.spyOn(pool, 'query');
  const count = () =>
    spy.mock.calls.filter(([config]) => (typeof config === 'string' ? config : (config as { text?: string }).text ?? '').includes('INSERT INTO events')).length;
  return { count, stop: () => spy.mockRestore() };
}

/** Creates `fn` as a BEFORE INSERT trigger function on events (test-only SQL), dropped by the returned function. */
async function eventTrigger(pool: pg.Pool, name: string, body: string, args: string[] = []): Promise<() => Promise<void>> {
  await pool.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NEW; END $$`);
  const quoted = args.map((a) => `'${a.replace(/'/g, "''")}'`).join(', ');
  await pool.query(`CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ${name}(${quoted})`);
  return async () => {
    await pool.query(`DROP TRIGGER IF EXISTS ${name} ON events`);
    await pool.query(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}

describe.skipIf(!up)('group commit', () => {
  let t: TestRegistry;
  let databaseUrl: string;
  useFreshRegistry((started, url) => {
    t = started;
    databaseUrl = url;
  });

  describe('event ids', () => {
    it('are UUID version 7 (variant 10xx) carrying the time they were made, from RecordEvent and RecordEvents', async () => {
      const device = unique('v7');
      const before = Date.now();
      const single = (await t.api.recordEvent(sampleEvent({ source: { deviceName: device } }))).event!.id;
      const batch = (await t.api.recordEvents([1, 2, 3].map((i) => sampleEvent({ source: { deviceName: device, objectId: `o-${i}` } })))).events.map((e) => e!.id);
      const after = Date.now();
      for (const id of [single, ...batch]) {
        expect(id).toMatch(UUID_V7);
        // The registry runs in this process: its clock is ours.
        expect(millisOf(id)).toBeGreaterThanOrEqual(before);
        expect(millisOf(id)).toBeLessThanOrEqual(after);
      }
      expect(new Set([single, ...batch]).size).toBe(4);
    });

    it('recorded later sort after those recorded earlier (as strings and in the primary key)', async () => {
      const device = unique('v7-order');
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const call =
          i % 2 === 0
            ? t.api.recordEvent(sampleEvent({ source: { deviceName: device } })).then((r) => [r.event!.id])
            : t.api.recordEvents([sampleEvent({ source: { deviceName: device } }), sampleEvent({ source: { deviceName: device } })]).then((r) => r.events.map((e) => e!.id));
        const recorded = await call;
        ids.push(recorded[0]!);
        // The next call's ids are made in a later millisecond (ids within one millisecond are random).
        await sleep(3);
      }
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids.map(millisOf)).size).toBe(ids.length);
      const { rows } = await t.pool.query<{ id: string }>('SELECT id::text FROM events WHERE device_name = $1 AND id = ANY($2::uuid[]) ORDER BY id', [device, ids]);
      expect(rows.map((r) => r.id)).toEqual(ids);
    });
  });

  describe('a value the database refuses', () => {
    it('is isolated by bisection: only its own slot fails (INVALID_ARGUMENT), the other events of the batch are committed', async () => {
      const drop = await eventTrigger(t.pool, 'poison_event', `IF NEW.event_type = 'poison' THEN RAISE EXCEPTION 'trigger detail %', NEW.id USING ERRCODE = '22021'; END IF;`);
      try {
        const device = unique('bisect');
        const poisonDevice = unique('bisect-poison');
        const events = Array.from({ length: 9 }, (_, i) =>
          i === 4
            ? sampleEvent({ source: { deviceName: poisonDevice, objectId: 'poison-object' }, eventType: { eventType: 'poison' }, additionalProperties: [{ key: 'n', value: '4' }] })
            : sampleEvent({ source: { deviceName: device, objectId: `o-${i}` }, additionalProperties: [{ key: 'n', value: String(i) }] }),
        );
        const res = await t.api.recordEvents(events);
        expect(res.results.map((r) => (r.recorded ? 'recorded' : 'error'))).toEqual(['recorded', 'recorded', 'recorded', 'recorded', 'error', 'recorded', 'recorded', 'recorded', 'recorded']);
        expect(res.results[4]!.error).toEqual({ code: 3, message: 'a value contains characters that cannot be stored', field: '', rule: 'storable' });
        // Each recorded slot holds its own event, committed once.
        expect(res.events.map((e) => e?.additionalProperties[0]?.value)).toEqual(['0', '1', '2', '3', undefined, '5', '6', '7', '8']);
        const ids = res.events.filter((e) => e !== undefined).map((e) => e.id);
        expect(new Set(ids).size).toBe(8);
        expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(8);
        expect(await countRows(t.pool, 'events', 'id = ANY($1::uuid[])', [ids])).toBe(8);
        // The shared new device is reported created exactly once, although its first statement was rolled back.
        expect(res.outcomes.filter((o) => o?.deviceCreated)).toHaveLength(1);
        // Nothing of the refused event was stored: not its event, nor its new device, object or type.
        expect(await countRows(t.pool, 'events', 'event_type = $1', ['poison'])).toBe(0);
        expect(await countRows(t.pool, 'devices', 'device_name = $1', [poisonDevice])).toBe(0);
        expect(await countRows(t.pool, 'objects', 'device_name = $1', [poisonDevice])).toBe(0);
        expect(await countRows(t.pool, 'event_types', 'event_type = $1', ['poison'])).toBe(0);
      } finally {
        await drop();
      }
    });

    it('is isolated wherever it sits, several in one batch, and a lone RecordEvent gets the same INVALID_ARGUMENT', async () => {
      const drop = await eventTrigger(t.pool, 'poison_event', `IF NEW.event_type = 'poison' THEN RAISE EXCEPTION 'bad' USING ERRCODE = '22021'; END IF;`);
      try {
        const device = unique('bisect-edges');
        const poisoned = new Set([0, 5, 6, 10]);
        const events = Array.from({ length: 11 }, (_, i) =>
          sampleEvent({ source: { deviceName: device, objectId: `o-${i}` }, eventType: poisoned.has(i) ? { eventType: 'poison' } : {}, additionalProperties: [{ key: 'n', value: String(i) }] }),
        );
        const res = await t.api.recordEvents(events);
        expect(res.results.map((r, i) => (r.recorded ? `${i}:ok` : `${i}:${r.error?.code}`))).toEqual(events.map((_, i) => (poisoned.has(i) ? `${i}:3` : `${i}:ok`)));
        expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(7);

        const err = await t.api.recordEvent(sampleEvent({ source: { deviceName: device }, eventType: { eventType: 'poison' } })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'a value contains characters that cannot be stored', details: { rule: 'storable' } });
        expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(7);
      } finally {
        await drop();
      }
    });
  });

  describe('a database failure (not the caller\'s fault)', () => {
    it('is not bisected: one statement, every event of it answers "internal error" in its own slot, nothing is stored', async () => {
      // One write slot: the call's events share one statement.
      const one = await startRegistry({ databaseUrl, migrate: false, writeConcurrency: 1 });
      const drop = await eventTrigger(t.pool, 'fail_boom', `IF NEW.event_type = 'boom' THEN RAISE EXCEPTION 'secret detail from the database'; END IF;`);
      const inserts = countEventInserts(one.pool);
      try {
        const device = unique('db-failure');
        const events = [
          sampleEvent({ source: { deviceName: device, objectId: 'a' } }),
          // Refused by validation before anything is written: its slot keeps its own error.
          sampleEvent({ source: { deviceName: device, objectName: '' } }),
          sampleEvent({ source: { deviceName: device, objectId: 'b' }, eventType: { eventType: 'boom' } }),
          sampleEvent({ source: { deviceName: device, objectId: 'c' } }),
        ];
        const res = await one.api.recordEvents(events);
        const internal = { code: 13, message: 'internal error', field: '', rule: '' };
        expect(res.results.map((r) => r.error)).toEqual([internal, { code: 3, message: 'source.object_name must not be empty', field: 'source.object_name', rule: 'not-empty' }, internal, internal]);
        expect(JSON.stringify(res.results)).not.toContain('secret');
        expect(inserts.count()).toBe(1);
        expect(await countRows(t.pool, 'devices', 'device_name = $1', [device])).toBe(0);
        expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(0);
      } finally {
        inserts.stop();
        await drop();
        await one.close();
      }
    });
  });

  describe('concurrent calls', () => {
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
});
