/**
 * The two ways the product runs, for e2e tests that depend on the backend and must hold in both:
 * - embedded: what `npm start` runs with no backend configured (embedded Postgres under DATA_DIR,
 *   the in-process lock, images on disk);
 * - real: this machine's PostgreSQL (a fresh database), Redis and an S3 server on loopback (s3rver),
 *   configured only through DATABASE_URL, REDIS_URL and S3_*.
 * Each gives a SQL client on the stack's database and a count of the images its store holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as MinioClient } from 'minio';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { startS3Server, type TestS3 } from './s3.js';
import { createTestDatabase, postgresAvailable, redisAvailable, REDIS_URL, tempDir } from './servers.js';
import { startStack, type Stack } from './stack.js';

export type BackendMode = 'embedded' | 'real';
export const BACKEND_MODES: BackendMode[] = ['embedded', 'real'];

/** Whether a mode can run here (under CI a missing server fails instead, see requireServer). */
export async function modeAvailable(mode: BackendMode): Promise<boolean> {
  return mode === 'embedded' || ((await postgresAvailable()) && (await redisAvailable()));
}

export interface ModeStack {
  mode: BackendMode;
  stack: Stack;
  /** `${stack.api}/dynamic-events` */
  url: string;
  /** The database the registry writes to (a second stack given it is another replica), and a client on it. */
  databaseUrl: string;
  sql: pg.Client;
  dataDir: string;
  /** How many images the media store holds (files under DATA_DIR, or objects in the bucket). */
  storedImages: () => Promise<number>;
}

const BUCKET = 'e2e-modes';

/** For the enclosing describe: the whole stack in `mode`, started in beforeAll and stopped (exit 0 expected) in afterAll. */
export function useStackInMode(mode: BackendMode, label: string, env: Record<string, string> = {}): ModeStack {
  const ctx = { mode } as ModeStack;
  const cleanups: Array<() => Promise<void> | void> = [];
  beforeAll(async () => {
    const dir = tempDir(`${label}-${mode}`);
    cleanups.push(() => dir.remove());
    ctx.dataDir = dir.path;
    let databaseUrl: string;
    if (mode === 'real') {
      const db = await createTestDatabase();
      cleanups.push(() => db.drop());
      const s3 = await startS3Server();
      cleanups.push(() => s3.stop());
      ctx.stack = await startStack({ dataDir: dir.path, env: { DATABASE_URL: db.url, REDIS_URL, ...s3Env(s3), ...env } });
      databaseUrl = db.url;
      ctx.storedImages = () => bucketObjects(s3);
    } else {
      ctx.stack = await startStack({ dataDir: dir.path, env });
      databaseUrl = embeddedDatabaseUrl(dir.path, ctx.stack.output());
      ctx.storedImages = async () => filesUnder(join(dir.path, 'media'));
    }
    ctx.url = `${ctx.stack.api}/dynamic-events`;
    ctx.databaseUrl = databaseUrl;
    ctx.sql = new pg.Client({ connectionString: databaseUrl });
    await ctx.sql.connect();
  });
  afterAll(async () => {
    await ctx.sql?.end().catch(() => {});
    const result = await ctx.stack?.stop('SIGTERM');
    for (const cleanup of cleanups.reverse()) await cleanup();
    expect(result?.code).toBe(0);
  });
  return ctx;
}

function s3Env(s3: TestS3): Record<string, string> {
  return { S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_BUCKET: BUCKET };
}

/**
 * The embedded cluster's URL, as the launcher hands it to the registry: its port from the keeper's
 * start-up line, the password from DATA_DIR (never logged), the superuser and database it creates.
 */
function embeddedDatabaseUrl(dataDir: string, output: string): string {
  const line = output.split('\n').find((l) => l.includes('"msg":"embedded Postgres started"'));
  if (!line) throw new Error(`no "embedded Postgres started" line in:\n${output}`);
  const { port } = JSON.parse(line) as { port: number };
  const password = readFileSync(join(dataDir, 'postgres', 'password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/dynamic_events`;
}

function filesUnder(dir: string): number {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && !e.name.startsWith('.')).length : 0;
}

async function bucketObjects(s3: TestS3): Promise<number> {
  const { hostname, port } = new URL(s3.endpoint);
  const minio = new MinioClient({ endPoint: hostname, port: Number(port), useSSL: false, accessKey: s3.accessKey, secretKey: s3.secretKey, pathStyle: true, region: 'us-east-1' });
  if (!(await minio.bucketExists(BUCKET))) return 0;
  let count = 0;
  for await (const _ of minio.listObjectsV2(BUCKET, '', true)) count++;
  return count;
}
