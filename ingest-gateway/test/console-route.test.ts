/**
 * The settings console's files as the gateway serves them: the page never cached, hashed assets
 * cached forever, the console's security headers on every response under its path (errors too),
 * nothing outside the build reachable by any spelling of a path, 308 for a browser at the admin
 * API's URL, 404 without ADMIN_TOKEN, 503 when the console was not built.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@dynamic-events/proto/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConsoleBundle } from '../src/http/console-bundle.js';
import { CONSOLE_HEADERS } from '../src/http/routes/console.js';
import { API, startGateway, type TestGateway } from './helpers.js';
import { fakeTokens } from './fake-tokens.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';
const SETTINGS = `${API}/settings/dynamic-events`;
const CONSOLE = `${SETTINGS}/`;
const INDEX = '<!doctype html><title>Dynamic events</title><script type="module" src="assets/app-3F2A9C1B.js"></script>';
const SCRIPT = 'console.log("console");';
const SECRET = 'outside-the-build-must-never-be-served';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const silent = createLogger('test', 'silent');
let root: string;
let dist: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'console-route-'));
  dist = join(root, 'dist');
  mkdirSync(join(dist, 'assets', 'nested'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'assets', 'app-3F2A9C1B.js'), SCRIPT);
  writeFileSync(join(dist, 'assets', 'app-77AB01CD.css'), 'body{margin:0}');
  writeFileSync(join(dist, 'assets', 'nested', 'deep.js'), SECRET);
  writeFileSync(join(dist, 'secret.txt'), SECRET);
  writeFileSync(join(root, 'secret.txt'), SECRET);
  symlinkSync(join(root, 'secret.txt'), join(dist, 'assets', 'link.txt'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A raw request: the path goes out exactly as written (fetch would resolve dot segments first). */
function raw(gw: TestGateway, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gw.url}${path}`, { method, headers, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function expectConsoleHeaders(headers: Headers | Record<string, string | string[] | undefined>): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name.toLowerCase()]);
  for (const [name, value] of Object.entries(CONSOLE_HEADERS)) expect(get(name), name).toBe(value);
}

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** A gateway with the admin API on (unless adminToken is undefined) and the test's build, a missing one, or none given. */
async function start(options: { adminToken?: string; bundle?: 'built' | 'missing' | 'none' } = {}): Promise<TestGateway> {
  const tokens = fakeTokens();
  const bundle = options.bundle ?? 'built';
  const console = bundle === 'none' ? undefined : loadConsoleBundle(bundle === 'built' ? dist : join(root, 'absent'), silent);
  gw = await startGateway({ adminToken: 'adminToken' in options ? options.adminToken : ADMIN, tokens: { client: tokens.client, source: tokens.source }, console });
  return gw;
}

describe('settings console: files', () => {

  it('the page: 200, HTML, never cached, with the CSP, nosniff and no-referrer', async () => {
    await start();
    const response = await fetch(`${gw!.url}${CONSOLE}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectConsoleHeaders(response.headers);
    expect(CONSOLE_HEADERS['Content-Security-Policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(await response.text()).toBe(INDEX);
  });

  it('HEAD of the page and of an asset: the headers and length of the GET, no body', async () => {
    await start();
    for (const [path, length] of [[CONSOLE, INDEX.length], [`${SETTINGS}/assets/app-3F2A9C1B.js`, SCRIPT.length]] as const) {
      const response = await raw(gw!, 'HEAD', path);
      expect(response.status).toBe(200);
      expect(response.headers['content-length']).toBe(String(length));
      expect(response.body).toBe('');
      expectConsoleHeaders(response.headers);
    }
  });

  it('hashed assets: their type, cached forever, ETag and Last-Modified; a matching If-None-Match is 304', async () => {
    await start();
    const script = await fetch(`${gw!.url}${SETTINGS}/assets/app-3F2A9C1B.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectConsoleHeaders(script.headers);
    expect(await script.text()).toBe(SCRIPT);
    const etag = script.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(Date.parse(script.headers.get('last-modified') ?? '')).not.toBeNaN();
    // Raw: fetch adds Cache-Control: no-cache to a conditional request, which asks for the full answer.
    const again = await raw(gw!, 'GET', `${SETTINGS}/assets/app-3F2A9C1B.js`, { 'If-None-Match': etag! });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expectConsoleHeaders(again.headers);
    const style = await fetch(`${gw!.url}${SETTINGS}/assets/app-77AB01CD.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

});

describe('settings console: other paths', () => {
  it('unknown paths under the console: 404 {"error"} with the security headers', async () => {
    await start();
    for (const path of [`${SETTINGS}/assets/app-00000000.js`, `${SETTINGS}/nothing-here`, `${SETTINGS}/assets/`, `${SETTINGS}/index.html`]) {
      const response = await fetch(`${gw!.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Object.keys((await response.json()) as object)).toEqual(['error']);
      expectConsoleHeaders(response.headers);
    }
  });

  it('no file outside the build by any path: dot segments, encoded dots and slashes, absolute, NUL, subfolders, links', async () => {
    await start();
    const paths = [
      `${SETTINGS}/assets/../secret.txt`,
      `${SETTINGS}/assets/../../secret.txt`,
      `${SETTINGS}/../../../../secret.txt`,
      `${SETTINGS}/assets/..%2fsecret.txt`,
      `${SETTINGS}/assets/%2e%2e%2fsecret.txt`,
      `${SETTINGS}/assets/%2E%2E%2F%2E%2E%2Fsecret.txt`,
      `${SETTINGS}/assets/..%5csecret.txt`,
      `${SETTINGS}/assets/%2e%2e`,
      `${SETTINGS}/assets/..`,
      `${SETTINGS}/assets/${encodeURIComponent(join(root, 'secret.txt'))}`,
      `${SETTINGS}/assets//etc/passwd`,
      `${SETTINGS}/assets/%2fetc%2fpasswd`,
      `${SETTINGS}/assets/app-3F2A9C1B.js%00.txt`,
      `${SETTINGS}/assets/app-3F2A9C1B.js%00`,
      `${SETTINGS}/assets/nested/deep.js`,
      `${SETTINGS}/assets/nested%2fdeep.js`,
      `${SETTINGS}/assets/link.txt`,
      `${SETTINGS}/secret.txt`,
    ];
    for (const path of paths) {
      const response = await raw(gw!, 'GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain(SECRET);
    }
  });

});

describe('settings console: the admin API beside it', () => {
  it('a browser at the admin API URL is sent to the page (308); API clients keep the JSON', async () => {
    await start();
    const browser = await fetch(`${gw!.url}${SETTINGS}`, { headers: { Accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(browser.status).toBe(308);
    expect(browser.headers.get('location')).toBe(CONSOLE);
    expectConsoleHeaders(browser.headers);
    for (const accept of ['*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const api = await fetch(`${gw!.url}${SETTINGS}`, { headers: { Accept: accept, Authorization: `Bearer ${ADMIN}` }, redirect: 'manual' });
      expect(api.status, accept).toBe(200);
      expect(await api.json()).toEqual({ require_token: true, access: 'closed' });
    }
    const none = await raw(gw!, 'GET', SETTINGS, { Authorization: `Bearer ${ADMIN}` });
    expect(none.status).toBe(200);
    expect(JSON.parse(none.body)).toEqual({ require_token: true, access: 'closed' });
  });

  it('other methods on the page: 405 with Allow and the security headers', async () => {
    await start();
    const response = await fetch(`${gw!.url}${CONSOLE}`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
    expectConsoleHeaders(response.headers);
  });

  it('without ADMIN_TOKEN: 404 as the admin API answers, and no redirect', async () => {
    await start({ adminToken: undefined });
    for (const path of [CONSOLE, `${SETTINGS}/assets/app-3F2A9C1B.js`, `${SETTINGS}/tokens`]) {
      const response = await fetch(`${gw!.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ error: `no route for GET ${path}` });
    }
    const browser = await fetch(`${gw!.url}${SETTINGS}`, { headers: { Accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(browser.status).toBe(404);
  });

  it('not built: the console answers 503 naming the build, with the headers; the rest of the gateway works', async () => {
    for (const bundle of ['missing', 'none'] as const) {
      await start({ bundle });
      for (const path of [CONSOLE, `${SETTINGS}/assets/app-3F2A9C1B.js`]) {
        const response = await fetch(`${gw!.url}${path}`);
        expect(response.status, path).toBe(503);
        expect(response.headers.get('retry-after')).toBe('60');
        expect(await response.json()).toEqual({ error: 'the settings console is not built (ingest-gateway/console/dist is missing): run `npm run build`' });
        expectConsoleHeaders(response.headers);
      }
      expect((await fetch(`${gw!.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${gw!.url}${SETTINGS}`, { headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
      await gw!.close();
      gw = undefined;
    }
  });
});

describe('loadConsoleBundle', () => {
  it('logs a missing build once, with its folder, and answers "not built"', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    expect(loadConsoleBundle(join(root, 'absent'), logger)).toEqual({ built: false });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', dir: join(root, 'absent'), code: 'ENOENT' });
    expect(String(lines[0]!.msg)).toContain('settings console not built');
  });

  it('holds index.html and the regular files of assets/ only', () => {
    const bundle = loadConsoleBundle(dist, silent);
    expect(bundle.built && [...bundle.assets.keys()].sort()).toEqual(['app-3F2A9C1B.js', 'app-77AB01CD.css']);
  });
});
