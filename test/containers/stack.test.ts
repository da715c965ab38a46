/**
 * The product running in its containers as the chart runs its pods (two registry and two media
 * replicas, the chart's default), driven over HTTP: the spec's example, an image stored in S3 and
 * served back byte for byte, every entity read back, /metrics on each service's port, the pods'
 * restrictions actually in force, and a burst of first sightings over both registry replicas on one
 * database producing each device, object and event type once and every event once.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { samples } from '../support/images.js';
import { scrape, valueOf } from '../support/prometheus.js';
import { getJson, postJson } from '../support/stack.js';
import { docker, inspect } from './support/docker.js';
import { startContainerStack, type ContainerStack } from './support/container-stack.js';

let stack: ContainerStack;
beforeAll(async () => {
  stack = await startContainerStack({ registries: 2, medias: 2 });
});
afterAll(async () => {
  await stack?.stop();
});

describe('the stack in containers', () => {
  it('answers the spec’s example and reads back the event, device, object and event type', async () => {
    const res = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: 'ct-camera-01' }));
    expect(res.status, await stack.logs()).toBe(200);
    const event = res.body as { id: string; rels: string[]; domain: string; event_type: string };
    expect(event).toMatchObject({ domain: 'acme.camera.video', event_type: 'motion_detected', rels: ['/objects/acme.camera.video.channel-1'] });
    expect((await getJson(`${stack.api}/dynamic-events/${event.id}`)).body).toEqual(res.body);
    expect((await getJson(`${stack.api}/devices/ct-camera-01`)).body).toMatchObject({ device_name: 'ct-camera-01', kind: 'generic' });
    expect((await getJson(`${stack.api}/objects/acme.camera.video.channel-1`)).body).toMatchObject({ object_name: 'Entrance camera, channel 1', device_name: 'ct-camera-01' });
    expect((await getJson(`${stack.api}/event-types/acme.camera.video/motion_detected`)).body).toMatchObject({ display_name: 'Motion detected' });
  });

  it('stores an image in S3 and serves it back byte for byte', async () => {
    const body = exampleEvent({ device: 'ct-camera-02' });
    (body.event.event_data.event_additional_properties as Record<string, string>).base64_image = samples.png.bytes.toString('base64');
    const res = await postJson(`${stack.api}/dynamic-events`, body);
    expect(res.status, await stack.logs()).toBe(200);
    const url = (res.body as { images: string[] }).images.at(-1)!;
    expect(url.startsWith(`${stack.api}/media/`)).toBe(true);
    const image = await fetch(url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(samples.png.bytes)).toBe(true);
  });

  it('serves /metrics on each service’s own port, never on the public one', async () => {
    for (const replica of [stack.gateway, ...stack.registries, ...stack.medias]) {
      expect((await scrape(replica.metrics)).length, replica.container.name).toBeGreaterThan(0);
    }
    expect(valueOf(await scrape(stack.gateway.metrics), 'http_requests_total', { status_class: '2xx' })).toBeGreaterThan(0);
    expect((await fetch(`${stack.baseUrl}/metrics`)).status).toBe(404);
  });

  it('runs every container read-only, without capabilities, as uid 1000, with nothing writable but /tmp', async () => {
    for (const { container } of [stack.gateway, ...stack.registries, ...stack.medias]) {
      const info = await inspect<{ HostConfig: { ReadonlyRootfs: boolean; CapDrop: string[]; SecurityOpt: string[] } }>('container', container.name);
      expect(info.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] });
      const script = "const fs=require('fs');let w;try{fs.writeFileSync('/app/x','');w=true}catch{w=false}" +
        ";fs.writeFileSync('/tmp/x','');console.log(JSON.stringify({uid:process.getuid(),appWritable:w,cap:fs.readFileSync('/proc/self/status','utf8').match(/CapEff:\\s*(\\w+)/)[1]}))";
      const seen = JSON.parse(await docker('exec', container.name, 'node', '-e', script)) as { uid: number; appWritable: boolean; cap: string };
      expect(seen, container.name).toEqual({ uid: 1000, appWritable: false, cap: '0000000000000000' });
    }
  });

  it('two registry replicas on one database create each identity once under a burst of first sightings', async () => {
    const tag = Date.now().toString(36);
    const requests = Array.from({ length: 160 }, (_, i) =>
      exampleEvent({ device: `ct-burst-${tag}-${i % 8}`, objectId: `ch-${i % 16}`, domain: `burst.${tag}`, eventType: `kind-${i % 4}` }));
    const results = await Promise.all(requests.map((body) => postJson(`${stack.api}/dynamic-events`, body)));
    expect(results.filter((r) => r.status !== 200).map((r) => r.status), await stack.logs()).toEqual([]);
    const ids = new Set(results.map((r) => (r.body as { id: string }).id));
    expect(ids.size).toBe(160);

    const sql = new pg.Client({ connectionString: stack.databaseUrl });
    await sql.connect();
    const count = async (query: string) => Number((await sql.query<{ n: string }>(query, [`burst.${tag}`])).rows[0]!.n);
    const counts = {
      devices: await count("SELECT count(*) AS n FROM devices WHERE device_name LIKE 'ct-burst-' || split_part($1, '.', 2) || '-%'"),
      objects: await count('SELECT count(*) AS n FROM objects WHERE object_domain = $1'),
      eventTypes: await count('SELECT count(*) AS n FROM event_types WHERE domain = $1'),
      events: await count("SELECT count(*) AS n FROM events WHERE object_ref LIKE $1 || '.%'"),
    };
    await sql.end();
    expect(counts).toEqual({ devices: 8, objects: 16, eventTypes: 4, events: 160 });

    // Both replicas took part, and between them each identity was reported created exactly once.
    const scraped = await Promise.all(stack.registries.map((r) => scrape(r.metrics)));
    for (const samples of scraped) expect(valueOf(samples, 'registry_events_recorded_total')).toBeGreaterThan(0);
    const created = (kind: string) => scraped.reduce((n, s) => n + valueOf(s, 'registry_entities_ensured_total', { kind, result: 'created' }), 0);
    // The two earlier tests created 2 devices, 1 object and 1 event type.
    expect({ device: created('device'), object: created('object'), eventType: created('event_type') }).toEqual({ device: 8 + 2, object: 16 + 1, eventType: 4 + 1 });
  });
});
