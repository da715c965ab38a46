/**
 * What every answer tells the browser: the API's JSON (successes, refusals, the router's 404, the
 * admin API, the probes; the POST's fast path and its Koa route alike) is never cached, sniffed or
 * framed; stored images keep their immutable caching; the console adds isolation from other origins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, mutate, startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';
import { fakeTokens } from './fake-tokens.js';
import { CONSOLE_HEADERS } from '../src/http/routes/console.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';
const admin = { Authorization: `Bearer ${ADMIN}` };

let gw: TestGateway;
beforeAll(async () => {
  const tokens = fakeTokens();
  tokens.requireToken = false;
  gw = await startGateway({ adminToken: ADMIN, tokens: { client: tokens.client, source: tokens.source } });
});
afterAll(() => gw.close());

function expectJsonHeaders(response: Response, what: string): void {
  expect(response.headers.get('content-type'), what).toMatch(/^application\/json/);
  expect(response.headers.get('cache-control'), what).toBe('no-store');
  expect(response.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(response.headers.get('x-frame-options'), what).toBe('DENY');
}

describe('API JSON responses', () => {
  it('carry Cache-Control: no-store, nosniff and X-Frame-Options: DENY on success and failure, on every path', async () => {
    const posted = await fetch(`${gw.url}${API}/dynamic-events`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(validBody()) });
    expect(posted.status).toBe(200);
    expectJsonHeaders(posted, 'fast-path POST');
    const id = String(((await posted.json()) as { id: string }).id);
    const refused = await fetch(`${gw.url}${API}/dynamic-events`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
    expect(refused.status).toBe(400);
    expectJsonHeaders(refused, 'fast-path refusal');
    const koaPost = await fetch(`${gw.url}${API}/dynamic-events/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(validBody()) });
    expect(koaPost.status).toBe(200);
    expectJsonHeaders(koaPost, 'Koa POST');
    const cases: Array<[string, Record<string, string>, number]> = [
      [`/dynamic-events/${id}`, {}, 200],
      ['/dynamic-events', {}, 200],
      ['/devices', {}, 200],
      ['/no-such-route/<b>', {}, 404],
      ['/dynamic-events?limit=0', {}, 400],
      ['/settings/dynamic-events/tokens', admin, 200],
      ['/settings/dynamic-events', admin, 200],
      ['/settings/dynamic-events/tokens', {}, 401],
      ['/media/no-such-image.png', {}, 404],
    ];
    for (const [path, headers, status] of cases) {
      const response = await fetch(`${gw.url}${API}${path}`, { headers });
      expect(response.status, path).toBe(status);
      expectJsonHeaders(response, path);
    }
    for (const path of ['/healthz', '/readyz']) expectJsonHeaders(await fetch(`${gw.url}${path}`), path);
  });

  it('stored images keep their immutable caching', async () => {
    const posted = await gw.post(mutate((b) => (b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64'))));
    expect(posted.status).toBe(200);
    const image = await fetch(`${gw.url}${new URL(String((posted.json.images as string[]).at(-1))).pathname}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the console headers', () => {
  it('add X-Frame-Options: DENY and isolate the page from other origins', () => {
    expect(CONSOLE_HEADERS).toMatchObject({
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
  });
});
