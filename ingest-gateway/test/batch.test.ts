/** POST dynamic-events/batch: one result per event in order, each judged as the single POST judges it. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { API, mutate, startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';
import { HTTP_TEST_OPTIONS, resetFakes, UUID_V4 } from './http-setup.js';
import { refusal } from './refusal.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ ...HTTP_TEST_OPTIONS, maxBodyBytes: 256 * 1024 });
});
afterAll(() => gw.close());
afterEach(() => resetFakes(gw));

async function postBatch(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gw.url}${API}/dynamic-events/batch`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

const device = (name: string) => mutate((b) => (b.source.device_name = name));

describe('POST dynamic-events/batch', () => {
  it('answers one result per event, in order; a refused event fails alone and is not recorded', async () => {
    const bad = mutate((b) => (b.source.device_name = ' '));
    const response = await postBatch({ events: [device('cam-a'), bad, device('cam-c')] });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      results: [
        { status: 200, event: expect.objectContaining({ id: expect.stringMatching(UUID_V4), domain: 'acme.camera.motion', occurred_at: null }) },
        { status: 400, ...refusal('events[1].source.device_name must not be empty', { field: 'events[1].source.device_name', rule: 'not-empty' }) },
        { status: 200, event: expect.objectContaining({ id: expect.stringMatching(UUID_V4) }) },
      ],
      recorded: 2,
      refused: 1,
    });
    expect(gw.registry.recorded.map((e) => e.source.deviceName)).toEqual(expect.arrayContaining(['cam-a', 'cam-c']));
    expect(gw.registry.recorded.some((e) => e.source.deviceName === ' ')).toBe(false);
  });

  it('answers each event as the single POST does (the same shape, its own occurred_at and image)', async () => {
    const single = await gw.post(mutate((b) => (b.event.occurred_at = '2026-01-01T00:00:00Z')));
    const imaged = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64')));
    const response = await postBatch({ events: [mutate((b) => (b.event.occurred_at = '2026-01-01T00:00:00Z')), imaged] });
    const [first, second] = response.json.results as Array<{ status: number; event: Record<string, unknown> }>;
    expect({ ...first!.event, id: '' }).toEqual({ ...single.json, id: '' });
    expect(second!.event.images).toEqual(['https://example.test/a.jpg', expect.stringMatching(/\/media\/[0-9a-f]{64}\.png$/)]);
    expect(gw.media.calls).toEqual(['storeImage']);
  });

  it.each([
    ['not JSON', '{"events": [', 400, 'body is not valid JSON'],
    ['no events', { event: [] }, 400, 'events is required'],
    ['events not an array', { events: {} }, 400, 'events must be an array of events'],
    ['no event', { events: [] }, 400, 'events must contain at least 1 event'],
    ['1,001 events', { events: Array.from({ length: 1001 }, () => ({})) }, 400, 'events must contain at most 1000 events (got 1001)'],
  ])('refuses the whole call for %s, recording nothing', async (_, body, status, error) => {
    const response = await postBatch(body);
    expect(response).toMatchObject({ status, json: { error } });
    expect(gw.registry.calls).toEqual([]);
  });

  it('refuses a body over MAX_BODY_BYTES as a whole (413) before decoding anything', async () => {
    const huge = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = 'A'.repeat(300 * 1024)));
    const response = await postBatch({ events: [huge] });
    expect(response).toMatchObject({ status: 413, json: { error: `body exceeds ${256 * 1024} bytes` } });
    expect(gw.media.calls).toEqual([]);
  });

});

describe('POST dynamic-events/batch: refusals of one event', () => {
  it('answers an event that is not an object, or one with junk in it, in its own result', async () => {
    const nested = mutate((b) => (b.event.event_data.event_additional_properties = { deep: { deeper: [1] } }));
    const response = await postBatch({ events: [42, nested, validBody(), mutate((b) => (b.event.occurred_at = 5))] });
    expect((response.json.results as Array<{ status: number; error?: string }>).map((r) => [r.status, r.error])).toEqual([
      [400, 'events[0] must be a JSON object'],
      [400, 'events[1].event.event_data.event_additional_properties.deep must be a string'],
      [200, undefined],
      [400, 'events[3].event.occurred_at must be a string'],
    ]);
  });

  it('refuses, in its result, a later event spelling an earlier one\'s full object id with another split (the first wins)', async () => {
    const first = mutate((b) => Object.assign(b.source, { object_domain: 'col.a.b', object_id: 'c' }));
    const second = mutate((b) => Object.assign(b.source, { object_domain: 'col.a', object_id: 'b.c' }));
    const results = (await postBatch({ events: [first, second] })).json.results as Array<{ status: number; error?: string }>;
    expect(results[0]!.status).toBe(200);
    expect(results[1]).toMatchObject({ status: 409, error: expect.stringMatching(/^events\[1\]\.source\.object_id: object "col\.a\.b\.c" already exists/) });
    expect(gw.registry.recorded.filter((e) => e.source.objectDomain === 'col.a')).toEqual([]);
  });

  it('answers a registry refusal of one event in its result, with the events[i] prefix', async () => {
    gw.registry.failWith = new AppError('INVALID_ARGUMENT', 'event.occurred_at must not be more than 300 s in the future (OCCURRED_AT_MAX_SKEW)', { field: 'event.occurred_at', rule: 'max-skew' });
    const response = await postBatch({ events: [validBody()] });
    expect(response.json.results).toEqual([{ status: 400, ...refusal('events[0].event.occurred_at must not be more than 300 s in the future (OCCURRED_AT_MAX_SKEW)', { field: 'events[0].event.occurred_at', rule: 'max-skew' }) }]);
  });

  it('is refused as a whole (503, Retry-After) when nothing could be recorded for an outage', async () => {
    gw.registry.failWith = new AppError('UNAVAILABLE', 'registry unavailable', { retryAfterSeconds: 1 });
    const response = await postBatch({ events: [validBody(), mutate((b) => (b.source.device_name = ''))] });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.json).toEqual({ error: 'registry unavailable' });
  });
});
