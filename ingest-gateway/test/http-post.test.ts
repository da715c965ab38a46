/** POST dynamic-events: what a valid request records and answers, and how client failures reach the caller. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError, imageRuleError, UNSUPPORTED_IMAGE_MESSAGE } from '@dynamic-events/proto';
import { API, CREATED_AT, mutate, startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';
import { HTTP_TEST_OPTIONS, resetFakes, UUID_V4 } from './http-setup.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(HTTP_TEST_OPTIONS);
});
afterAll(() => gw.close());
afterEach(() => resetFakes(gw));

describe('POST dynamic-events', () => {
  it('records the event and answers the spec shape', async () => {
    const response = await gw.post(validBody());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.json).toEqual({
      id: expect.stringMatching(UUID_V4),
      domain: 'acme.camera.motion',
      event_type: 'motion',
      rels: ['/objects/acme.camera.motion.channel-1'],
      images: ['https://example.test/a.jpg'],
      video_clips: ['https://example.test/a.mp4'],
      event_additional_properties: { zone: 'north', confidence: '0.93' },
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
      // Who sent it and when it happened (null: no token, not sent).
      token_id: null, occurred_at: null,
    });
    expect(gw.registry.calls).toEqual(['recordEvent']);
    expect(gw.media.calls).toEqual([]);
  });

  it('stores base64_image first, appends its URL after the sent images and drops the key', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = `data:image/png;base64,${TINY_PNG.toString('base64')}`));
    const response = await gw.post(body);
    expect(response.status).toBe(200);
    expect(gw.media.calls).toEqual(['storeImage']);
    expect(gw.media.stored.at(-1)).toEqual(TINY_PNG);
    const images = response.json.images as string[];
    expect(images[0]).toBe('https://example.test/a.jpg');
    expect(images[1]).toMatch(new RegExp(`${API}/media/[0-9a-f]{64}\\.png$`));
    expect(response.json.event_additional_properties).toEqual({ zone: 'north', confidence: '0.93' });
    expect(gw.registry.recorded.at(-1)!.properties.map((p) => p.key)).toEqual(['zone', 'confidence']);
    expect(gw.registry.recorded.at(-1)!.images).toEqual(images);
  });

  it('answers media INVALID_ARGUMENT as 400 naming the field, and records nothing', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = Buffer.from('<svg/>').toString('base64')));
    const response = await gw.post(body);
    expect(response).toMatchObject({
      status: 400,
      json: { error: `event.event_data.event_additional_properties.base64_image: ${UNSUPPORTED_IMAGE_MESSAGE}` },
    });
    // At most the identity check (a read, skipped for an object already known) ran before media refused: nothing recorded.
    expect(gw.registry.calls.filter((call) => call !== 'getObject')).toEqual([]);
  });

  it("honours media's httpStatus detail (413 for its size limit)", async () => {
    gw.media.failWith = imageRuleError.tooLarge(100);
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64')));
    const response = await gw.post(body);
    expect(response).toMatchObject({
      status: 413,
      json: { error: 'event.event_data.event_additional_properties.base64_image: image is larger than the limit of 100 bytes' },
    });
    // At most the identity check (a read, skipped for an object already known) ran before media refused: nothing recorded.
    expect(gw.registry.calls.filter((call) => call !== 'getObject')).toEqual([]);
  });

  it('answers 500 "internal error" without internal text when a client throws a plain Error', async () => {
    gw.registry.failWith = new Error('connect ECONNREFUSED postgres://admin:secret@db:5432');
    const response = await gw.post(validBody());
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: 'internal error' });
    const logged = gw.logs.find((l) => l.msg === 'request failed');
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).toContain('ECONNREFUSED');
    expect(logged!.requestId).toBe(response.headers.get('x-request-id'));
    // The server keeps serving.
    gw.registry.failWith = undefined;
    expect((await gw.post(validBody())).status).toBe(200);
  });

  it('passes registry AppErrors through with their status', async () => {
    gw.registry.failWith = new AppError('UNAVAILABLE', 'registry is not ready');
    expect(await gw.post(validBody())).toMatchObject({ status: 503, json: { error: 'registry is not ready' } });
    gw.registry.failWith = new AppError('INTERNAL', 'internal error');
    expect(await gw.post(validBody())).toMatchObject({ status: 500, json: { error: 'internal error' } });
  });
});

describe('POST dynamic-events image URLs', () => {
  it('refuses 64 images beside a base64_image before storing anything: a stored event holds at most 64 image URLs', async () => {
    const body = mutate((b) => {
      b.event.event_data.images = Array.from({ length: 64 }, (_, i) => `https://example.test/${i}.jpg`);
      b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64');
    });
    const response = await gw.post(body);
    expect(response).toMatchObject({ status: 400, json: { error: 'event.event_data.images must have at most 63 items when base64_image is sent (its stored URL is the 64th)' } });
    expect(gw.media.calls).toEqual([]);
    expect(gw.registry.calls).toEqual([]);
  });
});

describe('request ids', () => {
  it('keeps a sane X-Request-Id, passes it to the clients, and logs one line per request', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64')));
    const response = await gw.post(body, { 'X-Request-Id': 'trace-abc-123' });
    expect(response.headers.get('x-request-id')).toBe('trace-abc-123');
    expect(gw.media.requestIds.at(-1)).toBe('trace-abc-123');
    expect(gw.registry.requestIds.at(-1)).toBe('trace-abc-123');
    await new Promise((r) => setTimeout(r, 20));
    const line = gw.logs.find((l) => l.msg === 'request' && l.requestId === 'trace-abc-123');
    expect(line).toMatchObject({ method: 'POST', route: `${API}/dynamic-events`, status: 200 });
    expect(typeof line!.durationMs).toBe('number');
  });

  it('replaces an insane X-Request-Id with a UUID', async () => {
    for (const sent of ['x'.repeat(129), 'has space', 'tab\there']) {
      const response = await gw.post(validBody(), { 'X-Request-Id': sent });
      expect(response.headers.get('x-request-id')).toMatch(UUID_V4);
    }
  });
});
