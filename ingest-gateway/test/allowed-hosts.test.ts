/**
 * ALLOWED_HOSTS: with a list, a request naming another Host (a DNS-rebinding page's, say) is answered
 * 421 `{"error"}` on every route, the POST's fast path included, storing nothing; the port, letter
 * case and a trailing dot do not matter; the probes answer whatever the Host (the kubelet names the
 * pod's address). Without a list any Host is served.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { API, startGateway, validBody, type TestGateway } from './helpers.js';
import { parseAllowedHosts } from '../src/http/allowed-hosts.js';
import { refusal } from './refusal.js';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** A request with exactly this Host header (fetch would set its own). */
function send(method: string, path: string, host: string | undefined, body?: string): Promise<{ status: number; json: unknown; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
    const req = request(`${gw!.url}${path}`, { method, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    if (host !== undefined) req.setHeader('Host', host);
    req.on('error', reject).end(body);
  });
}
const post = JSON.stringify(validBody());
const REFUSAL = refusal('this Host is not one the gateway serves: add it to ALLOWED_HOSTS', { field: 'Host', rule: 'allowed-hosts' });

describe('with ALLOWED_HOSTS', () => {
  it('answers another Host 421 on reads, the POST (fast path and Koa route) and unknown paths, storing nothing', async () => {
    gw = await startGateway({ allowedHosts: parseAllowedHosts('api.example.com, localhost,::1') });
    for (const [method, path, body] of [['GET', `${API}/devices`], ['POST', `${API}/dynamic-events`, post], ['POST', `${API}/dynamic-events/`, post], ['GET', `${API}/nothing-here`]] as const) {
      const answer = await send(method, path, 'evil.example:8080', body);
      expect(answer.status, `${method} ${path}`).toBe(421);
      expect(answer.json).toEqual(REFUSAL);
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    expect(gw.registry.recorded).toEqual([]);
  });

  it('serves its hosts whatever the port, letter case or trailing dot, IPv6 literals in brackets', async () => {
    gw = await startGateway({ allowedHosts: parseAllowedHosts('api.example.com,localhost,::1') });
    for (const host of ['api.example.com', 'API.Example.COM:8443', 'api.example.com.', 'localhost:8080', '[::1]:8080']) {
      expect((await send('GET', `${API}/devices`, host)).status, host).toBe(200);
    }
    expect((await send('POST', `${API}/dynamic-events`, 'api.example.com', post)).status).toBe(200);
    for (const host of ['example.com', 'api.example.com.evil.example', '[::2]', '127.0.0.1']) expect((await send('GET', `${API}/devices`, host)).status, host).toBe(421);
  });

  it('answers the probes whatever the Host; an HTTP/1.1 request without Host is still 400', async () => {
    gw = await startGateway({ allowedHosts: parseAllowedHosts('api.example.com') });
    expect((await send('GET', '/healthz', '10.1.2.3:8080')).status).toBe(200);
    expect((await send('GET', '/readyz', '10.1.2.3:8080')).status).toBe(200);
    expect((await send('GET', `${API}/devices`, undefined)).status).toBe(400);
  });
});

describe('a wildcard entry', () => {
  it('`*.acme.io` serves one label under acme.io, as an Ingress host does', async () => {
    gw = await startGateway({ allowedHosts: parseAllowedHosts('*.acme.io') });
    expect((await send('GET', `${API}/devices`, 'events.acme.io:443')).status).toBe(200);
    for (const host of ['acme.io', 'a.b.acme.io', 'events.acme.io.evil.example', 'evilacme.io']) expect((await send('GET', `${API}/devices`, host)).status, host).toBe(421);
  });
});

describe('without ALLOWED_HOSTS (unset or *)', () => {
  it('serves any Host', async () => {
    expect(parseAllowedHosts('*')).toBeUndefined();
    expect(parseAllowedHosts(undefined)).toBeUndefined();
    gw = await startGateway();
    expect((await send('GET', `${API}/devices`, 'evil.example')).status).toBe(200);
    expect((await send('POST', `${API}/dynamic-events`, 'evil.example', post)).status).toBe(200);
  });
});
