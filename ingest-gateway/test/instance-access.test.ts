/**
 * The admin settings' `access`: what the gateway does with a sender's request now. Open (no token
 * needed), token_required (a live token needed) or closed (a token needed and none live: every
 * request refused), answered by GET and PATCH of the settings and matched against what a request
 * without a token then gets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API, startGateway, type TestGateway } from './helpers.js';
import { fakeTokens, type FakeTokens } from './fake-tokens.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';
const SETTINGS = `${API}/settings/dynamic-events`;

describe('the instance access the admin settings answer', () => {
  let gw: TestGateway | undefined;
  let tokens: FakeTokens;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });
  async function start(bootstrap?: string): Promise<void> {
    tokens = fakeTokens();
    gw = await startGateway({ adminToken: ADMIN, token: bootstrap, tokens: { client: tokens.client, source: tokens.source } });
  }
  const settings = async (body?: unknown) => {
    const response = await fetch(`${gw!.url}${SETTINGS}`, {
      method: body === undefined ? 'GET' : 'PATCH',
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return response.json();
  };
  /** The status a sender's list request gets, without a token and with `token`. */
  const sent = async (token?: string) => (await fetch(`${gw!.url}${API}/devices`, { headers: token ? { Authorization: `Bearer ${token}` } : {} })).status;

  it('is token_required while a token is live, and closed once the last is revoked', async () => {
    await start();
    const secret = tokens.add('vendor-x');
    tokens.add('vendor-y');
    expect(await settings()).toEqual({ require_token: true, access: 'token_required' });
    tokens.revoke(tokens.records[1]!.id);
    expect(await settings()).toEqual({ require_token: true, access: 'token_required' });
    expect([await sent(), await sent(secret)]).toEqual([401, 200]);
    tokens.revoke(tokens.records[0]!.id);
    expect(await settings()).toEqual({ require_token: true, access: 'closed' });
    expect([await sent(), await sent(secret)]).toEqual([401, 401]);
  });

  it('is closed when the only token has expired', async () => {
    await start();
    tokens.add('vendor-x', { expiresAtMs: Date.now() - 1000 });
    expect(await settings()).toEqual({ require_token: true, access: 'closed' });
  });

  it('is open once require_token is off, tokens or not', async () => {
    await start();
    tokens.add('vendor-x');
    expect(await settings({ require_token: false })).toEqual({ require_token: false, access: 'open' });
    expect(await settings()).toEqual({ require_token: false, access: 'open' });
    expect(await sent()).toBe(200);
  });

  it('is token_required on a gateway with the bootstrap token, whatever the setting', async () => {
    await start('bootstrap-token-of-the-test-gateway');
    expect(await settings({ require_token: false })).toEqual({ require_token: false, access: 'token_required' });
    expect([await sent(), await sent('bootstrap-token-of-the-test-gateway')]).toEqual([401, 200]);
  });
});
