/** Migrations on a real PostgreSQL database: fresh, repeated, and from several replicas at once. */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, MIGRATIONS_DIR, pendingMigrations, runMigrations } from '../src/db/migrate.js';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { silent } from './helpers.js';

const up = await postgresAvailable();

async function tables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  return rows.map((r) => r.t);
}

describe.skipIf(!up)('migrations', () => {
  const dbs: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  const pools: pg.Pool[] = [];
  const fresh = async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    return db;
  };
  const scratch: string[] = [];
  const scratchDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    scratch.push(dir);
    return dir;
  };
  const poolFor = (url: string) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pools.push(pool);
    return pool;
  };

  let expected: number[];
  beforeAll(async () => {
    expected = (await loadMigrations()).map((m) => m.version);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    for (const db of dbs) await db.drop();
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  it('applies every migration to a fresh database, then nothing the second time', async () => {
    const pool = poolFor((await fresh()).url);
    expect(expected[0]).toBe(1);
    expect(await pendingMigrations(pool)).toEqual((await loadMigrations()).map((m) => m.name));
    expect(await runMigrations(pool, silent)).toEqual(expected);
    expect(await pendingMigrations(pool)).toEqual([]);
    expect(await tables(pool)).toEqual(['commit_log', 'commit_sequence', 'devices', 'event_types', 'events', 'objects', 'schema_migrations']);
    expect(await runMigrations(pool, silent)).toEqual([]);
    const { rows } = await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(expected);
  });

  it('is safe when several replicas start at once: each migration applied exactly once', async () => {
    const { url } = await fresh();
    const replicas = Array.from({ length: 6 }, () => poolFor(url));
    const results = await Promise.all(replicas.map((pool) => runMigrations(pool, silent)));
    expect(results.flat().sort()).toEqual(expected);
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    expect(await tables(replicas[0]!)).toContain('events');
  });

  it('applies a later migration in order and refuses one that changed after it was applied', async () => {
    const pool = poolFor((await fresh()).url);
    const dir = await scratchDir();
    const dirUrl = pathToFileURL(`${dir}/`);
    for (const m of await loadMigrations()) await copyFile(new URL(m.name, MIGRATIONS_DIR), join(dir, m.name));
    expect(await runMigrations(pool, silent, dirUrl)).toEqual(expected);

    const next = (expected.at(-1) ?? 0) + 1;
    const name = `${String(next).padStart(4, '0')}_add_note.sql`;
    await writeFile(join(dir, name), 'ALTER TABLE devices ADD COLUMN note text;');
    expect(await runMigrations(pool, silent, dirUrl)).toEqual([next]);
    await pool.query(`INSERT INTO devices (device_name, note) VALUES ('d', 'n')`);

    await writeFile(join(dir, name), 'ALTER TABLE devices ADD COLUMN other text;');
    await expect(runMigrations(pool, silent, dirUrl)).rejects.toThrow(/changed after it was applied/);
  });

  it('rolls back a failing migration completely and reports which one failed', async () => {
    const pool = poolFor((await fresh()).url);
    const dir = await scratchDir();
    await writeFile(join(dir, '0001_ok.sql'), 'CREATE TABLE a (x int);');
    await writeFile(join(dir, '0002_bad.sql'), 'CREATE TABLE b (x int); SELECT no_such_function();');
    await expect(runMigrations(pool, silent, pathToFileURL(`${dir}/`))).rejects.toThrow(/0002_bad\.sql failed/);
    expect(await tables(pool)).toEqual(['a', 'schema_migrations']);
  });
});
