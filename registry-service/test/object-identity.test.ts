/**
 * One full identifier, one object: ("col.a.b", "c") and ("col.a", "b.c") both give "col.a.b.c".
 * The second is refused with ALREADY_EXISTS naming the first, and nothing of it is stored.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { postgresAvailable } from '../../test/support/servers.js';
import { countRows, sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();

describe.skipIf(!up)('object identity', () => {
  let t: TestRegistry;
  useFreshRegistry((started) => (t = started));

  it('refuses a second split of an existing full id, naming the existing object, storing nothing', async () => {
    const root = unique('col');
    const first = sampleEvent({ source: { deviceName: unique('dev-1'), objectDomain: `${root}.a.b`, objectId: 'c' } });
    await t.api.recordEvent(first);
    const device = unique('dev-2');
    const second = sampleEvent({ source: { deviceName: device, objectDomain: `${root}.a`, objectId: 'b.c' } });
    const err = await t.api.recordEvent(second).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'ALREADY_EXISTS', details: { field: 'source.object_id', rule: 'identity-conflict' } });
    expect((err as AppError).message).toBe(
      `object "${root}.a.b.c" already exists with object_domain "${root}.a.b" and object_id "c": ` +
        `source.object_domain "${root}.a" with source.object_id "b.c" would give another object the same identity`,
    );
    expect(await countRows(t.pool, 'devices', 'device_name = $1', [device])).toBe(0);
    expect(await countRows(t.pool, 'event_types', 'domain = $1', [`${root}.a`])).toBe(0);
    expect(await countRows(t.pool, 'events', 'domain = $1', [`${root}.a`])).toBe(0);
    expect(await countRows(t.pool, 'objects', 'id = $1', [`${root}.a.b.c`])).toBe(1);
    // The first object keeps working.
    await expect(t.api.recordEvent(first)).resolves.toBeDefined();
  });

  it('inside one RecordEvents call: exactly one of the two splits wins, the other is refused alone', async () => {
    const root = unique('col');
    const a = sampleEvent({ source: { objectDomain: `${root}.x.y`, objectId: 'z' } });
    const b = sampleEvent({ source: { objectDomain: `${root}.x`, objectId: 'y.z' } });
    const ok = sampleEvent({ source: { objectDomain: `${root}.other`, objectId: 'fine' } });
    const { results } = await t.api.recordEvents([a, b, ok]);
    const refused = results.filter((r) => r.error);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.error).toMatchObject({ rule: 'identity-conflict', field: 'source.object_id' });
    expect(results[2]!.recorded).toBeDefined();
    expect(await countRows(t.pool, 'objects', 'id = $1', [`${root}.x.y.z`])).toBe(1);
    expect(await countRows(t.pool, 'events', 'object_ref = $1', [`${root}.x.y.z`])).toBe(1);
  });

  it('the database refuses a mismatched event even when the registry is bypassed', async () => {
    const root = unique('col');
    await t.api.recordEvent(sampleEvent({ source: { objectDomain: `${root}.p.q`, objectId: 'r' } }));
    // The event type exists in the other domain too, so only the object identity can fail.
    await t.api.recordEvent(sampleEvent({ source: { objectDomain: `${root}.p`, objectId: 'elsewhere' } }));
    await expect(
      t.pool.query(
        `INSERT INTO events (id, object_ref, device_name, domain, event_type) SELECT gen_random_uuid(), $1, device_name, $2, event_type FROM events WHERE object_ref = $1 LIMIT 1`,
        [`${root}.p.q.r`, `${root}.p`],
      ),
    ).rejects.toMatchObject({ code: '23503', constraint: 'events_object_identity_fkey' });
  });
});
