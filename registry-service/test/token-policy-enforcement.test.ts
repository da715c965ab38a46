/**
 * A token's policy in the registry's write path, over real gRPC and PostgreSQL: who sent or created
 * what, may_create (refused before anything is written), max_devices / max_objects under concurrency
 * (counted inside the write statement), revoked tokens, and Idempotency-Keys scoped per token.
 */
import { describe, expect, it } from 'vitest';
import type { registry } from '@dynamic-events/proto';
import { postgresAvailable } from '../../test/support/servers.js';
import { countRows, sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';
import { rejection, tokenApi, type TokenApi } from './token-api.js';

const up = await postgresAvailable();

let t: TestRegistry;
let tokens: TokenApi;
if (up) {
  useFreshRegistry((started) => {
    t = started;
    tokens = tokenApi(started.address);
  });
}

const policy = (p: Partial<registry.TokenPolicy>): registry.TokenPolicy => ({ mayCreate: undefined, domains: undefined, rate: undefined, ...p });
const newToken = async (name: string, p: Partial<registry.TokenPolicy> = {}) => (await tokens.create({ name: unique(name), policy: policy(p) })).token!;
/** An event of `tokenId` naming fresh entities unless `source` says otherwise. */
const eventOf = (tokenId: string, source: Partial<registry.Source> = {}, eventType = unique('type')) =>
  sampleEvent({ source: { deviceName: unique('dev'), objectId: unique('obj'), objectDomain: 'acme.policy', ...source }, eventType: { eventType }, tokenId });

describe.skipIf(!up)('token attribution', () => {
  it('records the sending token on the event and the creating token on each entity it created, and lists by token', async () => {
    const [a, b] = [await newToken('a'), await newToken('b')];
    const device = unique('shared-dev');
    const first = await t.api.recordEvent(eventOf(a.id, { deviceName: device, objectId: 'o1' }, 'shared_type'));
    const second = await t.api.recordEvent(eventOf(b.id, { deviceName: device, objectId: 'o1' }, 'shared_type'));
    expect([first.event!.tokenId, second.event!.tokenId]).toEqual([a.id, b.id]);
    expect((await t.api.getEvent(second.event!.id)).event!.tokenId).toBe(b.id);
    // The creator stays the first sender.
    expect((await t.api.getDevice(device)).device!.createdByTokenId).toBe(a.id);
    expect((await t.api.getObject('acme.policy.o1')).object!.createdByTokenId).toBe(a.id);
    expect((await t.api.getEventType('acme.policy', 'shared_type')).eventType!.createdByTokenId).toBe(a.id);
    const listed = await t.api.listEvents({ filter: { deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: b.id, domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined } });
    expect(listed.events.map((e) => e.id)).toEqual([second.event!.id]);
    // No token: empty, as for an instance that runs without tokens.
    expect((await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('anon') } }))).event!.tokenId).toBe('');
  });

  it('refuses a malformed token id and a malformed token_id filter, naming the field', async () => {
    const bad = await rejection(t.api.recordEvent(eventOf('not-a-uuid')));
    expect({ code: bad.code, field: bad.details.field }).toEqual({ code: 'INVALID_ARGUMENT', field: 'token_id' });
    const filter = await rejection(t.api.listEvents({ filter: { deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: 'x', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined } }));
    expect({ code: filter.code, field: filter.details.field }).toEqual({ code: 'INVALID_ARGUMENT', field: 'token_id' });
  });
});

describe.skipIf(!up)('may_create', () => {
  it('refuses what the token may not create with PERMISSION_DENIED naming token and rule, storing nothing; the other events of the call go on', async () => {
    const open = await newToken('open');
    const preProvisioned = await newToken('vendor-x', { mayCreate: { values: ['objects', 'event_types'] } });
    const refusedEvent = eventOf(preProvisioned.id);
    const { results } = await t.api.recordEvents([refusedEvent, eventOf(open.id)]);
    expect(results[0]!.error).toMatchObject({ code: 7, message: `token '${preProvisioned.name}' may not create devices`, field: 'source.device_name', rule: 'token-may-create' });
    expect(results[1]!.recorded?.event?.id).toBeTruthy();
    const device = refusedEvent.source!.deviceName;
    expect(await countRows(t.pool, 'devices', 'device_name = $1', [device])).toBe(0);
    expect(await countRows(t.pool, 'objects', 'object_id = $1', [refusedEvent.source!.objectId])).toBe(0);
    expect(await countRows(t.pool, 'event_types', 'event_type = $1', [refusedEvent.eventType!.eventType])).toBe(0);
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(0);
    // Once the device exists (made by another token), the same token may send for it and create the rest.
    await t.api.recordEvent(eventOf(open.id, { deviceName: device }));
    const ok = await t.api.recordEvent(eventOf(preProvisioned.id, { deviceName: device }));
    expect(ok.outcome).toEqual({ deviceCreated: false, objectCreated: true, eventTypeCreated: true });
  });

  it('an empty may_create sends only for existing entities, kind by kind', async () => {
    const open = await newToken('open');
    const none = await newToken('nothing', { mayCreate: { values: [] } });
    const existing = eventOf(open.id);
    await t.api.recordEvent(existing);
    expect((await t.api.recordEvent({ ...existing, tokenId: none.id })).outcome).toEqual({ deviceCreated: false, objectCreated: false, eventTypeCreated: false });
    const newObject = await rejection(t.api.recordEvent({ ...existing, tokenId: none.id, source: { ...existing.source!, objectId: unique('o') } }));
    expect(newObject.message).toBe(`token '${none.name}' may not create objects`);
    const newType = await rejection(t.api.recordEvent({ ...existing, tokenId: none.id, eventType: { ...existing.eventType!, eventType: unique('t') } }));
    expect({ code: newType.code, message: newType.message, field: newType.details.field }).toEqual({
      code: 'PERMISSION_DENIED',
      message: `token '${none.name}' may not create event types`,
      field: 'event.event_type.event_type',
    });
  });
});

describe.skipIf(!up)('max_devices and max_objects', () => {
  it('lets exactly max_devices of many concurrent first sightings through; the rest are refused and store nothing', async () => {
    const limited = await newToken('limited', { maxDevices: '3' });
    const events = Array.from({ length: 12 }, () => eventOf(limited.id));
    const results = await Promise.all(events.map((e) => t.api.recordEvent(e).then(() => undefined, (err: unknown) => err)));
    const refused = results.filter((r) => r !== undefined);
    expect(results.length - refused.length).toBe(3);
    for (const err of refused) expect(err).toMatchObject({ code: 'PERMISSION_DENIED', message: `token '${limited.name}' may not create more than 3 devices`, details: { rule: 'token-max-devices' } });
    expect(await countRows(t.pool, 'devices', 'created_by_token_id = $1', [limited.id])).toBe(3);
    expect(await countRows(t.pool, 'events', 'token_id = $1', [limited.id])).toBe(3);
    expect(await countRows(t.pool, 'objects', 'created_by_token_id = $1', [limited.id])).toBe(3);
    // Existing devices stay open to it.
    const again = await t.api.recordEvent(eventOf(limited.id, { deviceName: (await t.api.listEvents({ filter: { deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: limited.id, domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined } })).events[0]!.deviceName }));
    expect(again.outcome?.deviceCreated).toBe(false);
  });

  it('counts what the token created before its limit was set', async () => {
    const token = await newToken('later');
    await t.api.recordEvent(eventOf(token.id));
    await t.api.recordEvent(eventOf(token.id));
    // In force from the answer on: the write statement reads the limit from the token's row.
    await tokens.update({ id: token.id, policy: policy({ maxDevices: '2' }) });
    const err = await rejection(t.api.recordEvent(eventOf(token.id)));
    expect({ code: err.code, rule: err.details.rule }).toEqual({ code: 'PERMISSION_DENIED', rule: 'token-max-devices' });
  });

  it('counts objects the same way, in one call with other tokens’ events', async () => {
    const limited = await newToken('objects', { maxObjects: '2' });
    const open = await newToken('open');
    const device = unique('dev');
    await t.api.recordEvent(eventOf(open.id, { deviceName: device }));
    const { results } = await t.api.recordEvents([...Array.from({ length: 4 }, () => eventOf(limited.id, { deviceName: device })), eventOf(open.id)]);
    expect(results.filter((r) => r.recorded).length).toBe(3);
    expect(results.filter((r) => r.error?.rule === 'token-max-objects').length).toBe(2);
    expect(results[4]!.recorded).toBeTruthy();
  });
});

describe.skipIf(!up)('CheckEvent (asked before an image is stored)', () => {
  it('refuses what RecordEvent would refuse for the token, limits included, and writes nothing', async () => {
    const open = await newToken('open');
    const strict = await newToken('strict', { mayCreate: { values: ['objects', 'event_types'] }, maxObjects: '1' });
    const device = unique('dev');
    await t.api.recordEvent(eventOf(open.id, { deviceName: device }));
    const newDevice = await rejection(t.api.checkEvent(eventOf(strict.id)));
    expect({ code: newDevice.code, message: newDevice.message }).toEqual({ code: 'PERMISSION_DENIED', message: `token '${strict.name}' may not create devices` });
    // Within the limit: accepted, and nothing written by the check.
    const first = eventOf(strict.id, { deviceName: device });
    expect(await t.api.checkEvent(first)).toEqual({});
    expect(await countRows(t.pool, 'objects', 'created_by_token_id = $1', [strict.id])).toBe(0);
    await t.api.recordEvent(first);
    // The limit reached: a new object is refused before anything is stored; an existing one is fine.
    const over = await rejection(t.api.checkEvent(eventOf(strict.id, { deviceName: device })));
    expect({ code: over.code, message: over.message, rule: over.details.rule }).toEqual({
      code: 'PERMISSION_DENIED',
      message: `token '${strict.name}' may not create more than 1 objects`,
      rule: 'token-max-objects',
    });
    expect(await t.api.checkEvent({ ...first, eventType: { ...first.eventType!, eventType: unique('t') } })).toEqual({});
    // The same rules as RecordEvent for the values themselves.
    const invalid = await rejection(t.api.checkEvent({ ...first, source: { ...first.source!, deviceName: '' } }));
    expect(invalid.code).toBe('INVALID_ARGUMENT');
  });
});

describe.skipIf(!up)('revoked tokens and Idempotency-Keys', () => {
  it('refuses events of a revoked token', async () => {
    const token = await newToken('gone');
    await tokens.revoke(token.id);
    const err = await rejection(t.api.recordEvent(eventOf(token.id)));
    expect({ code: err.code, rule: err.details.rule }).toEqual({ code: 'PERMISSION_DENIED', rule: 'token-revoked' });
  });

  it('refuses events of an expired token as expired, in RecordEvent, RecordEvents and CheckEvent, and stores nothing', async () => {
    const at = Date.now() + 700;
    const { token } = await tokens.create({ name: unique('expiring'), expiresAt: { seconds: String(Math.floor(at / 1000)), nanos: (at % 1000) * 1_000_000 } });
    expect((await t.api.recordEvent(eventOf(token!.id))).event!.tokenId).toBe(token!.id);
    await new Promise((resolve) => setTimeout(resolve, at - Date.now() + 50));
    const expected = { code: 'PERMISSION_DENIED', rule: 'token-expired', message: 'the token that sent this event has expired' };
    for (const call of [() => t.api.recordEvent(eventOf(token!.id)), () => t.api.checkEvent(eventOf(token!.id))]) {
      const err = await rejection(call());
      expect({ code: err.code, rule: err.details.rule, message: err.message }).toEqual(expected);
    }
    const { results } = await t.api.recordEvents([eventOf(token!.id)]);
    expect(results[0]!.error).toMatchObject({ code: 7, message: expected.message, rule: 'token-expired' });
    expect(await countRows(t.pool, 'events', 'token_id = $1', [token!.id])).toBe(1);
  });

  it('refuses events of a token id no token has as unknown, not revoked', async () => {
    const unknownId = '0190d3c2-0000-7000-8000-0000000000ff';
    const err = await rejection(t.api.recordEvent(eventOf(unknownId)));
    expect({ code: err.code, rule: err.details.rule, message: err.message }).toEqual({ code: 'PERMISSION_DENIED', rule: 'token-unknown', message: 'the token that sent this event is unknown' });
  });

  it('scopes a key to its token: two tokens may use the same key, one token replays its own', async () => {
    const [a, b] = [await newToken('key-a'), await newToken('key-b')];
    const key = unique('key');
    const withKey = (tokenId: string) => ({ ...eventOf(tokenId, { deviceName: 'key-dev', objectId: 'key-obj' }, 'key_type'), idempotencyKey: key, requestHash: 'h' });
    const first = await t.api.recordEvent(withKey(a.id));
    const other = await t.api.recordEvent(withKey(b.id));
    const replay = await t.api.recordEvent(withKey(a.id));
    expect(other.event!.id).not.toBe(first.event!.id);
    expect(replay.event!.id).toBe(first.event!.id);
  });
});
