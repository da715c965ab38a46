import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, startGateway, validBody, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

const TOKEN = 's3cr3t-token_with.symbols~+/=';

describe('with DYNAMIC_EVENTS_TOKEN set', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ token: TOKEN });
  });
  afterAll(() => gw.close());

  it.each([
    ['no Authorization header', {}, 'missing bearer token', 'Bearer realm="dynamic-events"'],
    ['another scheme', { Authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` }, 'Authorization must be "Bearer <token>"', 'Bearer realm="dynamic-events"'],
    ['Bearer without token', { Authorization: 'Bearer ' }, 'Authorization must be "Bearer <token>"', 'Bearer realm="dynamic-events"'],
    ['a wrong token', { Authorization: 'Bearer wrong' }, 'invalid bearer token', 'Bearer realm="dynamic-events", error="invalid_token"'],
    ['a token prefix', { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }, 'invalid bearer token', 'Bearer realm="dynamic-events", error="invalid_token"'],
    ['a longer token', { Authorization: `Bearer ${TOKEN}x` }, 'invalid bearer token', 'Bearer realm="dynamic-events", error="invalid_token"'],
  ])('rejects %s with 401 and a challenge, storing nothing', async (_name, headers, message, challenge) => {
    const response = await gw.post(validBody(), headers);
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ error: message });
    expect(response.headers.get('www-authenticate')).toBe(challenge);
    expect(gw.registry.calls).toEqual([]);
    expect(gw.media.calls).toEqual([]);
  });

  it('refuses two Authorization headers with 400, even when one holds the right token, storing nothing', async () => {
    for (const pair of [[`Bearer ${TOKEN}`, 'Bearer wrong'], [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]]) {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        // A flat array of raw header pairs keeps both headers on the wire.
        const body = JSON.stringify(validBody());
        const headers = ['Host', new URL(gw.url).host, 'Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), 'Authorization', pair[0]!, 'Authorization', pair[1]!];
        const req = httpRequest(`${gw.url}${API}/dynamic-events`, { method: 'POST', headers }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject).end(body);
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual(refusal('Authorization must be sent once', { field: 'Authorization', rule: 'duplicate' }));
    }
    expect(gw.registry.calls).toEqual([]);
    expect(gw.media.calls).toEqual([]);
  });

  it('authenticates before reading the body (invalid JSON, wrong type, huge body)', async () => {
    expect((await gw.post('{not json')).status).toBe(401);
    expect((await gw.post(validBody(), { 'Content-Type': 'text/plain' })).status).toBe(401);
    expect((await gw.post('x'.repeat(17 * 1024 * 1024))).status).toBe(401);
  });

  it('accepts the right token (scheme case-insensitive)', async () => {
    expect((await gw.post(validBody(), { Authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await gw.post(validBody(), { Authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });

  it('protects the read endpoints but not health or media, and keeps metrics off the public port', async () => {
    for (const path of [`${API}/dynamic-events/${crypto.randomUUID()}`, `${API}/devices/camera-01`, `${API}/objects/a.b`, `${API}/event-types/a/b`]) {
      const denied = await fetch(`${gw.url}${path}`);
      expect(denied.status, path).toBe(401);
      expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="dynamic-events"');
      const allowed = await fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(allowed.status, path).not.toBe(401);
    }
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    expect((await fetch(gw.metricsUrl)).status).toBe(200);
    expect((await fetch(`${gw.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${gw.url}${API}/media/${'ab'.repeat(32)}.png`)).status).toBe(404);
  });

  it('counts auth failures by reason', async () => {
    const text = await (await fetch(gw.metricsUrl)).text();
    expect(text).toMatch(/http_auth_failures_total\{reason="missing"\} [1-9]/);
    expect(text).toMatch(/http_auth_failures_total\{reason="invalid"\} [1-9]/);
  });

  it('never logs the token', () => {
    expect(JSON.stringify(gw.logs)).not.toContain(TOKEN);
  });
});

describe('without a token', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  it('needs no header and ignores any Authorization header', async () => {
    expect((await gw.post(validBody())).status).toBe(200);
    expect((await gw.post(validBody(), { Authorization: 'Bearer anything' })).status).toBe(200);
    expect((await gw.post(validBody(), { Authorization: 'garbage' })).status).toBe(200);
    expect((await fetch(`${gw.url}${API}/devices/camera-01`, { headers: { Authorization: 'Basic x' } })).status).toBe(200);
  });
});
