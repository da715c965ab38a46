/**
 * The admin credential (ADMIN_TOKEN) on the read routes: an unrestricted reader of single reads,
 * lists and the stream (the settings console reads with it), never a poster of events. Its stream's
 * lifetime is in stream-access.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API, startGateway, validBody, type TestGateway } from './helpers.js';
import { fakeTokens, type FakeTokens } from './fake-tokens.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';
const BOOTSTRAP = 'bootstrap-token-for-posting-in-these-tests';
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

let gw: TestGateway | undefined;
let tokens: FakeTokens;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** An instance requiring tokens (the registry says so), with a bootstrap token to post with unless `bootstrap` is false. */
async function start(options: { adminToken?: string; bootstrap?: boolean } = {}): Promise<TestGateway> {
  tokens = fakeTokens();
  gw = await startGateway({
    adminToken: 'adminToken' in options ? options.adminToken : ADMIN,
    token: options.bootstrap === false ? undefined : BOOTSTRAP,
    tokens: { client: tokens.client, source: tokens.source },
  });
  return gw;
}
const read = (path: string, headers: Record<string, string>) => fetch(`${gw!.url}${API}${path}`, { headers });
const failures = async (reason: string) => (await gw!.metrics.authFailures.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

describe('the admin credential on the read routes', () => {
  it('reads everything: single reads, every list (records a domain-restricted token may not read), the stream', async () => {
    await start();
    const created = await gw!.post(validBody(), bearer(BOOTSTRAP));
    expect(created.status).toBe(200);
    const scoped = tokens.add('scoped', { policy: { domains: ['other.*'] } });
    const id = String(created.json.id);
    const expected: Array<[string, string]> = [
      [`/dynamic-events/${id}`, id],
      ['/devices/camera-01', 'camera-01'],
      ['/objects/acme.camera.motion.channel-1', 'channel-1'],
      ['/event-types/acme.camera.motion/motion', 'motion'],
      ['/dynamic-events', id],
      ['/devices', 'camera-01'],
      ['/objects', 'channel-1'],
      ['/event-types', 'acme.camera.motion'],
    ];
    for (const [path, holds] of expected) {
      const response = await read(path, bearer(ADMIN));
      expect(response.status, path).toBe(200);
      expect(JSON.stringify(await response.json()), path).toContain(holds);
    }
    // Records outside a domain-restricted token's domains: hidden from it, read by the admin credential, which has no such scope.
    expect((await read(`/dynamic-events/${id}`, bearer(scoped))).status).toBe(404);
    for (const path of ['/dynamic-events', '/objects', '/event-types'].map((list) => `${list}?domain=acme.camera.motion`)) {
      expect((await read(path, bearer(scoped))).status, path).toBe(403);
      expect((await read(path, bearer(ADMIN))).status, path).toBe(200);
    }
    // The stream answers once the registry's watch said its first word.
    gw!.registry.watchMessages = [{ cursor: 'c0', changes: [] }];
    const response = await read('/dynamic-events/stream', bearer(ADMIN));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await response.body?.cancel();
    // It is no registry token: only the scoped token's requests were marked as its use.
    expect(new Set(tokens.source.usedIds)).toEqual(new Set([tokens.records[0]!.id]));
  });

  it('cannot post events: 401 as any unknown token, counted, nothing recorded (with and without a bootstrap token)', async () => {
    for (const bootstrap of [true, false]) {
      await start({ bootstrap });
      const before = await failures('invalid');
      const response = await gw!.post(validBody(), bearer(ADMIN));
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ error: 'invalid bearer token' });
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="dynamic-events", error="invalid_token"');
      expect(await failures('invalid')).toBe(before + 1);
      expect(gw!.registry.recorded).toEqual([]);
      await gw!.close();
      gw = undefined;
    }
  });

  it('a wrong credential on a read is refused and counted as before; without ADMIN_TOKEN the admin secret is just a wrong token', async () => {
    await start();
    const wrong = await read('/devices', bearer(`${ADMIN}x`));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'invalid bearer token' });
    expect(await failures('invalid')).toBe(1);
    const missing = await read('/devices', {});
    expect(missing.status).toBe(401);
    expect(await failures('missing')).toBe(1);
    await gw!.close();
    await start({ adminToken: undefined });
    const off = await read('/devices', bearer(ADMIN));
    expect(off.status).toBe(401);
    expect(await failures('invalid')).toBe(1);
  });
});

describe('the admin credential on an open instance', () => {
  it('cannot post events on an open instance either: 401, counted, nothing recorded, while a POST without it is recorded', async () => {
    await start({ bootstrap: false });
    tokens.requireToken = false;
    const refused = await gw!.post(validBody(), bearer(ADMIN));
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({ error: 'invalid bearer token' });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="dynamic-events", error="invalid_token"');
    expect(await failures('invalid')).toBe(1);
    // The Koa route (another spelling of the path) refuses it too.
    const koa = await fetch(`${gw!.url}${API}/dynamic-events/`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...bearer(ADMIN) }, body: JSON.stringify(validBody()) });
    expect(koa.status).toBe(401);
    expect(gw!.registry.recorded).toEqual([]);
    expect((await gw!.post(validBody())).status).toBe(200);
    expect((await gw!.post(validBody(), bearer('any-other-secret'))).status).toBe(200);
  });
});
