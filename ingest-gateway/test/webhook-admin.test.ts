/** The webhook admin API (…/settings/dynamic-events/webhooks) over the WebhookService client. */
import { describe, expect, it } from 'vitest';
import { CREATED_TEXT, LATER_TEXT } from './fake-webhook-service.js';
import { ADMIN, useWebhookAdmin, WEBHOOKS } from './webhook-admin-setup.js';
import { refusal } from './refusal.js';

const start = useWebhookAdmin();
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('webhook admin API: access', () => {
  it('is off (404) without ADMIN_TOKEN', async () => {
    const { json } = await start(null);
    expect(await json('GET', WEBHOOKS)).toMatchObject({ status: 404, body: { error: `no route for GET ${WEBHOOKS}` } });
  });

  it.each([
    ['POST', ''],
    ['GET', ''],
    ['GET', '/x'],
    ['PATCH', '/x'],
    ['DELETE', '/x'],
    ['POST', '/x/secret'],
    ['GET', '/x/deliveries'],
    ['GET', '/x/deliveries/d'],
    ['POST', '/x/deliveries/d/retry'],
    ['POST', '/x/recover'],
  ])('%s %s needs the admin token: another or none is 401, and nothing reaches the registry', async (method, path) => {
    const { admin, gw, service } = await start();
    const wrong = await admin(method, `${WEBHOOKS}${path}`, method === 'GET' ? undefined : { url: 'https://example.com/hook' }, 'wrong');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'invalid admin bearer token' });
    const missing = await fetch(`${gw.url}${WEBHOOKS}${path}`, { method });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="dynamic-events-admin"');
    expect(service.requests).toEqual([]);
  });
});

describe('webhook admin API: create', () => {
  it('creates a webhook: 201, Location, the secret once and no-store; the filter sends only the fields given', async () => {
    const { json, gw, service } = await start();
    const created = await json('POST', WEBHOOKS, { url: 'https://example.com/hook', description: 'tickets', filter: { domains: ['acme.camera.*'], kinds: [] } });
    expect(created.status).toBe(201);
    const { secret, ...webhook } = created.body;
    expect(secret).toMatch(SECRET);
    expect(webhook).toEqual({
      id: expect.any(String),
      url: 'https://example.com/hook',
      description: 'tickets',
      filter: { domains: ['acme.camera.*'], kinds: [] },
      enabled: true,
      disabled_reason: null,
      created_at: CREATED_TEXT,
      updated_at: CREATED_TEXT,
    });
    expect(created.headers.get('location')).toBe(`${WEBHOOKS}/${String(webhook.id)}`);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(service.requests[0]).toEqual({
      method: 'createWebhook',
      request: { url: 'https://example.com/hook', description: 'tickets', filter: { domains: { values: ['acme.camera.*'] }, eventTypes: undefined, deviceNames: undefined, kinds: { values: [] } }, enabled: undefined },
    });
    // Read back without the secret; the secret is never logged.
    const read = await json('GET', `${WEBHOOKS}/${String(webhook.id)}`);
    expect(read).toMatchObject({ status: 200, body: webhook });
    // Every JSON answer is no-store (a read too): nothing of the admin API stays in a browser's cache.
    expect(read.headers.get('cache-control')).toBe('no-store');
    const list = await json('GET', WEBHOOKS);
    expect(list.body).toEqual({ webhooks: [webhook], next_page_token: null });
    expect(gw.rawLogs.join('\n')).not.toContain(String(secret));
  });

  it('creates a disabled webhook without a filter: the filter reads back as {}', async () => {
    const { json, service } = await start();
    const created = await json('POST', WEBHOOKS, { url: 'https://example.com/off', enabled: false });
    expect(created.body).toMatchObject({ filter: {}, enabled: false, description: '' });
    expect(service.requests[0]?.request).toMatchObject({ filter: undefined, enabled: false, description: '' });
  });

  it.each([
    [{}, 'url is required'],
    [{ url: 5 }, 'url must be a string'],
    [{ url: 'https://a', colour: 'red' }, 'colour is not a known field'],
    [{ url: 'https://a', description: null }, 'description must be a string'],
    [{ url: 'https://a', enabled: 'yes' }, 'enabled must be true or false'],
    [{ url: 'https://a', filter: [] }, 'filter must be an object'],
    [{ url: 'https://a', filter: null }, 'filter must be an object'],
    [{ url: 'https://a', filter: { domains: 'acme' } }, 'filter.domains must be an array'],
    [{ url: 'https://a', filter: { kinds: ['event.created', 3] } }, 'filter.kinds[1] must be a string'],
    [{ url: 'https://a', filter: { device: ['x'] } }, 'filter.device is not a known field'],
    ['{"url": "https://a\\ud800"}', 'url must not contain lone surrogates (U+D800 to U+DFFF alone are not characters)'],
    ['{"url": "https://a", "filter": {"event_types": ["\\udc00"]}}', 'filter.event_types[0] must not contain lone surrogates (U+D800 to U+DFFF alone are not characters)'],
    [[], 'body must be a JSON object'],
  ])('refuses the create body %j with 400 naming the field, before the registry', async (body, error) => {
    const { json, service } = await start();
    expect(await json('POST', WEBHOOKS, body)).toMatchObject({ status: 400, body: { error } });
    expect(service.requests).toEqual([]);
  });

  it("answers the registry's refusal of a value as 400 naming the field", async () => {
    const { json } = await start();
    expect(await json('POST', WEBHOOKS, { url: 'ftp://example.com/' })).toMatchObject({ status: 400, body: { error: 'url must be an http or https URL' } });
  });

});

describe('webhook admin API: list', () => {
  it('lists a page at a time: limit and page_token reach the registry, next_page_token is null on the last page', async () => {
    const { json, service } = await start();
    for (const n of [1, 2, 3]) service.add(`https://example.com/${n}`);
    const first = await json('GET', `${WEBHOOKS}?limit=2`);
    expect(first.body.next_page_token).toBe('p2');
    expect((first.body.webhooks as unknown[]).length).toBe(2);
    const second = await json('GET', `${WEBHOOKS}?limit=2&page_token=p2`);
    expect(second.body).toMatchObject({ webhooks: [{ url: 'https://example.com/3' }], next_page_token: null });
    expect(service.requests.map((r) => r.request)).toEqual([{ pageSize: 2, pageToken: '' }, { pageSize: 2, pageToken: 'p2' }]);
    expect(await json('GET', WEBHOOKS)).toMatchObject({ status: 200 });
    expect(service.requests[2]?.request).toEqual({ pageSize: 100, pageToken: '' });
  });

  it.each([
    ['limit=0', 'limit must be an integer between 1 and 1000'],
    ['limit=1001', 'limit must be an integer between 1 and 1000'],
    ['limt=5', 'limt is not a known parameter (known: limit, page_token)'],
    ['page_token=zz', 'page_token is not a token of this list'],
  ])('refuses the list query %s with 400 naming the parameter', async (query, error) => {
    const { json } = await start();
    expect(await json('GET', `${WEBHOOKS}?${query}`)).toMatchObject({ status: 400, body: { error } });
  });

});

describe('webhook admin API: update, delete, rotate', () => {
  it('updates only the fields given (a filter replaces the whole filter), shows why it is disabled, deletes; unknown ids are 404', async () => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a', { filter: { domains: { values: ['a'] }, eventTypes: undefined, deviceNames: undefined, kinds: undefined } });
    const path = `${WEBHOOKS}/${id}`;
    const disabled = await json('PATCH', path, { enabled: false, filter: { device_names: ['cam-1'] } });
    expect(disabled).toMatchObject({ status: 200, body: { id, url: 'https://example.com/a', filter: { device_names: ['cam-1'] }, enabled: false, disabled_reason: 'disabled by an admin', updated_at: LATER_TEXT } });
    expect(service.requests.at(-1)?.request).toEqual({
      id,
      url: undefined,
      description: undefined,
      filter: { domains: undefined, eventTypes: undefined, deviceNames: { values: ['cam-1'] }, kinds: undefined },
      enabled: false,
    });
    const renamed = await json('PATCH', path, { description: 'x', url: 'https://example.com/b', enabled: true });
    expect(renamed.body).toMatchObject({ description: 'x', url: 'https://example.com/b', filter: { device_names: ['cam-1'] }, disabled_reason: null });
    expect(service.requests.at(-1)?.request).toMatchObject({ filter: undefined });
    const deleted = await json('DELETE', path);
    expect(deleted).toMatchObject({ status: 200, body: { id, description: 'x' } });
    for (const [method, body] of [['GET'], ['PATCH', { enabled: true }], ['DELETE'], ['POST']] as const) {
      const url = method === 'POST' ? `${path}/secret` : path;
      expect(await json(method, url, body)).toEqual({ status: 404, body: refusal(`webhook ${id} not found`, { field: 'id', rule: false }), headers: expect.anything() });
    }
  });

  it.each([
    [{}, 'body must name at least one of url, description, filter, enabled'],
    [{ secret: 'x' }, 'secret is not a known field'],
    [{ enabled: 1 }, 'enabled must be true or false'],
    [{ filter: { kinds: 'event.created' } }, 'filter.kinds must be an array'],
    ['{"description": "\\ud800"}', 'description must not contain lone surrogates (U+D800 to U+DFFF alone are not characters)'],
  ])('refuses the update body %j with 400 naming the field, before the registry', async (body, error) => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a');
    expect(await json('PATCH', `${WEBHOOKS}/${id}`, body)).toMatchObject({ status: 400, body: { error } });
    expect(service.requests).toEqual([]);
  });

  it('rotates the secret: 200 with the new secret only, no-store, never logged', async () => {
    const { json, gw, service } = await start();
    const { id } = service.add('https://example.com/a');
    const rotated = await json('POST', `${WEBHOOKS}/${id}/secret`);
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body)).toEqual(['secret']);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(gw.rawLogs.join('\n')).not.toContain(String(rotated.body.secret));
  });
});

describe('webhook admin API: bodies and failures', () => {
  it('reads bodies as the token admin API does: 64 KiB at most, JSON only', async () => {
    const { json, gw, service } = await start();
    const large = await json('POST', WEBHOOKS, { url: 'https://example.com/', description: 'x'.repeat(70 * 1024) });
    expect(large.status).toBe(413);
    expect(large.body.error).toEqual(expect.any(String));
    const text = await fetch(`${gw.url}${WEBHOOKS}`, { method: 'POST', headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'text/plain' }, body: '{"url": "https://example.com/"}' });
    expect(text.status).toBe(415);
    expect(service.requests).toEqual([]);
  });

  it('answers a registry failure as 500 "internal error", never its text', async () => {
    const { json, gw } = await start();
    const failed = await json('POST', WEBHOOKS, { url: 'https://boom.example.com/' });
    expect(failed).toMatchObject({ status: 500, body: { error: 'internal error' } });
    expect(JSON.stringify(failed.body)).not.toContain('password');
    expect(gw.rawLogs.join('\n')).not.toContain('whsec_');
  });
});
