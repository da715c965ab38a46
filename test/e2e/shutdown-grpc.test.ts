/**
 * SIGTERM under load for the gRPC services, each run as a container runs it (`node <svc>/dist/main.js`):
 * NOT_SERVING first, every accepted call completes OK, exit 0; a second signal forces exit 1.
 * The shared steps are in ../support/shutdown-harness.ts.
 */
import { describe, expect, it } from 'vitest';
import { testPool } from '../support/servers.js';
import { callUnary, createGrpcClient } from '@dynamic-events/proto/runtime';
import { media, MEDIA_SERVICE_NAME as MEDIA, registry, REGISTRY_SERVICE_NAME as REGISTRY } from '@dynamic-events/proto';
import { samples } from '../support/images.js';
import { expectSecondSignalForces, grpcDrain, useShutdownBackends } from '../support/shutdown-harness.js';

const { db, startRegistry, startMedia } = useShutdownBackends('e2e-shutdown-grpc');

describe('registry-service', () => {
  it('drains on SIGTERM under load: NOT_SERVING first, every accepted call committed, exit 0', async () => {
    const registryService = await startRegistry();
    const client = createGrpcClient(registry.RegistryServiceClient, registryService.addr);
    let n = 0;
    const okIds: string[] = [];
    await grpcDrain(registryService, REGISTRY, async () => {
      const i = n++;
      const event = {
        source: { deviceName: 'drain-cam', objectId: `o-${i % 40}`, objectDomain: 'acme.drain', objectName: 'o', objectType: 't' },
        eventType: { eventType: 'tick', displayName: 'Tick', displayDescription: 'A tick' },
        additionalProperties: [],
        images: [],
        videoClips: [],
        idempotencyKey: '',
        requestHash: '',
        tokenId: '',
        occurredAt: undefined,
      };
      const res = await callUnary(client.recordEvent.bind(client), { event }, { deadlineMs: 10_000 });
      okIds.push(res.event!.id);
    });
    client.close();
    const pool = testPool(db.url, 2);
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE id = ANY($1::uuid[])', [okIds]);
    const total = await pool.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE domain = 'acme.drain'");
    await pool.end();
    expect(Number(rows[0]!.n)).toBe(okIds.length);
    // Nothing was committed that its caller did not hear about.
    expect(Number(total.rows[0]!.n)).toBe(okIds.length);
  });

  it('exits 1 at once on a second signal', async () => {
    const { service } = await startRegistry(30_000);
    await expectSecondSignalForces(service);
  });
});

describe('media-service', () => {
  it('drains on SIGTERM under load: NOT_SERVING first, every accepted StoreImage answered OK, exit 0', async () => {
    const mediaService = await startMedia();
    const client = createGrpcClient(media.MediaServiceClient, mediaService.addr);
    await grpcDrain(mediaService, MEDIA, () => callUnary(client.storeImage.bind(client), { data: samples.png.bytes }, { deadlineMs: 10_000 }));
    client.close();
  });

  it('exits 1 at once on a second signal', async () => {
    const { service } = await startMedia(30_000);
    await expectSecondSignalForces(service);
  });
});
