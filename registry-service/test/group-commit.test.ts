/**
 * Group commit in the registry, over a real gRPC server and a real PostgreSQL database: time-ordered
 * ids, and a caller's bad value isolated to its own event by bisection, while a database failure
 * (not the caller's fault) fails the whole statement. group-commit-concurrency.test.ts covers
 * concurrent calls and the bounded write queue.
 */
import { AppError } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { countEventInserts, eventTrigger, millisOf, sleep, UUID_V7 } from './group-commit-support.js';
import { countRows, sampleEvent, startRegistry, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

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

describe.skipIf(!up)('group commit: event ids', () => {
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

describe.skipIf(!up)('group commit: a value the database refuses', () => {
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

describe.skipIf(!up)("group commit: a database failure (not the caller's fault)", () => {
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
