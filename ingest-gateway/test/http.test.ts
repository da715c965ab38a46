import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError, imageRuleError, UNSUPPORTED_IMAGE_MESSAGE } from '@dynamic-events/proto';
import { API, CREATED_AT, mutate, startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => gw.close());
afterEach(() => {
  gw.registry.failWith = undefined;
  gw.media.failWith = undefined;
  gw.registry.serving = true;
  gw.media.serving = true;
  gw.registry.calls.length = 0;
  gw.media.calls.length = 0;
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST dynamic-events', () => {
  it('records the event and answers the spec shape', async () => {
    const response = await gw.post(validBody());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.json).toEqual({
      id: expect.stringMatching(UUID_V4),
      domain: 'acme.camera.motion',
      event_type: 'motion',
      rels: ['/objects/acme.camera.motion.channel-1'],
      images: ['https://example.test/a.jpg'],
      video_clips: ['https://example.test/a.mp4'],
      event_additional_properties: { zone: 'north', confidence: '0.93' },
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
    });
    expect(gw.registry.calls).toEqual(['recordEvent']);
    expect(gw.media.calls).toEqual([]);
  });

  it('stores base64_image first, appends its URL after the sent images and drops the key', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = `data:image/png;base64,${TINY_PNG.toString('base64')}`));
    const response = await gw.post(body);
    expect(response.status).toBe(200);
    expect(gw.media.calls).toEqual(['storeImage']);
    expect(gw.media.stored.at(-1)).toEqual(TINY_PNG);
    const images = response.json.images as string[];
    expect(images[0]).toBe('https://example.test/a.jpg');
    expect(images[1]).toMatch(new RegExp(`${API}/media/[0-9a-f]{64}\\.png$`));
    expect(response.json.event_additional_properties).toEqual({ zone: 'north', confidence: '0.93' });
    expect(gw.registry.recorded.at(-1)!.properties.map((p) => p.key)).toEqual(['zone', 'confidence']);
    expect(gw.registry.recorded.at(-1)!.images).toEqual(images);
  });

  it('answers media INVALID_ARGUMENT as 400 naming the field, and records nothing', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = Buffer.from('<svg/>').toString('base64')));
    const response = await gw.post(body);
    expect(response).toMatchObject({
      status: 400,
      json: { error: `event.event_data.event_additional_properties.base64_image: ${UNSUPPORTED_IMAGE_MESSAGE}` },
    });
    // At most the identity check (a read, skipped for an object already known) ran before media refused: nothing recorded.
    expect(gw.registry.calls.filter((call) => call !== 'getObject')).toEqual([]);
  });

  it("honours media's httpStatus detail (413 for its size limit)", async () => {
    gw.media.failWith = imageRuleError.tooLarge(100);
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64')));
    const response = await gw.post(body);
    expect(response).toMatchObject({
      status: 413,
      json: { error: 'event.event_data.event_additional_properties.base64_image: image is larger than the limit of 100 bytes' },
    });
    // At most the identity check (a read, skipped for an object already known) ran before media refused: nothing recorded.
    expect(gw.registry.calls.filter((call) => call !== 'getObject')).toEqual([]);
  });

  it('answers 500 "internal error" without internal text when a client throws a plain Error', async () => {
    gw.registry.failWith = new Error('connect ECONNREFUSED postgres://admin:secret@db:5432');
    const response = await gw.post(validBody());
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: 'internal error' });
    const logged = gw.logs.find((l) => l.msg === 'request failed');
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).toContain('ECONNREFUSED');
    expect(logged!.requestId).toBe(response.headers.get('x-request-id'));
    // The server keeps serving.
    gw.registry.failWith = undefined;
    expect((await gw.post(validBody())).status).toBe(200);
  });

  it('passes registry AppErrors through with their status', async () => {
    gw.registry.failWith = new AppError('UNAVAILABLE', 'registry is not ready');
    expect(await gw.post(validBody())).toMatchObject({ status: 503, json: { error: 'registry is not ready' } });
    gw.registry.failWith = new AppError('INTERNAL', 'internal error');
    expect(await gw.post(validBody())).toMatchObject({ status: 500, json: { error: 'internal error' } });
  });

  it('answers 413 for a body over MAX_BODY_BYTES without calling anything', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.note = 'x'.repeat(70 * 1024)));
    const response = await gw.post(body);
    expect(response).toMatchObject({ status: 413, json: { error: `body exceeds ${64 * 1024} bytes` } });
    expect(gw.registry.calls).toEqual([]);
    // A chunked body without Content-Length is cut at the limit too.
    const chunked = await rawRequest('POST', `${API}/dynamic-events`, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, JSON.stringify(body));
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual({ error: `body exceeds ${64 * 1024} bytes` });
  });

  it.each([
    ['text/plain', 'Content-Type must be application/json'],
    ['application/x-www-form-urlencoded', 'Content-Type must be application/json'],
    ['application/json-patch+json', 'Content-Type must be application/json'],
    ['application/jsonx', 'Content-Type must be application/json'],
    ['multipart/form-data; boundary=x', 'Content-Type must be application/json'],
    ['application/json; charset=latin1', 'Content-Type charset must be utf-8'],
  ])('answers 415 for Content-Type %s', async (type, message) => {
    const response = await gw.post(validBody(), { 'Content-Type': type });
    expect(response).toMatchObject({ status: 415, json: { error: message } });
    expect(gw.registry.calls).toEqual([]);
  });

  it('reads compressed bodies, limits their decompressed size and rejects bad encodings', async () => {
    const headers = (encoding: string) => ({ 'Content-Type': 'application/json', 'Content-Encoding': encoding });
    const path = `${API}/dynamic-events`;
    const ok = await rawRequest('POST', path, headers('gzip'), gzipSync(JSON.stringify(validBody())));
    expect(ok.status).toBe(200);
    const bomb = await rawRequest('POST', path, headers('gzip'), gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20)));
    expect(bomb).toMatchObject({ status: 413, body: JSON.stringify({ error: `body exceeds ${64 * 1024} bytes` }) });
    const corrupt = await rawRequest('POST', path, headers('br'), Buffer.from('definitely not brotli'));
    expect(corrupt).toMatchObject({ status: 400, body: JSON.stringify({ error: 'body is not valid br data' }) });
    const unknown = await rawRequest('POST', path, headers('compress'), Buffer.from('{}'));
    expect(unknown).toMatchObject({ status: 415, body: JSON.stringify({ error: 'Content-Encoding "compress" is not supported (use gzip, deflate, br or none)' }) });
    expect(gw.registry.calls).toEqual(['recordEvent']);
  });

  it('answers 415 when Content-Type is missing', async () => {
    const response = await rawRequest('POST', `${API}/dynamic-events`, {}, JSON.stringify(validBody()));
    expect(response.status).toBe(415);
    expect(JSON.parse(response.body)).toEqual({ error: 'Content-Type must be application/json' });
  });

  it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON; charset="utf-8"', 'application/json; foo=bar'])(
    'accepts Content-Type %s',
    async (type) => {
      expect((await gw.post(validBody(), { 'Content-Type': type })).status).toBe(200);
    },
  );
});

describe('request ids', () => {
  it('keeps a sane X-Request-Id, passes it to the clients, and logs one line per request', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64')));
    const response = await gw.post(body, { 'X-Request-Id': 'trace-abc-123' });
    expect(response.headers.get('x-request-id')).toBe('trace-abc-123');
    expect(gw.media.requestIds.at(-1)).toBe('trace-abc-123');
    expect(gw.registry.requestIds.at(-1)).toBe('trace-abc-123');
    await new Promise((r) => setTimeout(r, 20));
    const line = gw.logs.find((l) => l.msg === 'request' && l.requestId === 'trace-abc-123');
    expect(line).toMatchObject({ method: 'POST', route: `${API}/dynamic-events`, status: 200 });
    expect(typeof line!.durationMs).toBe('number');
  });

  it('replaces an insane X-Request-Id with a UUID', async () => {
    for (const sent of ['x'.repeat(129), 'has space', 'tab\there']) {
      const response = await gw.post(validBody(), { 'X-Request-Id': sent });
      expect(response.headers.get('x-request-id')).toMatch(UUID_V4);
    }
  });
});

describe('routing', () => {
  it('answers unknown paths 404 JSON', async () => {
    const response = await fetch(`${gw.url}/x`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ error: 'no route for GET /x' });
    expect(await (await fetch(`${gw.url}/api/other/dh/dynamic-events`, { method: 'POST' })).json()).toEqual({
      error: 'no route for POST /api/other/dh/dynamic-events',
    });
  });

  it('answers a wrong method 405 JSON with Allow', async () => {
    // GET lists events since issue 8: PUT is the wrong method now.
    const put = await fetch(`${gw.url}${API}/dynamic-events`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST, HEAD, GET');
    expect(await put.json()).toEqual({ error: `method PUT not allowed for ${API}/dynamic-events (allowed: POST, HEAD, GET)` });
    const del = await fetch(`${gw.url}${API}/dynamic-events/${crypto.randomUUID()}`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('HEAD, GET');
    expect((await jsonOf(del)).error).toMatch(/^method DELETE not allowed/);
    const post = await fetch(`${gw.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('answers an HTTP/1.1 request without Host 400 JSON naming the header (Node would answer a bare 400)', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      // A flat array of raw headers: Node's client adds no Host of its own then.
      const req = httpRequest(`${gw.url}/healthz`, { headers: ['Accept', 'application/json'] }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject).end();
    });
    expect(answer).toEqual({ status: 400, body: JSON.stringify({ error: 'Host header is required (HTTP/1.1)' }) });
  });

  it('answers OPTIONS 204 with Allow, and any other method on a known path 405 JSON with Allow', async () => {
    const options = await fetch(`${gw.url}${API}/dynamic-events`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, HEAD, GET');
    // node:http, because fetch refuses to send TRACE.
    const send = (method: string) =>
      new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
        const req = httpRequest(`${gw.url}${API}/dynamic-events`, { method }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body }));
        });
        req.on('error', reject).end();
      });
    for (const method of ['PROPFIND', 'TRACE', 'PURGE']) {
      const answer = await send(method);
      expect(answer.status, method).toBe(405);
      expect(answer.allow).toBe('POST, HEAD, GET');
      expect(JSON.parse(answer.body)).toEqual({ error: `method ${method} not allowed for ${API}/dynamic-events (allowed: POST, HEAD, GET)` });
    }
    const elsewhere = await fetch(`${gw.url}/no/such/path`, { method: 'PROPFIND' });
    expect(elsewhere.status).toBe(404);
  });

  it('labels metrics with route patterns, never raw paths', async () => {
    await fetch(`${gw.url}${API}/devices/device-with-a-secret-name`);
    await fetch(`${gw.url}/no/such/path/12345`);
    const text = await (await fetch(gw.metricsUrl)).text();
    expect(text).toContain(`http_requests_total{method="GET",route="${API}/devices/:deviceName",status_class="4xx"}`);
    expect(text).toContain('route="unmatched"');
    expect(text).toContain('http_request_duration_seconds_bucket');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain('device-with-a-secret-name');
    expect(text).not.toContain('12345');
  });
});

describe('read endpoints', () => {
  it('return what was registered, in the spec shapes', async () => {
    const created = (await gw.post(validBody())).json;
    const get = (path: string) => fetch(`${gw.url}${API}${path}`).then(async (r) => ({ status: r.status, json: await r.json() }));

    expect(await get(`/dynamic-events/${String(created.id)}`)).toEqual({ status: 200, json: created });
    expect(await get('/devices/camera-01')).toEqual({
      status: 200,
      json: { device_name: 'camera-01', kind: 'generic', created_at: CREATED_AT, updated_at: CREATED_AT },
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
      },
    });
    expect(await get('/event-types/acme.camera.motion/motion')).toEqual({
      status: 200,
      json: { domain: 'acme.camera.motion', event_type: 'motion', display_name: 'Motion', display_description: 'Motion detected', created_at: CREATED_AT, updated_at: CREATED_AT },
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

describe('health', () => {
  it('/healthz answers ok', async () => {
    const response = await fetch(`${gw.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('/readyz follows the dependencies', async () => {
    const ready = async () => {
      const r = await fetch(`${gw.url}/readyz`);
      return { status: r.status, json: await r.json() };
    };
    expect(await ready()).toEqual({ status: 200, json: { status: 'ready' } });
    gw.registry.serving = false;
    expect(await ready()).toEqual({ status: 503, json: { error: 'not ready: registry' } });
    gw.media.serving = false;
    expect(await ready()).toEqual({ status: 503, json: { error: 'not ready: registry, media' } });
    gw.registry.serving = true;
    expect(await ready()).toEqual({ status: 503, json: { error: 'not ready: media' } });
    gw.media.isServing = async () => {
      throw new Error('boom');
    };
    expect(await ready()).toEqual({ status: 503, json: { error: 'not ready: media' } });
  });

  it('/readyz answers 503 once shutdown starts, and responses close their connection', async () => {
    const other = await startGateway();
    try {
      other.draining.abort();
      const response = await fetch(`${other.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: 'not ready: shutting down' });
      expect(response.headers.get('connection')).toBe('close');
    } finally {
      await other.close();
    }
  });
});

/** A request with exact headers (fetch always adds a Content-Type for string bodies). */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gw.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function jsonOf(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}
