import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';
import type { Logger } from 'pino';
import {
  applyMigration,
  appliedMigrations,
  ensureMigrationsTable,
  lockForMigrations,
  unlockMigrations,
  type MigrationFile,
} from './queries/schema-migrations.js';

/** The numbered SQL files, outside src so the same URL works from src/db and dist/db. */
export const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);

const FILE_NAME = /^(\d{4,})_([a-z0-9_]+)\.sql$/;

/**
 * Shipped migrations whose text changed, by version: a database that applied the earlier text
 * (`applied`) starts with this file only while the file is exactly `file`; any other change is
 * refused as before. 0014's first text rebuilt every count in its own transaction (minutes on a
 * large database, the whole cluster's commit horizon held); the file now leaves that to the
 * backfill of 0016, which reads the earlier checksum from schema_migrations: those counts are
 * complete.
 */
const REWRITTEN: ReadonlyMap<number, { applied: string; file: string }> = new Map([
  [14, { applied: '66b3f7bf9e868b2a7e99ef78d6253ac8d2ee15801c78b0e1216272fd15e281f5', file: 'da7ebbbd952f1f1b461979b0c84e0d09df8b2d1514b0c0fcee46048ec9897b2e' }],
]);

/** Whether a database that recorded `applied` for this migration has it as this build's file says. */
function appliedAsShipped(migration: MigrationFile, applied: string): boolean {
  const rewritten = REWRITTEN.get(migration.version);
  return applied === migration.checksum || (rewritten?.applied === applied && rewritten.file === migration.checksum);
}

/** Reads `NNNN_name.sql` files in version order; a duplicate version is a packaging error. */
export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const migrations: MigrationFile[] = [];
  for (const file of await readdir(dir)) {
    const match = FILE_NAME.exec(file);
    if (!match) continue;
    const sql = await readFile(new URL(file, dir), 'utf8');
    const noTransaction = /^-- migrate: no-transaction\s*$/m.test(sql.split('\n', 1)[0] ?? '');
    migrations.push({ version: Number(match[1]), name: file, sql, checksum: createHash('sha256').update(sql).digest('hex'), noTransaction });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) throw new Error(`duplicate migration version in ${migrations[i]?.name}`);
  }
  return migrations;
}

/**
 * Applies pending migrations in order, each in its own transaction, under a session advisory lock:
 * replicas starting at once queue on the lock and then find nothing left to do. Exported for the
 * migration job (`node dist/main.js --migrate-only`). Resolves with the versions it applied.
 */
export async function runMigrations(pool: pg.Pool, logger: Logger, dir: URL = MIGRATIONS_DIR): Promise<number[]> {
  const migrations = await loadMigrations(dir);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await lockForMigrations(client);
    try {
      return await applyPending(client, migrations, logger);
    } finally {
      // The session is destroyed below anyway, which also frees the lock if this unlock fails.
      await unlockMigrations(client).catch(() => undefined);
    }
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    // Destroy the session: its settings must not leak into the pool (and a broken one must go).
    client.release(broken ?? true);
  }
}

/** Migrations this build has that the database has not applied (for MIGRATIONS=skip: is the job done?). */
export async function pendingMigrations(pool: pg.Pool, dir: URL = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await loadMigrations(dir);
  const applied = new Set((await appliedMigrations(pool)).map((row) => row.version));
  return migrations.filter((m) => !applied.has(m.version)).map((m) => m.name);
}

async function applyPending(client: pg.PoolClient, migrations: MigrationFile[], logger: Logger): Promise<number[]> {
  await ensureMigrationsTable(client);
  const rows = await appliedMigrations(client);
  const applied = new Map(rows.map((row) => [row.version, row]));
  for (const migration of migrations) {
    const row = applied.get(migration.version);
    if (row && !appliedAsShipped(migration, row.checksum)) {
      throw new Error(`migration ${migration.name} changed after it was applied (as ${row.name}); add a new migration instead`);
    }
  }
  const known = new Set(migrations.map((m) => m.version));
  const unknown = rows.filter((row) => !known.has(row.version)).map((row) => row.name);
  if (unknown.length > 0) logger.warn({ unknown }, 'database has migrations this build does not know (newer release?)');

  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    const started = Date.now();
    try {
      await applyMigration(client, migration);
    } catch (err) {
      throw new Error(`migration ${migration.name} failed`, { cause: err });
    }
    logger.info({ migration: migration.name, ms: Date.now() - started }, 'migration applied');
    done.push(migration.version);
  }
  return done;
}
