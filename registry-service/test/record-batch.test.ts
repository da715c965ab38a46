/**
 * The write path is one SQL statement per RecordEvent(s) call: one round trip, atomic on its own, and
 * as right as separate statements would be: parents created in the same statement satisfy the
 * object identity key, every event's device and event type exist (migration 0006 leaves those to the
 * statement), and concurrent overlapping batches (no lock at all) neither deadlock nor duplicate.
 */
import { registry } from '@dynamic-events/proto';
import { describe, expect, it, vi } from 'vitest';
import { unheldLease, type Locker } from '../src/locks/locker.js';
import { postgresAvailable } from '../../test/support/servers.js';
import { countRows, sampleEvent, startRegistry, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();

/** Events of `domainPattern` naming a device or an event type that does not exist (must be none). */
async function orphans(t: TestRegistry, domainPattern: string): Promise<number> {
  return countRows(
    t.pool,
    'events e',
    `e.domain LIKE $1 AND (NOT EXISTS (SELECT 1 FROM devices d WHERE d.device_name = e.device_name)
       OR NOT EXISTS (SELECT 1 FROM event_types y WHERE y.domain = e.domain AND y.event_type = e.event_type))`,
    [domainPattern],
  );
}

/** A lock store that never holds anything: only the database constraints keep the data right. */
const noLocks = (): Locker => ({ acquire: () => Promise.resolve(unheldLease('contended')), close: () => Promise.resolve() });

// One registry on a fresh database for the whole file (the describes below share it).
let t: TestRegistry;
let databaseUrl: string;
if (up) {
  useFreshRegistry((started, url) => {
    t = started;
    databaseUrl = url;
  });
}

describe.skipIf(!up)('RecordEvent(s) as one statement', () => {
  it('sends one statement per call, a single event or a batch, and no BEGIN/COMMIT', async () => {
    const spy = vi.spyOn(t.pool, 'query');
    try {
      const device = unique('one-trip');
      await t.api.recordEvent(sampleEvent({ source: { deviceName: device } }));
      await t.api.recordEvents([0, 1, 2].map((i) => sampleEvent({ source: { deviceName: device, objectId: `o-${i}` } })));
      // The health check shares this pool: leave its SELECT 1 out. The watchers' wake-up (a NOTIFY
      // after the commit, at most one per 25 ms whatever the number of calls) is not part of a write.
      const all = spy.mock.calls.map(([config]) => (typeof config === 'string' ? config : (config as { text: string }).text)).filter((text) => text !== 'SELECT 1');
      const texts = all.filter((text) => !text.includes('pg_notify'));
      expect(texts).toHaveLength(2);
      expect(all.length - texts.length).toBeLessThanOrEqual(2);
      for (const text of texts) expect(text).not.toMatch(/\b(BEGIN|COMMIT)\b/i);
    } finally {
      spy.mockRestore();
    }
  });

  it('creates device, object and event type and the event referencing them in one transaction (the references hold)', async () => {
    const device = unique('first');
    const domain = unique('acme.first');
    const res = await t.api.recordEvent(sampleEvent({ source: { deviceName: device, objectDomain: domain, objectId: 'o' } }));
    expect(res.outcome).toEqual({ deviceCreated: true, objectCreated: true, eventTypeCreated: true });
    // The same xmin: all four rows were written by one transaction.
    const { rows } = await t.pool.query<{ table: string; xmin: string }>(
      `SELECT 'device' AS table, xmin::text FROM devices WHERE device_name = $1
       UNION ALL SELECT 'object', xmin::text FROM objects WHERE id = $2 AND device_name = $1
       UNION ALL SELECT 'event_type', xmin::text FROM event_types WHERE domain = $3
       UNION ALL SELECT 'event', xmin::text FROM events WHERE id = $4 AND object_ref = $2 AND device_name = $1 AND domain = $3`,
      [device, `${domain}.o`, domain, res.event!.id],
    );
    expect(rows.map((r) => r.table)).toEqual(['device', 'object', 'event_type', 'event']);
    expect(new Set(rows.map((r) => r.xmin)).size).toBe(1);
  });

  it('creates many new entities of each kind in one batch, every object and event linked to rows created by the same statement', async () => {
    const tag = unique('many');
    const events = Array.from({ length: 12 }, (_, i) =>
      sampleEvent({
        source: { deviceName: `${tag}-dev-${i % 3}`, objectDomain: `${tag}.dom-${i % 2}`, objectId: `obj-${i % 4}` },
        eventType: { eventType: `type-${i % 5}` },
      }),
    );
    const res = await t.api.recordEvents(events);
    const created = (flag: keyof registry.Outcome) => res.outcomes.filter((o) => o?.[flag]).length;
    expect([created('deviceCreated'), created('objectCreated'), created('eventTypeCreated')]).toEqual([3, 4, 10]);
    expect(res.events.map((e) => e?.deviceName)).toEqual(events.map((e) => e.source!.deviceName));
    expect(await countRows(t.pool, 'devices', 'device_name LIKE $1', [`${tag}-%`])).toBe(3);
    // objects: (domain i%2, id i%4) pairs over i = 0..11 are 4 distinct full ids; each keeps the device of its first event.
    expect(await countRows(t.pool, 'objects', 'object_domain LIKE $1', [`${tag}.%`])).toBe(4);
    expect(await countRows(t.pool, 'event_types', 'domain LIKE $1', [`${tag}.%`])).toBe(10);
    expect(await countRows(t.pool, 'events', 'domain LIKE $1', [`${tag}.%`])).toBe(12);
    expect(await orphans(t, `${tag}.%`)).toBe(0);
    const object = (await t.api.getObject(`${tag}.dom-1.obj-1`)).object!;
    expect(object.deviceName).toBe(`${tag}-dev-1`);
  });
});

describe.skipIf(!up)('RecordEvent(s) as one statement: concurrent overlapping batches', () => {
  it('runs concurrent overlapping batches without locks: no deadlock, one row and one created outcome per entity', async () => {
    const tag = unique('overlap');
    // Slow inserts of this test's entities keep the statements' uncommitted rows overlapping: with
    // an unsorted or unordered insert, two calls would wait on each other and one would fail (40P01).
    await t.pool.query(`CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF to_jsonb(NEW)::text LIKE '%' || TG_ARGV[0] || '%' THEN PERFORM pg_sleep(0.02); END IF; RETURN NEW; END $$`);
    for (const table of ['devices', 'objects', 'event_types']) {
      await t.pool.query(`CREATE TRIGGER slow_insert BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION slow_insert('${tag}')`);
    }
    const replicas = [await startRegistry({ databaseUrl, locker: noLocks(), migrate: false }), await startRegistry({ databaseUrl, locker: noLocks(), migrate: false })];
    try {
      const base = Array.from({ length: 6 }, (_, i) =>
        sampleEvent({ source: { deviceName: `${tag}-dev-${i}`, objectDomain: `${tag}.dom`, objectId: `obj-${i}` }, eventType: { eventType: `type-${i}` } }),
      );
      // Each call names the same new entities in its own order (a rotation, reversed for odd calls).
      const batches = Array.from({ length: 40 }, (_, n) => {
        const rotated = [...base.slice(n % 6), ...base.slice(0, n % 6)];
        return n % 2 === 0 ? rotated : rotated.reverse();
      });
      const results = await Promise.all(batches.map((batch, n) => replicas[n % 2]!.api.recordEvents(batch)));
      const outcomes = results.flatMap((r) => r.outcomes);
      const created = (flag: keyof registry.Outcome) => outcomes.filter((o) => o?.[flag]).length;
      expect([created('deviceCreated'), created('objectCreated'), created('eventTypeCreated')]).toEqual([6, 6, 6]);
      expect(await countRows(t.pool, 'devices', 'device_name LIKE $1', [`${tag}-%`])).toBe(6);
      expect(await countRows(t.pool, 'objects', 'object_domain = $1', [`${tag}.dom`])).toBe(6);
      expect(await countRows(t.pool, 'event_types', 'domain = $1', [`${tag}.dom`])).toBe(6);
      expect(await countRows(t.pool, 'events', 'domain = $1', [`${tag}.dom`])).toBe(240);
      expect(await orphans(t, `${tag}.dom`)).toBe(0);
    } finally {
      for (const r of replicas) await r.close();
      await t.pool.query('DROP TRIGGER slow_insert ON devices; DROP TRIGGER slow_insert ON objects; DROP TRIGGER slow_insert ON event_types; DROP FUNCTION slow_insert()');
    }
  });
});
