import { afterEach, describe, expect, it } from 'vitest';
import { API, startGateway, type TestGateway } from './helpers.js';
import { fakeTokens, type FakeTokens } from './fake-tokens.js';
import { refusal } from './refusal.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';
const TOKENS = `${API}/settings/dynamic-events/tokens`;

describe('token admin API', () => {
  let gw: TestGateway | undefined;
  let tokens: FakeTokens;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  /** null: ADMIN_TOKEN unset. */
  async function start(adminToken: string | null = ADMIN): Promise<TestGateway> {
    tokens = fakeTokens();
    gw = await startGateway({ adminToken: adminToken ?? undefined, tokens: { client: tokens.client, source: tokens.source } });
    return gw;
  }
  const admin = (method: string, path: string, body?: unknown, auth = ADMIN) =>
    fetch(`${gw!.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('is off (404) without ADMIN_TOKEN', async () => {
    await start(null);
    const response = await admin('GET', TOKENS);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: `no route for GET ${TOKENS}` });
  });

  it('needs the admin token: an ingest token or none is 401, and nothing reaches the registry', async () => {
    await start();
    const ingest = tokens.add('vendor-x');
    for (const auth of [ingest, 'wrong']) {
      const response = await admin('POST', TOKENS, { name: 'x' }, auth);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'invalid admin bearer token' });
    }
    const missing = await fetch(`${gw!.url}${TOKENS}`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="dynamic-events-admin"');
    expect(tokens.calls).toEqual([]);
  });

  it('creates a token: 201, the secret once, Location, no-store', async () => {
    await start();
    const response = await admin('POST', TOKENS, { name: 'vendor-x', policy: { may_create: ['objects'], rate: { per_second: 5, burst: 10 } }, expires_at: '2030-01-01T00:00:00Z' });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.token).toMatch(/^dhe_[A-Za-z0-9_-]{43}$/);
    expect(body).toMatchObject({ name: 'vendor-x', policy: { may_create: ['objects'], rate: { per_second: 5, burst: 10 } }, revoked_at: null, last_used_at: null });
    expect(response.headers.get('location')).toBe(`${TOKENS}/${String(body.id)}`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    // Listed without the secret.
    const list = (await (await admin('GET', TOKENS)).json()) as { tokens: Array<Record<string, unknown>> };
    expect(list.tokens).toHaveLength(1);
    expect(list.tokens[0]).not.toHaveProperty('token');
    expect(JSON.stringify(list)).not.toContain(String(body.token));
    // The secret is never logged.
    expect(gw!.rawLogs.join('\n')).not.toContain(String(body.token));
  });

});

describe('token admin API: bodies', () => {
  let gw: TestGateway | undefined;
  let tokens: FakeTokens;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${gw!.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  async function start(): Promise<void> {
    tokens = fakeTokens();
    gw = await startGateway({ adminToken: ADMIN, tokens: { client: tokens.client, source: tokens.source } });
  }

  it.each([
    [{}, 'name is required'],
    [{ name: 5 }, 'name must be a string'],
    [{ name: 'x', extra: 1 }, 'extra is not a known field'],
    [{ name: 'x', policy: { may_create: 'devices' } }, 'policy.may_create must be an array'],
    [{ name: 'x', policy: { may_create: ['devices', 3] } }, 'policy.may_create[1] must be a string'],
    [{ name: 'x', policy: { max_devices: 1.5 } }, 'policy.max_devices must be an integer'],
    [{ name: 'x', policy: { rate: { per_second: 1 } } }, 'policy.rate.burst is required'],
    [{ name: 'x', policy: { colour: 'red' } }, 'policy.colour is not a known field'],
    [{ name: 'x', expires_at: 'tomorrow' }, 'expires_at must be an RFC 3339 timestamp such as 2026-11-21T08:20:04Z, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z'],
    [{ name: 'x', expires_at: '9999-12-31T23:59:59.999999999Z' }, 'expires_at must be an RFC 3339 timestamp such as 2026-11-21T08:20:04Z, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z'],
    // Ranges checked before the wire: a burst of 2^32 does not even encode as the uint32 it is there.
    [{ name: 'x', policy: { rate: { per_second: 1, burst: 2 ** 32 } } }, 'policy.rate.burst must be at most 1000000'],
    [{ name: 'x', policy: { rate: { per_second: 1, burst: 1_000_001 } } }, 'policy.rate.burst must be at most 1000000'],
    [{ name: 'x', policy: { rate: { per_second: 5e-324, burst: 1 } } }, 'policy.rate.per_second must be a number from 0.001 to 1000000'],
    [{ name: 'x', policy: { rate: { per_second: 1e-300, burst: 1 } } }, 'policy.rate.per_second must be a number from 0.001 to 1000000'],
    [{ name: 'x', policy: { max_devices: 2 ** 31 } }, 'policy.max_devices must be an integer from 0 to 2147483647'],
    [{ name: 'x', policy: { max_objects: -1 } }, 'policy.max_objects must be an integer from 0 to 2147483647'],
    // A lone surrogate would become U+FFFD on the wire: refused here, where it is still one.
    ['{"name": "vendor\\ud800"}', 'name must not contain lone surrogates (U+D800 to U+DFFF alone are not characters)'],
    [[], 'body must be a JSON object'],
  ])('refuses the create body %j with 400 naming the field', async (body, error) => {
    await start();
    const response = await admin('POST', TOKENS, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(refusal(error));
    expect(tokens.calls).toEqual([]);
  });

  it('reads, updates and revokes one token; an unknown id is 404', async () => {
    await start();
    tokens.add('vendor-y');
    const id = tokens.records[0]!.id;
    expect(((await (await admin('GET', `${TOKENS}/${id}`)).json()) as Record<string, unknown>).name).toBe('vendor-y');
    const patched = await admin('PATCH', `${TOKENS}/${id}`, { name: 'vendor-z', expires_at: null });
    expect(patched.status).toBe(200);
    expect(tokens.calls).toContain(`update ${id} {"name":"vendor-z","expiresAt":null}`);
    const calls = tokens.calls.length;
    const burst = await admin('PATCH', `${TOKENS}/${id}`, { policy: { rate: { per_second: 1, burst: 2 ** 32 } } });
    expect({ status: burst.status, body: await burst.json() }).toEqual({ status: 400, body: refusal('policy.rate.burst must be at most 1000000', { field: 'policy.rate.burst' }) });
    expect(tokens.calls).toHaveLength(calls);
    const revoked = await admin('DELETE', `${TOKENS}/${id}`);
    expect(((await revoked.json()) as Record<string, unknown>).revoked_at).toBe('2026-11-25T00:00:01.000000000Z');
    const unknown = await admin('GET', `${TOKENS}/nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual(refusal('token nope not found', { field: 'id', rule: false }));
  });

  it('shows and changes whether a token is required', async () => {
    await start();
    expect(await (await admin('GET', `${API}/settings/dynamic-events`)).json()).toEqual({ require_token: true, access: 'closed' });
    const off = await admin('PATCH', `${API}/settings/dynamic-events`, { require_token: false });
    expect(await off.json()).toEqual({ require_token: false, access: 'open' });
    const bad = await admin('PATCH', `${API}/settings/dynamic-events`, { require_token: 'no' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual(refusal('require_token must be true or false', { field: 'require_token' }));
  });
});
