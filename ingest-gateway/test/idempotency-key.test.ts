/**
 * The Idempotency-Key header at the gateway: read and checked before anything is stored, passed to
 * the registry with the sha256 of the body as received, and never written to a log line.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { registry } from '@dynamic-events/proto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newEventSize } from '../src/clients/record-batcher.js';
import { startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());
afterEach(() => {
  gw.registry.recorded.length = 0;
  gw.media.calls.length = 0;
});

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** POSTs with node:http (fetch refuses some of these values; an array sends the header once per item). */
function rawPost(key: string | string[], body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gw.url}/api/platform/dh/dynamic-events`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Idempotency-Key header', () => {
  it('passes the key and the sha256 of the body text as sent to the registry', async () => {
    const text = JSON.stringify(validBody(), null, 2);
    const response = await gw.post(text, { 'Idempotency-Key': 'order-42/retry-safe' });
    expect(response.status).toBe(200);
    expect(gw.registry.recorded[0]!.idempotency).toEqual({ key: 'order-42/retry-safe', requestHash: sha256(text) });
  });

  it('hashes the decompressed body: the same JSON gzipped has the same fingerprint', async () => {
    const text = JSON.stringify(validBody());
    await gw.post(text, { 'Idempotency-Key': 'gz' });
    const res = await fetch(`${gw.url}/api/platform/dh/dynamic-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'idempotency-key': 'gz' },
      body: gzipSync(text),
    });
    expect(res.status).toBe(200);
    expect(gw.registry.recorded.map((e) => e.idempotency?.requestHash)).toEqual([sha256(text), sha256(text)]);
  });

  it('sends nothing without the header (no key, no hash)', async () => {
    expect((await gw.post(validBody())).status).toBe(200);
    // The event input declares the field for every request (one object shape); without the header it stays unset.
    expect(gw.registry.recorded[0]?.idempotency).toBeUndefined();
  });

  it.each([
    ['256 characters', 'k'.repeat(256), 'Idempotency-Key header must be at most 255 characters'],
    ['empty', '', 'Idempotency-Key header must not be empty'],
    ['only spaces', '   ', 'Idempotency-Key header must not be empty'],
    ['non-ASCII (UTF-8 bytes)', Buffer.from('clé').toString('latin1'), 'Idempotency-Key header must contain only printable ASCII characters'],
    ['a control character', 'a\tb', 'Idempotency-Key header must contain only printable ASCII characters'],
  ])('answers 400 naming the header and the rule for a key of %s, before storing anything', async (_, key, message) => {
    const body = validBody();
    (body.event as { event_data: { event_additional_properties: Record<string, string> } }).event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64');
    const response = await rawPost(key, JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(refusal(message, { field: 'Idempotency-Key' }));
    expect(gw.registry.recorded).toHaveLength(0);
    expect(gw.media.calls).toHaveLength(0);
  });

  it('accepts a key of exactly 255 characters', async () => {
    expect((await gw.post(validBody(), { 'Idempotency-Key': '~'.repeat(255) })).status).toBe(200);
  });

  it('answers 400 when the header is sent twice (Node would join both into one key)', async () => {
    const response = await rawPost(['a', 'b'], JSON.stringify(validBody()));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(refusal('Idempotency-Key header must be sent once', { field: 'Idempotency-Key' }));
    expect(gw.registry.recorded).toHaveLength(0);
  });

  it('never logs the key', async () => {
    const key = `secret-looking-key-${Date.now()}`;
    await gw.post(validBody(), { 'Idempotency-Key': key });
    expect((await rawPost(`${key}\u00e9`, JSON.stringify(validBody()))).status).toBe(400);
    expect(JSON.stringify(gw.logs)).not.toContain(key);
  });
});

describe('newEventSize with a key', () => {
  it('is exactly the encoded size', () => {
    const event: registry.NewEvent = {
      source: { deviceName: 'd', objectId: 'o', objectDomain: 'x.y', objectName: 'n', objectType: 't' },
      eventType: { eventType: 'e', displayName: 'E', displayDescription: 'desc' },
      additionalProperties: [{ key: 'k', value: 'v' }],
      images: [],
      videoClips: [],
      idempotencyKey: 'k'.repeat(200),
      requestHash: sha256('body'),
      tokenId: '',
      occurredAt: undefined,
    };
    expect(newEventSize(event)).toBe(registry.NewEvent.encode(event).finish().length);
  });

  it.each([
    [{ seconds: '1795000000', nanos: 123_456_000 }],
    [{ seconds: '0', nanos: 0 }],
    [{ seconds: '1', nanos: 0 }],
    [{ seconds: '-1', nanos: 999_999_999 }],
  ])('is exactly the encoded size with a token and occurred_at %j', (occurredAt) => {
    const event: registry.NewEvent = {
      source: { deviceName: 'd', objectId: 'o', objectDomain: 'x.y', objectName: 'n', objectType: 't' },
      eventType: { eventType: 'e', displayName: 'E', displayDescription: 'desc' },
      additionalProperties: [],
      images: ['https://x/1.jpg'],
      videoClips: [],
      idempotencyKey: '',
      requestHash: '',
      tokenId: '0190f1c2-0000-7000-8000-000000000001',
      occurredAt,
    };
    expect(newEventSize(event)).toBe(registry.NewEvent.encode(event).finish().length);
  });
});
