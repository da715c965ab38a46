/**
 * An admin change is in force on the gateway that answered it before its answer: the real token
 * sync over the fake TokenService, with an interval far longer than any test, so only the change
 * itself can have brought the new state.
 */
import { createLogger } from '@dynamic-events/proto/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.js';
import { createTokenSync } from '../src/tokens/token-sync.js';
import { API, mutate, startGateway, validBody, type TestGateway } from './helpers.js';
import { fakeTokens, type FakeTokens } from './fake-tokens.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';
const SETTINGS = `${API}/settings/dynamic-events`;

describe('admin changes apply on the answering gateway before its answer', () => {
  let gw: TestGateway | undefined;
  let stopSync = () => {};
  let tokens: FakeTokens;
  afterEach(async () => {
    stopSync();
    await gw?.close();
    gw = undefined;
  });

  async function start(requireToken: boolean): Promise<TestGateway> {
    tokens = fakeTokens();
    tokens.requireToken = requireToken;
    const source = createTokenSync({ client: tokens.client, intervalMs: 3_600_000, logger: createLogger('test', 'silent'), metrics: createMetrics() });
    stopSync = () => source.stop();
    await source.start();
    gw = await startGateway({ adminToken: ADMIN, tokens: { client: tokens.client, source } });
    return gw;
  }
  async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${gw!.url}${SETTINGS}${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return (await response.json()) as Record<string, unknown>;
  }
  const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

  it('the first token closes an open instance and works at once', async () => {
    const gateway = await start(false);
    expect((await gateway.post(validBody())).status).toBe(200);
    const created = await admin('POST', '/tokens', { name: 'first' });
    expect((await gateway.post(validBody())).json).toEqual({ error: 'missing bearer token' });
    expect(await gateway.post(validBody(), bearer(String(created.token)))).toMatchObject({ status: 200, json: { token_id: created.id } });
  });

  it("a new token's policy applies to its very first request; a changed policy to the next one", async () => {
    const gateway = await start(true);
    const created = await admin('POST', '/tokens', { name: 'cameras', policy: { domains: ['acme.camera.*'] } });
    const secret = String(created.token);
    const elsewhere = mutate((b) => (b.source.object_domain = 'acme.door'));
    expect((await gateway.post(elsewhere, bearer(secret))).status).toBe(403);
    await admin('PATCH', `/tokens/${String(created.id)}`, { policy: {} });
    expect((await gateway.post(elsewhere, bearer(secret))).status).toBe(200);
  });

  it('a revoked token is refused by the next request; require_token false opens the instance at once', async () => {
    const gateway = await start(true);
    const created = await admin('POST', '/tokens', { name: 'short-lived' });
    expect((await gateway.post(validBody(), bearer(String(created.token)))).status).toBe(200);
    await admin('DELETE', `/tokens/${String(created.id)}`);
    expect((await gateway.post(validBody(), bearer(String(created.token)))).json).toEqual({ error: 'invalid bearer token' });
    expect((await gateway.post(validBody())).status).toBe(401);
    await admin('PATCH', '', { require_token: false });
    expect((await gateway.post(validBody())).status).toBe(200);
  });
});
