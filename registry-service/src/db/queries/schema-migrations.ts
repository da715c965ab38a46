import type pg from 'pg';
import type { Queryable } from '../pool.js';

/** Any fixed 64-bit number works; all replicas must agree on it. */
const ADVISORY_LOCK_KEY = '7215430911942376001';

/** A migration file as the migrator loaded it. */
export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Prepares a dedicated session for migrating: no statement timeout (a migration may legitimately
 * outlast the pool's limit), then the session advisory lock every replica queues on.
 */
export async function lockForMigrations(client: pg.PoolClient): Promise<void> {
  await client.query('SET statement_timeout = 0');
  await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY]);
}

export async function unlockMigrations(client: pg.PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]);
}

export async function ensureMigrationsTable(db: Queryable): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
}

/** Applied migrations in version order; none when the bookkeeping table does not exist yet. */
export async function appliedMigrations(db: Queryable): Promise<AppliedMigration[]> {
  try {
    const { rows } = await db.query<AppliedMigration>('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
    return rows;
  } catch (err) {
    // 42P01: no schema_migrations table yet, so nothing is applied.
    if ((err as { code?: string }).code === '42P01') return [];
    throw err;
  }
}

/** Runs one migration and records it, in one transaction: applied completely or not at all. */
export async function applyMigration(client: pg.PoolClient, migration: MigrationFile): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      migration.checksum,
    ]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
