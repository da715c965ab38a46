import { AppError } from '@dynamic-events/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { API, mutate, startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';
import { fakeTokens, type FakeTokens } from './fake-tokens.js';
import { refusal } from './refusal.js';

const BOOTSTRAP = 'bootstrap-token-for-the-tests';

describe('authentication with tokens from the registry', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  async function start(tokens: FakeTokens, token?: string): Promise<TestGateway> {
    gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source }, token });
    return gw;
  }

  it('accepts a token of the snapshot and notes its use; refuses others with the same 401', async () => {
    const tokens = fakeTokens();
    const secret = tokens.add('vendor-x');
    const gateway = await start(tokens);
    expect((await gateway.post(validBody(), { Authorization: `Bearer ${secret}` })).status).toBe(200);
    expect(tokens.source.usedIds).toEqual([tokens.records[0]!.id]);
    const wrong = await gateway.post(validBody(), { Authorization: `Bearer ${secret.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'invalid bearer token' });
    expect((await gateway.post(validBody())).json).toEqual({ error: 'missing bearer token' });
  });

  it('refuses a revoked token as soon as the snapshot drops it, and an expired one by its expiry', async () => {
    const tokens = fakeTokens();
    const revoked = tokens.add('revoked');
    const expired = tokens.add('expired', { expiresAtMs: Date.now() - 1 });
    const gateway = await start(tokens);
    expect((await gateway.post(validBody(), { Authorization: `Bearer ${revoked}` })).status).toBe(200);
    tokens.revoke(tokens.records[0]!.id);
    const answers = [await gateway.post(validBody(), { Authorization: `Bearer ${revoked}` }), await gateway.post(validBody(), { Authorization: `Bearer ${expired}` })];
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      // Revoked, expired and wrong read the same.
      expect(answer.json).toEqual({ error: 'invalid bearer token' });
    }
    expect(gateway.registry.calls).toHaveLength(1);
  });

  it('stays closed with no token left (the registry says a token is required)', async () => {
    const tokens = fakeTokens();
    tokens.add('only');
    tokens.revoke(tokens.records[0]!.id);
    const gateway = await start(tokens);
    expect((await gateway.post(validBody())).status).toBe(401);
    expect(gateway.registry.calls).toEqual([]);
  });

  it('is open when the registry says no token is required, as without any token', async () => {
    const tokens = fakeTokens();
    tokens.requireToken = false;
    const gateway = await start(tokens);
    expect((await gateway.post(validBody())).status).toBe(200);
    expect((await gateway.post(validBody(), { Authorization: 'Bearer anything' })).status).toBe(200);
  });

  it('answers 503 with Retry-After until the first snapshot, except for the bootstrap token', async () => {
    const tokens = fakeTokens();
    tokens.source.loaded = false;
    const gateway = await start(tokens);
    const early = await gateway.post(validBody());
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(early.json).toEqual({ error: 'tokens are not loaded yet: retry shortly' });
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ error: 'not ready: tokens not loaded' });
    await gateway.close();

    const withBootstrap = await start(tokens, BOOTSTRAP);
    expect((await withBootstrap.post(validBody(), { Authorization: `Bearer ${BOOTSTRAP}` })).status).toBe(200);
    expect((await withBootstrap.post(validBody(), { Authorization: 'Bearer other' })).status).toBe(401);
  });
});

describe('token policy, the bootstrap token and the reads', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  async function start(tokens: FakeTokens, token?: string): Promise<TestGateway> {
    gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source }, token });
    return gw;
  }

  it('keeps the bootstrap token working beside registry tokens, and requires a token with it even if the registry says none', async () => {
    const tokens = fakeTokens();
    tokens.requireToken = false;
    const secret = tokens.add('vendor-y');
    const gateway = await start(tokens, BOOTSTRAP);
    expect((await gateway.post(validBody(), { Authorization: `Bearer ${BOOTSTRAP}` })).status).toBe(200);
    expect((await gateway.post(validBody(), { Authorization: `Bearer ${secret}` })).status).toBe(200);
    expect((await gateway.post(validBody())).status).toBe(401);
  });

  it("refuses an object_domain outside the token's patterns with 403, storing nothing (image included)", async () => {
    const tokens = fakeTokens();
    const secret = tokens.add('vendor-x', { policy: { domains: ['acme.camera.*', 'exact.domain'] } });
    const gateway = await start(tokens);
    const send = (domain: string, image = false) => {
      const body = mutate((b) => {
        b.source.object_domain = domain;
        if (image) b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64');
      });
      return gateway.post(body, { Authorization: `Bearer ${secret}` });
    };
    for (const allowed of ['acme.camera.video', 'acme.camera.a.b', 'exact.domain']) expect((await send(allowed)).status, allowed).toBe(200);
    const calls = gateway.registry.calls.length;
    for (const [refused, image] of [['acme.camera', false], ['acme.cameras', false], ['exact.domain.sub', false], ['other', true]] as const) {
      const answer = await send(refused, image);
      expect(answer.status, refused).toBe(403);
      expect(answer.json).toEqual(refusal("token 'vendor-x' may not send events of this source.object_domain (allowed: acme.camera.*, exact.domain)", { field: 'source.object_domain' }));
    }
    expect(gateway.registry.calls).toHaveLength(calls);
    expect(gateway.media.calls).toEqual([]);
  });

  it('asks the registry before storing the image of a token whose policy it applies: a refusal stores no image', async () => {
    const tokens = fakeTokens();
    const strict = tokens.add('vendor-x', { policy: { mayCreate: ['objects'] } });
    const plain = tokens.add('vendor-y');
    const gateway = await start(tokens);
    const withImage = () => mutate((b) => (b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64')));
    gateway.registry.checkFailsWith = new AppError('PERMISSION_DENIED', "token 'vendor-x' may not create devices", { field: 'source.device_name', rule: 'token-may-create' });
    const refused = await gateway.post(withImage(), { Authorization: `Bearer ${strict}` });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual(refusal("token 'vendor-x' may not create devices"));
    expect(gateway.media.calls).toEqual([]);
    // After the identity check (a lookup of the object), before media; nothing recorded.
    expect(gateway.registry.calls.filter((c) => c !== 'getObject')).toEqual(['checkEvent']);
    // Tokens whose policy the registry does not apply, and events without an image, are not asked about.
    gateway.registry.calls.length = 0;
    expect((await gateway.post(withImage(), { Authorization: `Bearer ${plain}` })).status).toBe(200);
    gateway.registry.checkFailsWith = undefined;
    expect((await gateway.post(validBody(), { Authorization: `Bearer ${strict}` })).status).toBe(200);
    expect(gateway.registry.calls.filter((c) => c !== 'getObject')).toEqual(['recordEvent', 'recordEvent']);
  });

  it('applies to the reads too', async () => {
    const tokens = fakeTokens();
    tokens.add('reader');
    const gateway = await start(tokens);
    expect((await fetch(`${gateway.url}${API}/devices`)).status).toBe(401);
  });
});

describe('token names in messages', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('quotes a stored name safely in its 403: a bidi override or a newline is escaped, never echoed raw', async () => {
    const tokens = fakeTokens();
    const secret = tokens.add('evil\u202e\nname', { policy: { domains: ['acme.camera.*'] } });
    const gateway = (gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source } }));
    const answer = await gateway.post(mutate((b) => (b.source.object_domain = 'other')), { Authorization: `Bearer ${secret}` });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual(refusal("token 'evil\\u202e\\u000aname' may not send events of this source.object_domain (allowed: acme.camera.*)", { field: 'source.object_domain' }));
  });
});
