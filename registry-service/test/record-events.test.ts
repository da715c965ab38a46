/**
 * RecordEvent / RecordEvents over a real gRPC server and a real PostgreSQL database, as a caller
 * (the gateway or another platform service) sees them.
 */
import { randomUUID } from 'node:crypto';
import { AppError, formatTimestamp, registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { countRows, sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();

// One registry on a fresh database for the whole file (the describes below share it).
let t: TestRegistry;
if (up) useFreshRegistry((started) => (t = started));

describe.skipIf(!up)('RecordEvent and RecordEvents', () => {
  it('records a first sighting and returns the event as the spec shapes it', async () => {
    const device = unique('cam');
    const before = Date.now();
    const res = await t.api.recordEvent(
      sampleEvent({
        source: { deviceName: device, objectId: 'ch-1', objectDomain: 'acme.camera.lpr' },
        images: ['https://x/1.jpg', 'https://x/2.jpg'],
        videoClips: ['https://x/clip.mp4'],
        additionalProperties: [
          { key: 'plate', value: 'AB-123' },
          { key: 'lane', value: '2' },
        ],
      }),
    );
    const event = res.event!;
    // Version 7: time-ordered, so new rows land side by side in the primary key.
    expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(event).toMatchObject({
      domain: 'acme.camera.lpr',
      eventType: 'plate_detected',
      rels: ['/objects/acme.camera.lpr.ch-1'],
      images: ['https://x/1.jpg', 'https://x/2.jpg'],
      videoClips: ['https://x/clip.mp4'],
      additionalProperties: [
        { key: 'plate', value: 'AB-123' },
        { key: 'lane', value: '2' },
      ],
      deviceName: device,
      objectId: 'ch-1',
    });
    expect(res.outcome).toEqual({ deviceCreated: true, objectCreated: true, eventTypeCreated: true });
    const created = formatTimestamp(event.createdAt);
    expect(created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect(formatTimestamp(event.updatedAt)).toBe(created);
    expect(Date.parse(created)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created)).toBeLessThanOrEqual(Date.now() + 1000);
    // Microseconds survive the trip (no JS Date in between): compare with what Postgres stored.
    const { rows } = await t.pool.query<{ ts: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS ts FROM events WHERE id = $1`,
      [event.id],
    );
    expect(created).toBe(`${rows[0]!.ts}000Z`);
  });

  it('reads an event back exactly as it was returned', async () => {
    const recorded = (await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('cam') } }))).event!;
    const read = (await t.api.getEvent(recorded.id)).event!;
    expect(read).toEqual(recorded);
    expect((await t.api.getEvent(recorded.id.toUpperCase())).event!.id).toBe(recorded.id);
  });
});

describe.skipIf(!up)('RecordEvent and RecordEvents: existing entities and batches', () => {
  it('reuses an existing device, object and event type unchanged', async () => {
    const device = unique('cam');
    const domain = unique('acme.door');
    const first = await t.api.recordEvent(
      sampleEvent({ source: { deviceName: device, objectDomain: domain, objectName: 'First name', objectType: 'door' }, eventType: { displayName: 'First label' } }),
    );
    const second = await t.api.recordEvent(
      sampleEvent({
        source: { deviceName: device, objectDomain: domain, objectName: 'Second name', objectType: 'sensor' },
        eventType: { displayName: 'Second label', displayDescription: 'changed' },
      }),
    );
    expect(first.outcome).toEqual({ deviceCreated: true, objectCreated: true, eventTypeCreated: true });
    expect(second.outcome).toEqual({ deviceCreated: false, objectCreated: false, eventTypeCreated: false });
    expect(second.event!.id).not.toBe(first.event!.id);

    const type = (await t.api.getEventType(domain, 'plate_detected')).eventType!;
    expect(type).toMatchObject({ displayName: 'First label', displayDescription: 'A licence plate was read' });
    const object = (await t.api.getObject(`${domain}.channel-1`)).object!;
    expect(object).toMatchObject({ id: `${domain}.channel-1`, objectId: 'channel-1', objectDomain: domain, objectName: 'First name', objectType: 'door', deviceName: device });
    const dev = (await t.api.getDevice(device)).device!;
    expect(dev).toMatchObject({ deviceName: device, kind: 'generic' });
    expect(formatTimestamp(dev.createdAt)).toBe(formatTimestamp(first.event!.createdAt));
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(2);
  });

  it('records a batch in one transaction with one created outcome per new entity', async () => {
    const device = unique('batch');
    const domain = unique('acme.batch');
    const events = [0, 1, 2].map((i) =>
      sampleEvent({ source: { deviceName: device, objectDomain: domain, objectId: `obj-${i % 2}` }, additionalProperties: [{ key: 'i', value: String(i) }] }),
    );
    const res = await t.api.recordEvents(events);
    expect(res.events.map((e) => e?.additionalProperties[0]!.value)).toEqual(['0', '1', '2']);
    expect(res.events.map((e) => e?.rels[0])).toEqual([`/objects/${domain}.obj-0`, `/objects/${domain}.obj-1`, `/objects/${domain}.obj-0`]);
    expect(res.outcomes).toEqual([
      { deviceCreated: true, objectCreated: true, eventTypeCreated: true },
      { deviceCreated: false, objectCreated: true, eventTypeCreated: false },
      { deviceCreated: false, objectCreated: false, eventTypeCreated: false },
    ]);
    expect(new Set(res.events.map((e) => formatTimestamp(e?.createdAt))).size).toBe(1);
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(3);
    expect(await countRows(t.pool, 'objects', 'device_name = $1', [device])).toBe(2);
    expect((await t.api.recordEvents([])).events).toEqual([]);
  });

  it('refuses an invalid event alone: its slot carries the error, the other events of the batch are recorded', async () => {
    const device = unique('batch-bad');
    const refused = unique('batch-bad-refused');
    const events = [
      sampleEvent({ source: { deviceName: device } }),
      sampleEvent({ source: { deviceName: refused, objectName: '  ' } }),
      sampleEvent({ source: { deviceName: device, objectId: 'other' } }),
    ];
    const res = await t.api.recordEvents(events);
    expect(res.results.map((r) => (r.recorded ? 'recorded' : 'error'))).toEqual(['recorded', 'error', 'recorded']);
    expect(res.results[1]!.error).toEqual({ code: 3, message: 'source.object_name must not be empty', field: 'source.object_name', rule: 'not-empty' });
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(2);
    // Nothing of the refused event was stored, not even its new device.
    expect(await countRows(t.pool, 'devices', 'device_name = $1', [refused])).toBe(0);
  });
});

describe.skipIf(!up)('RecordEvent and RecordEvents: failures, hostile keys and unknown ids', () => {
  it('rolls the whole batch back when the database fails midway, and says only "internal error"', async () => {
    // A trigger makes the event insert fail after device, object and type were inserted.
    await t.pool.query(`CREATE FUNCTION fail_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.event_type = 'boom' THEN RAISE EXCEPTION 'secret detail from the database'; END IF; RETURN NEW; END $$`);
    await t.pool.query('CREATE TRIGGER fail_boom BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_boom()');
    try {
      const device = unique('rollback');
      const events = [sampleEvent({ source: { deviceName: device } }), sampleEvent({ source: { deviceName: device }, eventType: { eventType: 'boom' } })];
      const err = (await t.api.recordEvents(events).catch((e: unknown) => e)) as AppError;
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe('INTERNAL');
      expect(err.message).toBe('internal error');
      expect(JSON.stringify({ message: err.message, details: err.details })).not.toContain('secret');
      expect(await countRows(t.pool, 'devices', 'device_name = $1', [device])).toBe(0);
      expect(await countRows(t.pool, 'event_types', 'event_type = $1', ['boom'])).toBe(0);
      // The server keeps serving, and the same entities can be created afterwards.
      const ok = await t.api.recordEvent(sampleEvent({ source: { deviceName: device } }));
      expect(ok.outcome?.deviceCreated).toBe(true);
    } finally {
      await t.pool.query('DROP TRIGGER fail_boom ON events; DROP FUNCTION fail_boom()');
    }
  });

  it('treats hostile property keys as plain data and round-trips them', async () => {
    const hostile = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '', 'a.b', '$where', '🔑', 'x'.repeat(255)];
    const properties = hostile.map((key, i) => ({ key, value: i === 0 ? '{"polluted":true}' : `v${i}` }));
    const res = await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('hostile') }, additionalProperties: properties }));
    expect(res.event!.additionalProperties).toEqual(properties);
    const read = (await t.api.getEvent(res.event!.id)).event!;
    const byKey = (list: registry.Property[]) => [...list].sort((a, b) => (a.key < b.key ? -1 : 1));
    expect(byKey(read.additionalProperties)).toEqual(byKey(properties));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const { rows } = await t.pool.query<{ v: string }>(`SELECT additional_properties->>'__proto__' AS v FROM events WHERE id = $1`, [res.event!.id]);
    expect(rows[0]!.v).toBe('{"polluted":true}');
  });

  it('answers NOT_FOUND for unknown entities and for ids that are not UUIDs', async () => {
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['event', () => t.api.getEvent(randomUUID())],
      ['event', () => t.api.getEvent('not-a-uuid')],
      ['event', () => t.api.getEvent("1' OR '1'='1")],
      ['device', () => t.api.getDevice('no-such-device')],
      ['device', () => t.api.getDevice('x'.repeat(5000))],
      ['object', () => t.api.getObject('acme.nothing.here')],
      ['event type', () => t.api.getEventType('acme', 'nothing')],
    ];
    for (const [what, call] of cases) {
      const err = (await call().catch((e: unknown) => e)) as AppError;
      expect(err, what).toBeInstanceOf(AppError);
      expect(err.code, what).toBe('NOT_FOUND');
      expect(err.message).toMatch(new RegExp(`^${what}.* not found$`));
    }
  });
});
