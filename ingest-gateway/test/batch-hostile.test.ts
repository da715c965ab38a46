/** Hostile batches: each gets its documented answer, and nothing of a refused event is stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@dynamic-events/proto';
import { fakeTokens } from './fake-tokens.js';
import { API, mutate, startGateway, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

const tokens = fakeTokens();
const camerasOnly = tokens.add('vendor-cams', { policy: { domains: ['acme.camera.*'] } });
let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source }, maxBodyBytes: 1024 * 1024 });
});
afterAll(() => gw.close());

async function postBatch(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gw.url}${API}/dynamic-events/batch`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as { results?: Array<{ status: number; error?: string }>; error?: string } };
}

describe('hostile batches', () => {
  it("refuses, each in its result, the events outside the token's domains; the others are recorded", async () => {
    const inside = mutate((b) => (b.source.device_name = 'mixed-in'));
    const outside = mutate((b) => Object.assign(b.source, { device_name: 'mixed-out', object_domain: 'other.vendor.door' }));
    const response = await postBatch({ events: [outside, inside] }, { Authorization: `Bearer ${camerasOnly}` });
    expect(response.json.results).toEqual([
      { status: 403, ...refusal("events[0].source.object_domain: token 'vendor-cams' may not send events of this source.object_domain (allowed: acme.camera.*)", { field: 'events[0].source.object_domain' }) },
      { status: 200, event: expect.objectContaining({ domain: 'acme.camera.motion' }) },
    ]);
    expect(gw.registry.recorded.map((e) => e.source.deviceName)).toEqual(['mixed-in']);
  });

  it('refuses a batch without a token once the instance requires one, or with a wrong one (401, as a whole)', async () => {
    expect((await postBatch({ events: [mutate(() => {})] })).status).toBe(401);
    expect((await postBatch({ events: [mutate(() => {})] }, { Authorization: 'Bearer dhe_wrong' })).status).toBe(401);
  });

  it('refuses a body nested deeper than an event may be, as a whole, before parsing it', async () => {
    const deep = mutate((b) => (b.junk = JSON.parse(`${'['.repeat(LIMITS.jsonMaxDepth)}${']'.repeat(LIMITS.jsonMaxDepth)}`)));
    const response = await postBatch({ events: [mutate(() => {}), deep] }, { Authorization: `Bearer ${camerasOnly}` });
    expect(response).toEqual({ status: 400, json: refusal(`body is nested too deeply (max ${LIMITS.jsonMaxDepth + 2} levels)`, { field: 'body' }) });
  });

  it('tolerates, per event, unknown top-level fields as the single POST does, and junk inside a known one is that event\'s 400', async () => {
    const extra = mutate((b) => (b.meta = { nested: { list: [1, 2, { x: null }] } }));
    const junk = mutate((b) => (b.event.event_data.images = [{ a: [[[]]] }]));
    const response = await postBatch({ events: [extra, junk] }, { Authorization: `Bearer ${camerasOnly}` });
    expect(response.json.results!.map((r) => [r.status, r.error])).toEqual([
      [200, undefined],
      [400, 'events[1].event.event_data.images must be an array of strings'],
    ]);
  });

  it('refuses a wrong Content-Type (415) and a corrupt Content-Encoding (400) as a whole', async () => {
    const text = JSON.stringify({ events: [mutate(() => {})] });
    const plain = await fetch(`${gw.url}${API}/dynamic-events/batch`, { method: 'POST', headers: { 'Content-Type': 'text/plain', Authorization: `Bearer ${camerasOnly}` }, body: text });
    expect(plain.status).toBe(415);
    const gzip = await fetch(`${gw.url}${API}/dynamic-events/batch`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', Authorization: `Bearer ${camerasOnly}` },
      body: text,
    });
    expect([gzip.status, await gzip.json()]).toEqual([400, refusal('body is not valid gzip data', { field: 'body' })]);
  });
});
