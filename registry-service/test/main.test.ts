/**
 * The built service as an operator runs it: `node registry-service/dist/main.js` with no env
 * (embedded Postgres, in-process lock) or with DATABASE_URL and REDIS_URL; SIGTERM exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createGrpcClient, createHealthChecker } from '@dynamic-events/proto/runtime';
import { registry, REGISTRY_SERVICE_NAME } from '@dynamic-events/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '../src/db/migrate.js';
import { createTestDatabase, freePort, postgresAvailable, REDIS_URL, redisAvailable } from '../../test/support/servers.js';
import { registryApi, sampleEvent, TEST_INTERNAL_TOKEN, testPool, unique } from './helpers.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface Running {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function run(env: Record<string, string>, args: string[] = []): Running {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} missing: build first (npx tsc -b)`);
  const child = spawn(process.execPath, [MAIN, ...args], {
    // METRICS_PORT 0: a metrics port of its own, so a running stack or a second test run never collides.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', METRICS_PORT: '0', REGISTRY_INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function listening(r: Running): Promise<number> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const line = r.output().split('\n').find((l) => l.includes('"registry-service listening"'));
    if (line) return (JSON.parse(line) as { port: number }).port;
    if (r.child.exitCode !== null) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`not listening:\n${r.output()}`);
}

async function exercise(port: number): Promise<void> {
  const health = createHealthChecker(`127.0.0.1:${port}`);
  // Asked until SERVING (20 s at most): a first check may meet a channel still connecting.
  let serving = false;
  for (const deadline = Date.now() + 20_000; !serving && Date.now() < deadline; ) serving = await health.isServing(REGISTRY_SERVICE_NAME, 2000);
  expect(serving).toBe(true);
  health.close();
  const client = createGrpcClient(registry.RegistryServiceClient, `127.0.0.1:${port}`);
  // Connected first, so the call's own deadline never covers connecting on a busy machine.
  await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 20_000, (err) => (err ? reject(err) : resolve())));
  const res = await registryApi(client).recordEvent(sampleEvent({ source: { deviceName: unique('main') } }));
  expect(res.outcome?.deviceCreated).toBe(true);
  client.close();
}

const dbUp = await postgresAvailable();
const redisUp = await redisAvailable();

describe('node registry-service/dist/main.js', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('refuses to start without DATABASE_URL, naming it (npm start hands it an embedded Postgres)', async () => {
    const r = run({ REGISTRY_GRPC_PORT: String(await freePort()) });
    cleanups.push(() => void r.child.kill('SIGKILL'));
    expect(await r.exit).toBe(1);
    expect(r.output()).toContain('DATABASE_URL is required (a postgres:// URL; npm start provides an embedded Postgres)');
  });

  it.skipIf(!dbUp || !redisUp)('runs on DATABASE_URL and REDIS_URL, and --migrate-only applies the schema and exits', async () => {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    // The migration job administers no token: it needs no internal credential.
    const migrate = run({ DATABASE_URL: db.url, REGISTRY_INTERNAL_TOKEN: '' }, ['--migrate-only']);
    expect(await migrate.exit).toBe(0);
    const pool = testPool(db.url, 10);
    expect((await pool.query(`SELECT count(*)::int AS n FROM schema_migrations`)).rows[0]).toEqual({ n: (await loadMigrations()).length });
    await pool.end();

    const grpcPort = await freePort();
    const r = run({ DATABASE_URL: db.url, REDIS_URL, MIGRATIONS: 'skip', REGISTRY_GRPC_PORT: String(grpcPort), GRPC_HOST: '127.0.0.1' });
    cleanups.push(() => void r.child.kill('SIGKILL'));
    await listening(r);
    expect(r.output()).toContain('"locks":"redis"');
    await exercise(grpcPort);
    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
  });

  it.skipIf(!dbUp)('with MIGRATIONS=skip on a database that lacks migrations, refuses to start and says to run the job', async () => {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    const r = run({ DATABASE_URL: db.url, MIGRATIONS: 'skip', REGISTRY_GRPC_PORT: String(await freePort()), GRPC_HOST: '127.0.0.1' });
    cleanups.push(() => void r.child.kill('SIGKILL'));
    expect(await r.exit).toBe(1);
    expect(r.output()).toContain('MIGRATIONS=skip but the database lacks migrations 0001_');
    expect(r.output()).toContain('run the migration job (node registry-service/dist/main.js --migrate-only) first');
  });

  it('refuses to serve without REGISTRY_INTERNAL_TOKEN, naming it (TokenService would be open to any caller)', async () => {
    const r = run({ DATABASE_URL: 'postgres://127.0.0.1:1/none', REGISTRY_INTERNAL_TOKEN: '' });
    expect(await r.exit).toBe(1);
    expect(r.output()).toContain('REGISTRY_INTERNAL_TOKEN is required');
  });

  it('refuses a bad configuration, naming every bad variable, with exit code 1', async () => {
    const r = run({ REGISTRY_GRPC_PORT: 'abc', LOCK_WAIT_MS: '-1', MIGRATIONS: 'maybe', DATABASE_URL: 'mysql://u:secret@h/db', LOG_LEVEL: 'loud' });
    expect(await r.exit).toBe(1);
    for (const name of ['REGISTRY_GRPC_PORT', 'LOCK_WAIT_MS', 'MIGRATIONS', 'DATABASE_URL', 'LOG_LEVEL']) expect(r.output()).toContain(name);
    expect(r.output()).not.toContain('secret');
  });
});
