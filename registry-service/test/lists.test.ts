/**
 * ListEvents, ListDevices, ListObjects, ListEventTypes over a real gRPC server and PostgreSQL:
 * keyset pages, filters, and the INVALID_ARGUMENT each bad parameter gets.
 */
import { AppError, registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
const filter = (f: Partial<registry.EventFilter>): registry.EventFilter => ({ deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined, ...f });
const { SORT_ORDER_OLDEST_FIRST } = registry.SortOrder;

async function rejection(call: Promise<unknown>): Promise<AppError> {
  const err = await call.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/** (created_at, id) of an event as one comparable key. */
const keyOf = (e: registry.Event) => `${e.createdAt!.seconds.padStart(12, '0')}.${String(e.createdAt!.nanos).padStart(9, '0')}/${e.id}`;

// One registry on a fresh database for the whole file (the describes below share it).
let t: TestRegistry;
if (up) useFreshRegistry((started) => (t = started));

/** Records `n` events of one device and domain over several RecordEvents calls; returns their ids. */
async function record(device: string, domain: string, n: number, type = 'plate_detected') {
  const events = Array.from({ length: n }, (_, i) =>
    sampleEvent({ source: { deviceName: device, objectDomain: domain, objectId: `ch-${i % 2}` }, eventType: { eventType: type }, additionalProperties: [{ key: 'n', value: String(i) }] }),
  );
  // Several calls so events spread over several commits (and timestamps), some sharing one.
  const ids: string[] = [];
  for (let i = 0; i < events.length; i += 5) ids.push(...(await t.api.recordEvents(events.slice(i, i + 5))).events.map((e) => e!.id));
  return ids;
}

describe.skipIf(!up)('list RPCs', () => {
  it('pages through one device newest first with no repeat and no skip while events keep arriving', async () => {
    const device = unique('cam');
    const domain = unique('acme.lpr');
    const before = await record(device, domain, 43);
    const seen: registry.Event[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await t.api.listEvents({ filter: filter({ deviceName: device }), pageSize: 7, pageToken });
      seen.push(...page.events);
      pageToken = page.nextPageToken;
      pages++;
      // New events of the same device arrive between pages: they sort before the cursor, never shift it.
      if (pages < 4) await record(device, domain, 3);
    } while (pageToken !== '');
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
    const keys = seen.map(keyOf);
    expect(keys).toEqual([...keys].sort().reverse());
    expect(seen.every((e) => e.deviceName === device && e.rels[0]?.startsWith(`/objects/${domain}.`))).toBe(true);
  });

  it.each([
    ['newest first', 0],
    ['oldest first', SORT_ORDER_OLDEST_FIRST],
  ])('%s under concurrent writers (two at a time, some transactions still open while pages are read): every earlier event exactly once', async (_, order) => {
    const device = unique('busy');
    const domain = unique('acme.lpr');
    const before = await record(device, domain, 60);
    let writing = true;
    const writers = [0, 1].map(async () => {
      while (writing) await record(device, domain, 5);
    });
    // A transaction that inserted (created_at = its start) and commits only after several pages were read.
    const late = await t.pool.connect();
    await late.query('BEGIN');
    await late.query(`INSERT INTO events (id, object_ref, device_name, domain, event_type) SELECT gen_random_uuid(), object_ref, device_name, domain, event_type FROM events WHERE device_name = $1 LIMIT 1`, [device]);
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    try {
      do {
        const page = await t.api.listEvents({ filter: filter({ deviceName: device }), pageSize: 6, pageToken, order });
        seen.push(...page.events.map((e) => e.id));
        pageToken = page.nextPageToken;
        if (++pages === 3) await late.query('COMMIT');
        // Oldest first, pages end only once the reader catches up with the writers: on a loaded
        // machine two writers outpaced it and the test never ended. They stop after a few pages.
        if (pages === 6) writing = false;
      } while (pageToken !== '');
    } finally {
      writing = false;
      await Promise.all(writers);
      late.release();
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
  });
});

describe.skipIf(!up)('list RPCs: filters, and devices, objects and event types', () => {
  it('pages oldest first and filters by object, domain, event type and time range', async () => {
    const device = unique('cam');
    const domain = unique('acme.lpr');
    await record(device, domain, 10, 'plate_detected');
    await record(device, domain, 4, 'motion');
    const all = await t.api.listEvents({ filter: filter({ domain }), pageSize: 1000, order: SORT_ORDER_OLDEST_FIRST });
    expect(all.events).toHaveLength(14);
    expect(all.nextPageToken).toBe('');
    const keys = all.events.map(keyOf);
    expect(keys).toEqual([...keys].sort());

    const motion = await t.api.listEvents({ filter: filter({ domain, eventType: 'motion' }) });
    expect(motion.events.map((e) => e.eventType)).toEqual(['motion', 'motion', 'motion', 'motion']);
    const object = await t.api.listEvents({ filter: filter({ object: `${domain}.ch-1` }) });
    expect(object.events).toHaveLength(7);
    expect(object.events.every((e) => e.objectId === 'ch-1')).toBe(true);

    // since is inclusive, until exclusive: the 5th event's timestamp splits the list exactly there.
    const pivot = all.events[4]!.createdAt!;
    const since = await t.api.listEvents({ filter: filter({ domain, since: pivot }), pageSize: 1000 });
    const until = await t.api.listEvents({ filter: filter({ domain, until: pivot }), pageSize: 1000 });
    const atPivot = all.events.filter((e) => e.createdAt!.seconds === pivot.seconds && e.createdAt!.nanos === pivot.nanos).length;
    expect(until.events.length + since.events.length).toBe(14);
    expect(since.events.length).toBeGreaterThanOrEqual(atPivot);
    expect(until.events.every((e) => keyOf(e) < keyOf(all.events[4]!))).toBe(true);
  });

  it('lists devices, objects by device and domain, and event types by domain, in key order across pages', async () => {
    const domain = unique('zz.list');
    const devices = [unique('dev-a'), unique('dev-b'), unique('dev-c')];
    for (const [i, device] of devices.entries()) await record(device, domain, 2, `type-${i}`);
    const names: string[] = [];
    let pageToken = '';
    do {
      const page = await t.api.listDevices({ pageSize: 2, pageToken });
      names.push(...page.devices.map((d) => d.deviceName));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    for (const device of devices) expect(names).toContain(device);
    expect(new Set(names).size).toBe(names.length);

    const objects = await t.api.listObjects({ domain, pageSize: 1 });
    expect(objects.objects).toHaveLength(1);
    const rest = await t.api.listObjects({ domain, pageSize: 100, pageToken: objects.nextPageToken });
    expect([...objects.objects, ...rest.objects].map((o) => o.id)).toEqual([`${domain}.ch-0`, `${domain}.ch-1`]);
    const ofDevice = await t.api.listObjects({ deviceName: devices[0]! });
    expect(ofDevice.objects.map((o) => o.deviceName)).toEqual([devices[0], devices[0]]);

    const types = await t.api.listEventTypes({ domain, pageSize: 2 });
    const more = await t.api.listEventTypes({ domain, pageSize: 2, pageToken: types.nextPageToken });
    expect([...types.eventTypes, ...more.eventTypes].map((x) => x.eventType)).toEqual(['type-0', 'type-1', 'type-2']);
    expect(more.nextPageToken).toBe('');
  });
});

describe.skipIf(!up)('list RPCs: bad parameters', () => {
  it('refuses bad parameters with INVALID_ARGUMENT naming the field', async () => {
    const device = unique('cam');
    await record(device, unique('acme'), 3);
    const first = await t.api.listEvents({ filter: filter({ deviceName: device }), pageSize: 1 });
    const devicesPage = await t.api.listDevices({ pageSize: 1 });
    const cases: Array<[Promise<unknown>, string]> = [
      [t.api.listEvents({ pageSize: 1001 }), 'page_size'],
      [t.api.listEvents({ pageSize: -1 }), 'page_size'],
      [t.api.listDevices({ pageSize: 5000 }), 'page_size'],
      [t.api.listEvents({ pageToken: 'not a token' }), 'page_token'],
      [t.api.listEvents({ pageToken: Buffer.from('{"v":1}').toString('base64url') }), 'page_token'],
      // Another list's token, the same list with another filter or order: foreign.
      [t.api.listEvents({ filter: filter({ deviceName: device }), pageToken: devicesPage.nextPageToken }), 'page_token'],
      [t.api.listEvents({ filter: filter({ deviceName: 'other' }), pageToken: first.nextPageToken }), 'page_token'],
      [t.api.listEvents({ filter: filter({ deviceName: device }), order: SORT_ORDER_OLDEST_FIRST, pageToken: first.nextPageToken }), 'page_token'],
      [t.api.listObjects({ pageToken: first.nextPageToken }), 'page_token'],
      [t.api.listEvents({ order: 7 as registry.SortOrder }), 'order'],
      [t.api.listEvents({ filter: filter({ deviceName: 'x'.repeat(256) }) }), 'device_name'],
      [t.api.listEvents({ filter: filter({ since: { seconds: '200', nanos: 0 }, until: { seconds: '100', nanos: 0 } }) }), 'since'],
      [t.api.listEvents({ filter: filter({ until: { seconds: '999999999999', nanos: 0 } }) }), 'until'],
      [t.api.listEventTypes({ domain: 'a\u0000b' }), 'domain'],
    ];
    for (const [call, field] of cases) {
      const err = await rejection(call);
      expect(err.code, `${field}: ${err.message}`).toBe('INVALID_ARGUMENT');
      expect(err.details.field).toBe(field);
      expect(err.message).toContain(field);
    }
  });
});
