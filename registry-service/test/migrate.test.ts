/** Migrations on a real PostgreSQL database: fresh, repeated, and from several replicas at once. */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, MIGRATIONS_DIR, pendingMigrations, runMigrations } from '../src/db/migrate.js';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { silent, testPool } from './helpers.js';

const up = await postgresAvailable();

async function tables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  return rows.map((r) => r.t);
}

// Every database, pool and scratch directory a test makes is removed after the file.
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
  const pool = testPool(url, 2);
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

describe.skipIf(!up)('migrations', () => {
  it('applies every migration to a fresh database, then nothing the second time', async () => {
    const pool = poolFor((await fresh()).url);
    expect(expected[0]).toBe(1);
    expect(await pendingMigrations(pool)).toEqual([
      '0001_init.sql',
      '0002_object_identity.sql',
      '0003_idempotency_keys.sql',
      '0004_watch_commit_log.sql',
      '0005_list_indexes.sql',
      '0006_events_parent_keys.sql',
      '0007_tokens.sql',
      '0008_token_attribution.sql',
      '0009_events_token_index.sql',
      '0010_devices_creator_index.sql',
      '0011_commit_log_event_bytes.sql',
      '0012_webhooks.sql',
      '0013_events_occurred_at.sql',
      ...['0014_event_counts.sql', '0015_name_search.sql', '0017_counts_covering.sql'],
    ]);
    expect(await runMigrations(pool, silent)).toEqual(expected);
    expect(await pendingMigrations(pool)).toEqual([]);
    expect(await tables(pool)).toEqual([
      'auth_settings',
      'commit_log',
      'commit_log_state',
      ...['devices', 'event_counts', 'event_rollup_state', 'event_type_counts'],
      'event_types',
      'events',
      'idempotency_keys',
      'objects',
      'schema_migrations',
      'tokens',
      ...['webhook_attempts', 'webhook_deliveries', 'webhooks'],
    ]);
    // 0007: the single settings row every token change bumps.
    expect((await pool.query('SELECT require_token, version::int FROM auth_settings')).rows).toEqual([{ require_token: false, version: 1 }]);
    // 0005 builds its indexes CONCURRENTLY, outside a transaction: all there and valid.
    const { rows: indexes } = await pool.query<{ name: string; valid: boolean }>(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE c.relname IN ('events_created_at_id_idx', 'events_domain_created_at_idx', 'objects_object_domain_id_idx', 'events_token_id_created_at_idx') ORDER BY 1`,
    );
    expect(indexes).toEqual([
      { name: 'events_created_at_id_idx', valid: true },
      { name: 'events_domain_created_at_idx', valid: true },
      { name: 'events_token_id_created_at_idx', valid: true },
      { name: 'objects_object_domain_id_idx', valid: true },
    ]);
    // 0008: who sent or created what.
    const { rows: tokenColumns } = await pool.query<{ name: string }>(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
       WHERE column_name IN ('token_id', 'created_by_token_id', 'devices_created', 'objects_created') ORDER BY 1`,
    );
    expect(tokenColumns.map((c) => c.name)).toEqual([
      'devices.created_by_token_id',
      'event_types.created_by_token_id',
      'events.token_id',
      'objects.created_by_token_id',
      'tokens.devices_created',
      'tokens.objects_created',
    ]);
    // 0006: events keep only the object identity key (the parents are written by the same statement).
    const { rows: keys } = await pool.query<{ name: string }>(
      `SELECT conname AS name FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype = 'f' ORDER BY 1`,
    );
    expect(keys.map((k) => k.name)).toEqual(['events_object_identity_fkey']);
    expect(await runMigrations(pool, silent)).toEqual([]);
    const { rows } = await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(expected);
  });

  it('is safe when several replicas start at once: each migration applied exactly once', async () => {
    const { url } = await fresh();
    const replicas = Array.from({ length: 6 }, () => poolFor(url));
    const results = await Promise.all(replicas.map((pool) => runMigrations(pool, silent)));
    expect(results.flat().sort((x, y) => x - y)).toEqual(expected);
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    expect(await tables(replicas[0]!)).toContain('events');
  });
});

describe.skipIf(!up)('migrations: later, failing and no-transaction files', () => {
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

  it('runs a no-transaction migration statement by statement, and again after an interruption (no invalid index left)', async () => {
    const pool = poolFor((await fresh()).url);
    const dir = await scratchDir();
    await writeFile(join(dir, '0001_t.sql'), 'CREATE TABLE t (x int); INSERT INTO t VALUES (1), (1);');
    // Fails on a duplicate after the first index was built: the file is not recorded, the build is kept.
    const body = ['-- migrate: no-transaction', 'DROP INDEX CONCURRENTLY IF EXISTS t_x_idx;', 'CREATE INDEX CONCURRENTLY t_x_idx ON t (x);'];
    await writeFile(join(dir, '0002_idx.sql'), [...body, 'CREATE UNIQUE INDEX CONCURRENTLY t_u_idx ON t (x);', ''].join('\n'));
    const dirUrl = pathToFileURL(`${dir}/`);
    await expect(runMigrations(pool, silent, dirUrl)).rejects.toThrow(/0002_idx\.sql failed/);
    const invalid = await pool.query(`SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 't_u_idx' AND NOT i.indisvalid`);
    expect(invalid.rowCount).toBe(1);
    // Fixed (the unique index dropped first, as shipped files do), it applies and leaves valid indexes only.
    await pool.query('DELETE FROM t WHERE ctid <> (SELECT min(ctid) FROM t)');
    await writeFile(join(dir, '0002_idx.sql'), [...body, 'DROP INDEX CONCURRENTLY IF EXISTS t_u_idx;', 'CREATE UNIQUE INDEX CONCURRENTLY t_u_idx ON t (x);', ''].join('\n'));
    expect(await runMigrations(pool, silent, dirUrl)).toEqual([2]);
    const { rows } = await pool.query<{ name: string; valid: boolean }>(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 't\\_%' ORDER BY 1`,
    );
    expect(rows).toEqual([
      { name: 't_u_idx', valid: true },
      { name: 't_x_idx', valid: true },
    ]);
  });
});
