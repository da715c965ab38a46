/** The registry client against a fake gRPC registry: the protobuf ↔ gateway mapping, errors and health. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { input, registryClient, registryServer, seen, startFakeServices, stopFakeServices } from './grpc-fakes.js';

beforeAll(() => startFakeServices());
afterAll(stopFakeServices);

describe('registry client', () => {
  it('maps the event both ways: fields, property order, nine-digit timestamps, request id', async () => {
    const event = await registryClient.recordEvent(input(), { requestId: 'req-1' });
    expect(seen.requests.at(-1)).toEqual({
      source: { deviceName: 'camera-01', objectId: 'channel-1', objectDomain: 'acme.camera', objectName: 'Front door', objectType: 'video_channel' },
      eventType: { eventType: 'motion', displayName: 'Motion', displayDescription: 'Moved' },
      additionalProperties: input().properties,
      images: ['https://a.test/1.jpg', 'https://a.test/2.jpg'],
      videoClips: ['https://a.test/1.mp4'],
      // No Idempotency-Key and no token: the proto's empty strings.
      idempotencyKey: '',
      requestHash: '',
      tokenId: '',
    });
    expect(seen.requestIds.at(-1)).toBe('req-1');
    await registryClient.recordEvent({ ...input(), idempotency: { key: 'k-1', requestHash: 'h-1' } }, { requestId: 'req-2' });
    expect(seen.requests.at(-1)).toMatchObject({ idempotencyKey: 'k-1', requestHash: 'h-1' });
    await registryClient.recordEvent({ ...input(), tokenId: '0193a1b2-0000-7000-8000-000000000009' }, { requestId: 'req-3' });
    expect(seen.requests.at(-1)).toMatchObject({ tokenId: '0193a1b2-0000-7000-8000-000000000009' });
    expect(event).toEqual({
      id: expect.any(String),
      domain: 'acme.camera',
      eventType: 'motion',
      rels: ['/objects/acme.camera.channel-1'],
      images: ['https://a.test/1.jpg', 'https://a.test/2.jpg'],
      videoClips: ['https://a.test/1.mp4'],
      properties: input().properties,
      createdAt: '2025-11-21T08:20:04.123456000Z',
      updatedAt: '2025-11-21T08:20:05.000000007Z',
      tokenId: null,
      occurredAt: null,
    });
    expect(await registryClient.getEvent(event.id, { requestId: 'req-2' })).toEqual(event);
  });

  it('maps devices, objects and event types', async () => {
    const call = { requestId: 'r' };
    expect(await registryClient.getDevice('camera-01', call)).toEqual({
      deviceName: 'camera-01',
      kind: 'generic',
      createdAt: '2025-11-21T08:20:04.123456000Z',
      updatedAt: '2025-11-21T08:20:05.000000007Z',
      createdByTokenId: null,
      lastSeenAt: null,
    });
    expect(await registryClient.getObject('acme.camera.channel-1', call)).toMatchObject({ id: 'acme.camera.channel-1', objectId: 'channel-1', objectDomain: 'acme.camera', deviceName: 'camera-01' });
    expect(await registryClient.getEventType('acme.camera', 'motion', call)).toMatchObject({ domain: 'acme.camera', eventType: 'motion', displayDescription: 'Moved' });
  });

  it('keeps NOT_FOUND, hides internal failures, rejects responses without their message', async () => {
    await expect(registryClient.getDevice('nope', { requestId: 'r' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'device nope not found' });
    const internal = await registryClient.recordEvent(input('boom'), { requestId: 'r' }).catch((e: unknown) => e);
    expect(internal).toBeInstanceOf(AppError);
    expect(internal).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    await expect(registryClient.recordEvent(input('no-event'), { requestId: 'r' })).rejects.toThrow('registry RecordEvents response has no event');
    await expect(registryClient.recordEvent(input('empty'), { requestId: 'r' })).rejects.toThrow('registry RecordEvents result has neither recorded nor error');
  });

  it('reports health', async () => {
    expect(await registryClient.isServing(1000)).toBe(true);
    registryServer.setServing(false);
    expect(await registryClient.isServing(1000)).toBe(false);
    registryServer.setServing(true);
  });
});
