/** The read endpoints (events, devices, objects, event types) and the media endpoint. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API, CREATED_AT, mutate, startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';
import { HTTP_TEST_OPTIONS, jsonOf, resetFakes } from './http-setup.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(HTTP_TEST_OPTIONS);
});
afterAll(() => gw.close());
afterEach(() => resetFakes(gw));

describe('read endpoints', () => {
  it('return what was registered, in the spec shapes', async () => {
    const created = (await gw.post(validBody())).json;
    const get = (path: string) => fetch(`${gw.url}${API}${path}`).then(async (r) => ({ status: r.status, json: await r.json() }));

    expect(await get(`/dynamic-events/${String(created.id)}`)).toEqual({ status: 200, json: created });
    expect(await get('/devices/camera-01')).toEqual({
      status: 200,
      json: { device_name: 'camera-01', kind: 'generic', created_at: CREATED_AT, updated_at: CREATED_AT, created_by_token_id: null, last_seen_at: null },
    });
    expect(await get('/objects/acme.camera.motion.channel-1')).toEqual({
      status: 200,
      json: {
        id: 'acme.camera.motion.channel-1',
        object_id: 'channel-1',
        object_domain: 'acme.camera.motion',
        object_name: 'Front door',
        object_type: 'video_channel',
        device_name: 'camera-01',
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
        created_by_token_id: null,
        last_seen_at: null,
      },
    });
    expect(await get('/event-types/acme.camera.motion/motion')).toEqual({
      status: 200,
      json: { domain: 'acme.camera.motion', event_type: 'motion', display_name: 'Motion', display_description: 'Motion detected', created_at: CREATED_AT, updated_at: CREATED_AT, created_by_token_id: null },
    });
  });

  it('decode path segments (names may hold spaces, slashes, unicode)', async () => {
    await gw.post(mutate((b) => (b.source.device_name = 'cam/01 é')));
    const response = await fetch(`${gw.url}${API}/devices/${encodeURIComponent('cam/01 é')}`);
    expect(response.status).toBe(200);
    expect((await jsonOf(response)).device_name).toBe('cam/01 é');
  });

  it('answer 404 JSON for unknown entities', async () => {
    for (const path of [`/dynamic-events/${crypto.randomUUID()}`, '/dynamic-events/not-a-uuid', '/devices/nope', '/objects/a.b', '/event-types/a/b']) {
      const response = await fetch(`${gw.url}${API}${path}`);
      expect(response.status, path).toBe(404);
      expect(Object.keys(await jsonOf(response))).toEqual(['error']);
    }
    // A non-UUID event id cannot exist: answered without asking the registry.
    expect(gw.registry.calls).toEqual(['getEvent', 'getDevice', 'getObject', 'getEventType']);
  });

  it('quote path values safely in 404s: a bidi override or a newline is escaped, never echoed raw', async () => {
    const answer = async (path: string) => (await jsonOf(await fetch(`${gw.url}${API}${path}`))).error;
    expect(await answer('/dynamic-events/a%E2%80%AEb%0A')).toBe('event "a\\u202eb\\u000a" not found');
    expect(await answer('/media/a%E2%80%AEb')).toBe('image "a\\u202eb" not found');
    expect(await answer('/no/such%E2%80%AE%0Aroute')).not.toMatch(/[\u202e\n]/);
  });
});

describe('media', () => {
  const key = `${'ab'.repeat(32)}.png`;
  const bytes = Buffer.concat([TINY_PNG, Buffer.from([0, 1, 2, 255, 254])]);
  beforeAll(() => {
    gw.media.images.set(key, { contentType: 'image/png', data: bytes });
  });

  it('GET streams the exact bytes with safe, cacheable headers', async () => {
    const response = await fetch(`${gw.url}${API}/media/${key}`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('etag')).toBe(`"${key}"`);
  });

  it('HEAD answers the headers without reading the stream', async () => {
    const before = gw.media.cancelled;
    const response = await fetch(`${gw.url}${API}/media/${key}`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(await response.text()).toBe('');
    expect(gw.media.cancelled).toBe(before + 1);
  });

  it('answers 304 for a matching If-None-Match', async () => {
    const response = await fetch(`${gw.url}${API}/media/${key}`, { headers: { 'If-None-Match': `"${key}"` } });
    expect(response.status).toBe(304);
  });

  it('answers If-None-Match: * with 304 only for an image that exists (404 otherwise)', async () => {
    const cancelled = gw.media.cancelled;
    const existing = await fetch(`${gw.url}${API}/media/${key}`, { headers: { 'If-None-Match': '"other", *' } });
    expect(existing.status).toBe(304);
    expect(existing.headers.get('etag')).toBe(`"${key}"`);
    expect(gw.media.cancelled).toBe(cancelled + 1);
    const missing = await fetch(`${gw.url}${API}/media/${'cd'.repeat(32)}.png`, { headers: { 'If-None-Match': '*' } });
    expect(missing.status).toBe(404);
    expect(Object.keys(await jsonOf(missing))).toEqual(['error']);
  });

  it('answers unknown keys 404 JSON', async () => {
    for (const k of [`${'cd'.repeat(32)}.png`, '..', '.hidden']) {
      const response = await fetch(`${gw.url}${API}/media/${k}`);
      expect(response.status, k).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Object.keys(await jsonOf(response))).toEqual(['error']);
    }
  });

  it('stops the stream when the HTTP client goes away', async () => {
    const big = `${'ef'.repeat(32)}.png`;
    gw.media.images.set(big, { contentType: 'image/png', data: Buffer.alloc(64 * 1024, 7) });
    gw.media.chunkSize = 1024;
    gw.media.chunkDelayMs = 5;
    const before = gw.media.cancelled;
    try {
      const controller = new AbortController();
      const response = await fetch(`${gw.url}${API}/media/${big}`, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await expect.poll(() => gw.media.cancelled, { timeout: 2000 }).toBe(before + 1);
    } finally {
      gw.media.chunkSize = 4;
      gw.media.chunkDelayMs = 0;
    }
  });
});
