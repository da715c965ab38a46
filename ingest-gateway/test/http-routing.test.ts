/** Routing (404, 405, OPTIONS, a missing Host), route-labelled metrics, and the health endpoints. */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API, startGateway, type TestGateway } from './helpers.js';
import { HTTP_TEST_OPTIONS, jsonOf, resetFakes } from './http-setup.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(HTTP_TEST_OPTIONS);
});
afterAll(() => gw.close());
afterEach(() => resetFakes(gw));

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
    // POST records, GET lists and HEAD answers GET's headers: PUT is a method the route lacks.
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
    expect(answer).toEqual({ status: 400, body: JSON.stringify({ error: 'Host header is required (HTTP/1.1)', field: 'Host', rule: 'required' }) });
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
