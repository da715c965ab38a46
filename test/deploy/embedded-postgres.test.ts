/**
 * The launcher's embedded Postgres (npm start without DATABASE_URL): real binaries, data under
 * DATA_DIR/postgres, persistence across restarts,
 * recovery after the owning process is SIGKILLed, clean stop; and the 100-concurrent-first-
 * sightings guarantee in embedded mode with the in-process lock.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../deploy/local/postgres/embedded-postgres.js';
import { isAlive } from '../../deploy/local/postgres/postmaster.js';
import { loadPostgresBinaries, postgresUser } from '../../deploy/local/postgres/postgres-binaries.js';
import { reachableBinaries } from '../../deploy/local/postgres/reachable-paths.js';
import { expectSingleCreation, sampleEvent, silent, startRegistry } from '../../registry-service/test/helpers.js';
import { tempDir } from '../support/servers.js';

const DIST_MODULE = fileURLToPath(new URL('../../deploy/local/dist/postgres/embedded-postgres.js', import.meta.url));

async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const content = await readFile(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').catch(() => undefined);
  return content === undefined ? undefined : Number(content.split('\n')[0]);
}

// Every data directory and instance a test makes is removed or stopped after the file.
const dirs: Array<{ remove: () => void }> = [];
const running: EmbeddedPostgres[] = [];
const dir = (label: string) => {
  const d = tempDir(label);
  dirs.push(d);
  return d.path;
};
afterAll(async () => {
  for (const pgInstance of running) await pgInstance.stop().catch(() => undefined);
  for (const d of dirs) d.remove();
});

/** A directory only root can enter (like /root, or a `mktemp -d` checkout). */
async function privateDir(label: string): Promise<string> {
  const parent = join(dir(label), 'home');
  await mkdir(parent);
  await chmod(parent, 0o700);
  return parent;
}

describe('embedded Postgres', () => {
  it('starts, serves 100 concurrent first sightings with the in-process lock, persists across a restart and stops cleanly', async () => {
    const dataDir = dir('embedded');
    const first = await startEmbeddedPostgres({ dataDir, logger: silent });
    running.push(first);
    expect(first.port).not.toBe(5432);
    expect(first.url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/dynamic_events$/);
    // Password authentication: the cluster is not open to every local user.
    const anonymous = new pg.Client({ host: '127.0.0.1', port: first.port, user: 'postgres', database: 'dynamic_events', password: 'wrong' });
    await expect(anonymous.connect()).rejects.toThrow(/password authentication failed/);

    const t = await startRegistry({ databaseUrl: first.url });
    await expectSingleCreation([t.api], t.pool, 100);
    const recorded = (await t.api.recordEvent(sampleEvent({ source: { deviceName: 'persisted-device' } }))).event!;
    await t.close();

    const pid = await postmasterPid(dataDir);
    expect(pid && (await isAlive(pid))).toBe(true);
    await first.stop();
    expect(await isAlive(pid!)).toBe(false);
    expect(await postmasterPid(dataDir)).toBeUndefined();
    expect(await readFile(join(dataDir, 'postgres', 'postgres.log'), 'utf8')).toContain('database system is shut down');

    const started = Date.now();
    const second = await startEmbeddedPostgres({ dataDir, logger: silent });
    running.push(second);
    expect(Date.now() - started).toBeLessThan(5000);
    const again = await startRegistry({ databaseUrl: second.url });
    expect((await again.api.getEvent(recorded.id)).event).toEqual(recorded);
    await again.close();
    await second.stop();
  });
});

describe('embedded Postgres: a crashed owner and a second instance', () => {
  it('recovers after the owning process is SIGKILLed (its postmaster left running) and ignores a stale pid file', async () => {
    if (!existsSync(DIST_MODULE)) throw new Error(`${DIST_MODULE} missing: build first (npx tsc -b)`);
    const dataDir = dir('embedded-kill');
    const script = `
      import { pino } from 'pino';
      import { startEmbeddedPostgres } from ${JSON.stringify(DIST_MODULE)};
      const pg = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, logger: pino({ level: 'silent' }) });
      process.stdout.write(JSON.stringify({ url: pg.url }) + '\\n');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve((JSON.parse(d.toString()) as { url: string }).url));
      child.once('exit', (code) => reject(new Error(`child exited ${code}: ${stderr}`)));
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE survivor (v text); INSERT INTO survivor VALUES ($$kept$$)');
    await client.end();

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const orphan = await postmasterPid(dataDir);
    expect(orphan && (await isAlive(orphan))).toBe(true);

    const recovered = await startEmbeddedPostgres({ dataDir, logger: silent });
    running.push(recovered);
    expect(await isAlive(orphan!)).toBe(false);
    const check = new pg.Client({ connectionString: recovered.url });
    await check.connect();
    expect((await check.query('SELECT v FROM survivor')).rows).toEqual([{ v: 'kept' }]);
    await check.end();
    await recovered.stop();

    // A pid file left by a crash whose process is gone (or is someone else) must not block the start.
    await writeFile(join(dataDir, 'postgres', 'data', 'postmaster.pid'), `${process.pid}\n${dataDir}\n`);
    const afterStale = await startEmbeddedPostgres({ dataDir, logger: silent });
    running.push(afterStale);
    await afterStale.stop();
    expect(await isAlive(process.pid)).toBe(true);
  });

  it('refuses a second instance on a DATA_DIR in use', async () => {
    const dataDir = dir('embedded-twice');
    const first = await startEmbeddedPostgres({ dataDir, logger: silent });
    running.push(first);
    await writeFile(join(dataDir, 'postgres', 'owner.json'), JSON.stringify({ pid: process.ppid }));
    await expect(startEmbeddedPostgres({ dataDir, logger: silent })).rejects.toThrow(/in use by another stack/);
    await first.stop();
  });
});

describe('embedded Postgres: under a 0700 directory', () => {
  it.skipIf(process.getuid?.() !== 0)('keeps the cluster where the postgres user can reach it when DATA_DIR is under a 0700 directory, and finds it again after a restart', async () => {
    const dataDir = join(await privateDir('private-data'), 'data');
    const first = await startEmbeddedPostgres({ dataDir, logger: silent });
    running.push(first);
    const link = join(dataDir, 'postgres', 'data');
    const cluster = await readlink(link);
    try {
      expect(cluster.startsWith(dataDir)).toBe(false);
      const client = new pg.Client({ connectionString: first.url });
      await client.connect();
      await client.query('CREATE TABLE kept (v text)');
      await client.query("INSERT INTO kept VALUES ('still here')");
      await client.end();
      await first.stop();

      const second = await startEmbeddedPostgres({ dataDir, logger: silent });
      running.push(second);
      expect(await readlink(link)).toBe(cluster);
      const again = new pg.Client({ connectionString: second.url });
      await again.connect();
      expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: 'still here' }]);
      await again.end();
      await second.stop();
    } finally {
      await rm(dirname(cluster), { recursive: true, force: true });
    }
  });

  it.skipIf(process.getuid?.() !== 0)('runs binaries the postgres user cannot reach from a root-owned copy it can', async () => {
    // The platform package, as installed in a checkout under a 0700 directory.
    const installed = await loadPostgresBinaries();
    const pkg = join(await privateDir('private-bin'), 'pkg');
    await cp(resolve(dirname(installed.postgres), '..', '..'), pkg, { recursive: true, verbatimSymlinks: true });
    const blocked = { postgres: join(pkg, 'native', 'bin', 'postgres'), initdb: join(pkg, 'native', 'bin', 'initdb') };

    const staged = await reachableBinaries(blocked, (await postgresUser())!, silent);
    expect(staged.postgres.startsWith(pkg)).toBe(false);
    expect((await stat(dirname(staged.postgres))).uid).toBe(0);

    const dataDir = dir('staged-binaries');
    const instance = await startEmbeddedPostgres({ dataDir, logger: silent, binaries: blocked });
    running.push(instance);
    const client = new pg.Client({ connectionString: instance.url });
    await client.connect();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
    await instance.stop();
  });
});
