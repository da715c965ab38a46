/**
 * The same product on real infrastructure: PostgreSQL and Redis as this machine runs them and an
 * S3 server on loopback, configured only through DATABASE_URL, REDIS_URL and S3_*.
 */
import pg from 'pg';
import { Client as MinioClient } from 'minio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { samples } from '../support/images.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { createTestDatabase, postgresAvailable, redisAvailable, REDIS_URL, tempDir } from '../support/servers.js';
import { postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';

afterAll(stopAllStacks);

const up = (await postgresAvailable()) && (await redisAvailable());

// One stack on real backends for the tests below (only when PostgreSQL and Redis are there).
let stack: Stack;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let s3: TestS3;
let dir: ReturnType<typeof tempDir>;
let sql: pg.Client;
let url: string;

beforeAll(async () => {
  if (!up) return;
  db = await createTestDatabase();
  s3 = await startS3Server();
  dir = tempDir('e2e-real');
  stack = await startStack({
    dataDir: dir.path,
    env: {
      DATABASE_URL: db.url,
      REDIS_URL,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_BUCKET: 'e2e-events',
    },
  });
  url = `${stack.api}/dynamic-events`;
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});

afterAll(async () => {
  if (!up) return;
  await sql?.end().catch(() => {});
  const result = await stack?.stop('SIGTERM');
  await s3?.stop();
  await db?.drop();
  dir?.remove();
  expect(result?.code).toBe(0);
});

describe.skipIf(!up)('real Postgres, Redis and S3', () => {
  it('records the example event in Postgres', async () => {
    const res = await postJson(url, exampleEvent());
    expect(res.status).toBe(200);
    const tables = await sql.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`);
    expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(expect.arrayContaining(['devices', 'objects', 'event_types', 'events']));
    const events = await sql.query('SELECT count(*)::int AS n FROM events WHERE id = $1', [res.body!.id]);
    expect(events.rows[0].n).toBe(1);
  });

  it('stores base64_image in the S3 bucket, byte for byte', async () => {
    const body = exampleEvent({ device: 'cam-s3' });
    (body.event.event_data.event_additional_properties as Record<string, string>).base64_image = samples.jpeg.bytes.toString('base64');
    const res = await postJson(url, body);
    expect(res.status).toBe(200);
    const imageUrl = (res.body!.images as string[])[1]!;
    const key = imageUrl.split('/').pop()!;
    const { hostname, port } = new URL(s3.endpoint);
    const minio = new MinioClient({ endPoint: hostname, port: Number(port), useSSL: false, accessKey: s3.accessKey, secretKey: s3.secretKey, pathStyle: true, region: 'us-east-1' });
    const chunks: Buffer[] = [];
    for await (const chunk of await minio.getObject('e2e-events', key)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(samples.jpeg.bytes)).toBe(true);
    const served = await fetch(imageUrl);
    expect(Buffer.from(await served.arrayBuffer()).equals(samples.jpeg.bytes)).toBe(true);
  });

  it('100 concurrent first sightings leave exactly one device, object and event type', async () => {
    const body = exampleEvent({ device: 'cam-race-real', objectId: 'r-1', domain: 'acme.race.real', eventType: 'race' });
    const results = await Promise.all(Array.from({ length: 100 }, () => postJson(url, body)));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    const count = async (query: string, params: unknown[]) => (await sql.query(query, params)).rows[0].n as number;
    expect(await count('SELECT count(*)::int AS n FROM devices WHERE device_name = $1', ['cam-race-real'])).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM objects WHERE object_domain = $1`, ['acme.race.real'])).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM event_types WHERE domain = $1`, ['acme.race.real'])).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM events WHERE domain = $1`, ['acme.race.real'])).toBe(100);
  });

  it('answers 500 "internal error" when the database fails, and keeps serving', async () => {
    // A real dependency failure: the registry's database disappears under it.
    await sql.end();
    await db.drop();
    const res = await postJson(url, exampleEvent({ device: 'cam-db-gone' }));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal error' });
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    expect(stack.output()).toMatch(/"level":"error"/);
  });
});
