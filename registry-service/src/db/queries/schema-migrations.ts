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
  /** First line `-- migrate: no-transaction`: statements run one by one outside a transaction (CREATE INDEX CONCURRENTLY). */
  noTransaction?: boolean;
}

interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

/** How often a replica waiting for another one's migrations tries the lock again. */
const LOCK_RETRY_MS = 200;

/**
 * Prepares a dedicated session for migrating: no statement timeout (a migration may legitimately
 * outlast the pool's limit), then the session advisory lock every replica queues on. Waiting is a
 * loop of try-locks, not one blocking pg_advisory_lock: a statement blocked inside the database
 * holds a snapshot, and CREATE INDEX CONCURRENTLY in the lock holder's migration waits for every
 * older snapshot to end, which would be a deadlock.
 */
export async function lockForMigrations(client: pg.PoolClient): Promise<void> {
  await client.query('SET statement_timeout = 0');
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [ADVISORY_LOCK_KEY]);
    if (rows[0]?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
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

/**
 * Splits a no-transaction migration into its statements: one per `;` at the end of a line (such
 * files hold simple DDL only, no function bodies). Comment lines are dropped.
 */
function statementsOf(sql: string): string[] {
  const code = sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
  return code
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

/**
 * Runs one migration and records it, in one transaction: applied completely or not at all. A
 * no-transaction migration runs statement by statement (each its own implicit transaction) and is
 * recorded after the last one; its statements must be safe to run again after an interruption.
 */
export async function applyMigration(client: pg.PoolClient, migration: MigrationFile): Promise<void> {
  if (migration.noTransaction) {
    for (const statement of statementsOf(migration.sql)) await client.query(statement);
    await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, migration.checksum]);
    return;
  }
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
