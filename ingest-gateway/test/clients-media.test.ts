/** The media client against a fake gRPC media service, and the app over both real clients. */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHttp } from '@dynamic-events/proto/runtime';
import { UNSUPPORTED_IMAGE_MESSAGE } from '@dynamic-events/proto';
import { createRequestHandler } from '../src/http/app.js';
import { createMetrics } from '../src/metrics.js';
import { logger, MAX_IMAGE, mediaClient, mediaServer, registryClient, seen, startFakeServices, stopFakeServices } from './grpc-fakes.js';
import { PNG_SIGNATURE, validBody } from './helpers.js';

beforeAll(() => startFakeServices());
afterAll(stopFakeServices);

describe('media client', () => {
  const image = Buffer.concat([PNG_SIGNATURE, Buffer.alloc(5 * 1024 * 1024, 0xab)]);
  let key = '';

  it('stores an image larger than the 4 MiB gRPC default', async () => {
    const stored = await mediaClient.storeImage(image, { requestId: 'img-1' });
    key = stored.key;
    expect(stored).toEqual({ key, contentType: 'image/png', sizeBytes: image.length });
    expect(seen.requestIds.at(-1)).toBe('img-1');
  });

  it('keeps INVALID_ARGUMENT with its details', async () => {
    await expect(mediaClient.storeImage(Buffer.from('<svg/>'), { requestId: 'r' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: UNSUPPORTED_IMAGE_MESSAGE,
      details: { field: 'data', rule: 'format' },
    });
  });

  it('streams an image back exactly', async () => {
    const stream = await mediaClient.openImage(key, { requestId: 'r' });
    expect(stream.contentType).toBe('image/png');
    expect(stream.sizeBytes).toBe(image.length);
    const chunks: Buffer[] = [];
    for await (const chunk of stream.chunks) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(image)).toBe(true);
  });

  it('answers NOT_FOUND before any chunk', async () => {
    await expect(mediaClient.openImage('missing.png', { requestId: 'r' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('cancels the gRPC call when the reader stops early or never reads', async () => {
    const before = seen.cancelled;
    const stream = await mediaClient.openImage(key, { requestId: 'r' });
    for await (const _chunk of stream.chunks) break;
    await expect.poll(() => seen.cancelled, { timeout: 2000 }).toBe(before + 1);
    const unread = await mediaClient.openImage(key, { requestId: 'r' });
    await unread.cancel();
    await expect.poll(() => seen.cancelled, { timeout: 2000 }).toBe(before + 2);
  });
});

describe('the app over the real clients', () => {
  it('stores the image, records the event and serves the image back', async () => {
    const metrics = createMetrics();
    const handler = createRequestHandler({
      config: { platformSegment: 'platform', publicBaseUrl: 'http://localhost:8080', dynamicEventsToken: undefined, maxBodyBytes: 16 * 1024 * 1024, maxImageBytes: MAX_IMAGE, maxInflightBodyBytes: 64 * 1024 * 1024 , maxStreams: 1000, maxStreamsPerToken: 200, maxStreamsPerClient: 100 },
      logger,
      registry: registryClient,
      media: mediaClient,
      metrics,
    });
    const server = createServer(handler);
    const port = await listenHttp(server, 0, '127.0.0.1');
    try {
      const body = validBody() as { event: { event_data: { event_additional_properties: Record<string, string> } } };
      body.event.event_data.event_additional_properties.base64_image = `data:image/png;base64,${image().toString('base64')}`;
      const response = await fetch(`http://127.0.0.1:${port}/api/platform/dh/dynamic-events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'e2e-1' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      const event = (await response.json()) as { images: string[]; created_at: string; event_additional_properties: Record<string, string> };
      expect(event.images).toHaveLength(2);
      expect(event.created_at).toBe('2025-11-21T08:20:04.123456000Z');
      expect(event.event_additional_properties).toEqual({ zone: 'north', confidence: '0.93' });
      expect(seen.requestIds.slice(-2)).toEqual(['e2e-1', 'e2e-1']);

      const key = event.images[1]!.split('/').pop()!;
      const served = await fetch(`http://127.0.0.1:${port}/api/platform/dh/media/${key}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-length')).toBe(String(image().length));
      expect(Buffer.from(await served.arrayBuffer()).equals(image())).toBe(true);

      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ error: 'not ready: media' });
      mediaServer.setServing(true);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

function image(): Buffer {
  return Buffer.concat([PNG_SIGNATURE, Buffer.alloc(300 * 1024, 0x5a)]);
}
