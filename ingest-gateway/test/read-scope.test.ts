/**
 * What a token may read: a token whose policy lists domains reads events, objects and event types
 * only within them, devices only that it created; its lists and stream run with its patterns as the
 * registry's filter unless it names one of its domains; an out-of-scope single read is the same 404
 * as an unknown one. A token without a domains restriction (and the bootstrap token, and an open
 * instance) reads everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, mutate, startGateway, validBody, type TestGateway } from './helpers.js';
import { fakeTokens } from './fake-tokens.js';

let gw: TestGateway;
const tokens = fakeTokens();
const scopedSecret = tokens.add('vendor-acme', { policy: { domains: ['acme.camera.*'] } });
const openSecret = tokens.add('platform');
const [scopedId, openId] = [tokens.records[0]!.id, tokens.records[1]!.id];
const scoped = { Authorization: `Bearer ${scopedSecret}` };
const open = { Authorization: `Bearer ${openSecret}` };
const ids: Record<string, string> = {};

const get = async (path: string, headers: Record<string, string>) => {
  const response = await fetch(`${gw.url}${API}${path}`, { headers });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source } });
  // camera-01 and the acme event by the open token; cam-acme by the scoped one; a globex event by the open one.
  ids.acme = String((await gw.post(validBody(), open)).json.id);
  ids.acmeOwn = String((await gw.post(mutate((b) => (b.source.device_name = 'cam-acme')), scoped)).json.id);
  ids.globex = String((await gw.post(mutate((b) => ((b.source.object_domain = 'globex.door'), (b.source.device_name = 'door-1'))), open)).json.id);
});
afterAll(() => gw.close());

describe('single reads of a domain-restricted token', () => {
  it('read what lies within its domains, and devices it created', async () => {
    for (const path of [`/dynamic-events/${ids.acme}`, '/objects/acme.camera.motion.channel-1', '/event-types/acme.camera.motion/motion', '/devices/cam-acme']) {
      expect((await get(path, scoped)).status, path).toBe(200);
    }
  });

  it('answer what lies outside as unknown: 404 with the same message', async () => {
    const unknownEvent = await get('/dynamic-events/00000000-0000-7000-8000-0000000000ff', scoped);
    const cases: Array<[string, string]> = [
      [`/dynamic-events/${ids.globex}`, `event ${ids.globex} not found`],
      ['/objects/globex.door.channel-1', 'object "globex.door.channel-1" not found'],
      ['/event-types/globex.door/motion', 'event type "motion" in domain "globex.door" not found'],
      // camera-01 lies in no domain and the platform token created it.
      ['/devices/camera-01', 'device "camera-01" not found'],
      ['/devices/door-1', 'device "door-1" not found'],
    ];
    for (const [path, message] of cases) expect(await get(path, scoped), path).toEqual({ status: 404, json: { error: message } });
    expect(unknownEvent.status).toBe(404);
  });
});

describe('lists and the stream of a domain-restricted token', () => {
  const listed = async (path: string, key: string, field: string) => {
    const answer = await get(path, scoped);
    expect(answer.status, path).toBe(200);
    return (answer.json[key] as Array<Record<string, unknown>>).map((item) => item[field]);
  };

  it('without domain= answer across its domains only: events, objects, event types; devices it created', async () => {
    expect((await listed('/dynamic-events', 'events', 'id')).sort()).toEqual([ids.acme, ids.acmeOwn].sort());
    expect(await listed('/objects', 'objects', 'object_domain')).toEqual(['acme.camera.motion']);
    expect(await listed('/event-types', 'event_types', 'domain')).toEqual(['acme.camera.motion']);
    expect(await listed('/devices', 'devices', 'device_name')).toEqual(['cam-acme']);
    // A filter that points outside its domains finds nothing there.
    expect(await listed('/dynamic-events?object=globex.door.channel-1', 'events', 'id')).toEqual([]);
    expect(await listed(`/dynamic-events?token_id=${scopedId}`, 'events', 'id')).toEqual([ids.acmeOwn]);
    expect(gw.registry.lastQuery).toMatchObject({ tokenId: scopedId, domainPatterns: ['acme.camera.*'] });
  });

  it('are refused (403) when they name a domain outside its patterns, or another token by token_id', async () => {
    const refused = [
      '/dynamic-events?domain=globex.door',
      '/dynamic-events?domain=acme.camera',
      '/dynamic-events/stream?domain=globex.door',
      '/objects?domain=globex.door',
      '/event-types?domain=globex.door',
      `/dynamic-events?domain=acme.camera.motion&token_id=${openId}`,
      `/dynamic-events?token_id=${openId}`,
    ];
    for (const path of refused) {
      const answer = await get(path, scoped);
      expect(answer.status, path).toBe(403);
      expect(String(answer.json.error), path).toMatch(/^token 'vendor-acme' may read only (its domains|its own events by token_id) \(allowed domains: acme\.camera\.\*\)$/);
    }
  });

  it('answer within a domain it names, its own events by token_id included', async () => {
    const events = await get('/dynamic-events?domain=acme.camera.motion', scoped);
    expect(events.status).toBe(200);
    expect((events.json.events as Array<{ domain: string }>).map((e) => e.domain)).toEqual(['acme.camera.motion', 'acme.camera.motion']);
    expect((await get(`/dynamic-events?domain=acme.camera.motion&token_id=${scopedId}`, scoped)).status).toBe(200);
    expect((await get('/dynamic-events?domain=acme.camera.motion&object=acme.camera.motion.channel-1', scoped)).status).toBe(200);
    expect((await get('/objects?domain=acme.camera.motion', scoped)).status).toBe(200);
    expect((await get('/event-types?domain=acme.camera.motion', scoped)).status).toBe(200);
  });

  it('stream without domain= with its patterns as the filter', async () => {
    gw.registry.watchMessages = [{ cursor: 'c0', changes: [] }];
    const controller = new AbortController();
    const response = await fetch(`${gw.url}${API}/dynamic-events/stream`, { headers: scoped, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(gw.registry.lastQuery).toMatchObject({ domainPatterns: ['acme.camera.*'] });
    controller.abort();
  });
});

describe('a token without a domains restriction', () => {
  it('reads everything: every single read, list and filter', async () => {
    for (const path of [
      `/dynamic-events/${ids.globex}`,
      `/dynamic-events/${ids.acmeOwn}`,
      '/devices/camera-01',
      '/devices/cam-acme',
      '/objects/globex.door.channel-1',
      '/event-types/globex.door/motion',
      '/dynamic-events',
      `/dynamic-events?token_id=${scopedId}`,
      '/devices',
      '/objects',
      '/event-types',
    ]) {
      expect((await get(path, open)).status, path).toBe(200);
    }
  });
});
