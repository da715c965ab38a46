/**
 * A 400's body names the field and the rule beside the message (`{"error", "field", "rule"}`), from
 * wherever the refusal came: the gateway's own schema, the registry's rules, a batch's events, the
 * token and webhook admin APIs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { API, mutate, startGateway, validBody, type TestGateway } from './helpers.js';
import { HTTP_TEST_OPTIONS, resetFakes } from './http-setup.js';
import { fakeTokens } from './fake-tokens.js';
import { ADMIN, useWebhookAdmin, WEBHOOKS } from './webhook-admin-setup.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(HTTP_TEST_OPTIONS);
});
afterAll(() => gw.close());
afterEach(() => resetFakes(gw));

async function postTo(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${gw.url}${API}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('a 400 names its field and rule in the body', () => {
  it.each([
    ['a missing field', mutate((b) => delete (b.source as Partial<typeof b.source>).device_name), 'source.device_name', 'required', 'source.device_name is required'],
    ['a blank field', mutate((b) => (b.source.device_name = ' ')), 'source.device_name', 'not-empty', 'source.device_name must not be empty'],
    ['a wrong type', mutate((b) => ((b.event as Record<string, unknown>).event_type = 'motion')), 'event.event_type', 'type', 'event.event_type must be an object'],
    ['a non-string URL', mutate((b) => ((b.event.event_data as Record<string, unknown>).images = [1])), 'event.event_data.images', 'type', 'event.event_data.images must be an array of strings'],
  ])('the schema: %s', async (_case, body, field, rule, error) => {
    expect(await postTo('/dynamic-events', body)).toEqual({ status: 400, json: { error, field, rule } });
  });

  it('names a misspelt field before the one it leaves missing', async () => {
    const body = mutate((b) => {
      const source = b.source as Record<string, unknown>;
      source.devcie_name = source.device_name;
      delete source.device_name;
    });
    expect(await postTo('/dynamic-events', body)).toEqual({
      status: 400,
      json: { error: 'source.devcie_name is not a known field', field: 'source.devcie_name', rule: 'unknown-field' },
    });
  });

  it('the body itself: not JSON, not an object', async () => {
    const notJson = await postTo('/dynamic-events', '{"source":');
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ field: 'body', rule: expect.any(String) });
    expect(await postTo('/dynamic-events', [])).toMatchObject({ status: 400, json: { field: 'body', rule: expect.any(String) } });
  });

  it("the registry's refusal keeps its field and rule", async () => {
    gw.registry.failWith = new AppError('INVALID_ARGUMENT', 'source.object_type must be at most 128 characters', { field: 'source.object_type', rule: 'max-length' });
    expect(await postTo('/dynamic-events', validBody())).toEqual({
      status: 400,
      json: { error: 'source.object_type must be at most 128 characters', field: 'source.object_type', rule: 'max-length' },
    });
  });

  it('a 400 from a rule that names no field still names the body and a rule', async () => {
    gw.registry.failWith = new AppError('INVALID_ARGUMENT', 'invalid value');
    expect(await postTo('/dynamic-events', validBody())).toEqual({ status: 400, json: { error: 'invalid value', field: 'body', rule: 'invalid' } });
  });

  it('a query parameter of a list', async () => {
    const response = await fetch(`${gw.url}${API}/dynamic-events?limit=0`);
    expect({ status: response.status, json: await response.json() }).toEqual({
      status: 400,
      json: { error: expect.stringMatching(/^limit must be/), field: 'limit', rule: 'range' },
    });
  });

  it("a batch's event results carry field (with its events[i]. prefix) and rule", async () => {
    const bad = mutate((b) => (b.source.device_name = ' '));
    const typo = mutate((b) => ((b.source as Record<string, unknown>).devcie = 'x'));
    const response = await postTo('/dynamic-events/batch', { events: [validBody(), bad, typo] });
    expect(response.status).toBe(200);
    expect((response.json.results as unknown[]).slice(1)).toEqual([
      { status: 400, error: 'events[1].source.device_name must not be empty', field: 'events[1].source.device_name', rule: 'not-empty' },
      { status: 400, error: 'events[2].source.devcie is not a known field', field: 'events[2].source.devcie', rule: 'unknown-field' },
    ]);
  });

  it('the batch call itself', async () => {
    expect(await postTo('/dynamic-events/batch', { events: [] })).toMatchObject({ status: 400, json: { field: 'events', rule: expect.any(String) } });
  });
});

describe('the admin APIs name field and rule', () => {
  it('tokens', async () => {
    const tokens = fakeTokens();
    const admin = await startGateway({ adminToken: ADMIN, tokens: { client: tokens.client, source: tokens.source } });
    try {
      const response = await fetch(`${admin.url}${API}/settings/dynamic-events/tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'x', policy: { rate: { per_second: 1, burst: 2_000_000 } } }),
      });
      expect({ status: response.status, json: await response.json() }).toEqual({
        status: 400,
        json: { error: 'policy.rate.burst must be at most 1000000', field: 'policy.rate.burst', rule: expect.any(String) },
      });
    } finally {
      await admin.close();
    }
  });

  const start = useWebhookAdmin();
  it('webhooks: the gateway\'s check and the registry\'s', async () => {
    const { json } = await start();
    expect(await json('POST', WEBHOOKS, { url: 'https://a', filter: { device: ['x'] } })).toMatchObject({
      status: 400,
      body: { error: 'filter.device is not a known field', field: 'filter.device', rule: 'unknown-field' },
    });
    expect(await json('POST', WEBHOOKS, { url: 'ftp://example.com/' })).toMatchObject({
      status: 400,
      body: { error: 'url must be an http or https URL', field: 'url', rule: expect.any(String) },
    });
  });
});
