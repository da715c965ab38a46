import type pg from 'pg';

/** Creates the database if the cluster does not have it yet (embedded Postgres, first start). */
export async function ensureDatabaseExists(client: pg.Client, database: string): Promise<void> {
  const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  // CREATE DATABASE takes no parameters: the name is quoted as an identifier instead.
  if (rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
}
