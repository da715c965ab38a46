import pg from 'pg';
import type { Logger } from 'pino';

/** Anything that runs a query: the pool itself or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

export interface PoolOptions {
  connectionString: string;
  max: number;
  logger: Logger;
  /** How long a request waits for a connection before failing (no request may hang on a dead database). */
  connectionTimeoutMs?: number;
}

/** A pg pool that fails fast when the database is unreachable and never crashes on idle-client errors. */
export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    // Bounds a stuck statement or a transaction left open by a bug; generous next to real queries.
    statement_timeout: 30_000,
    idle_in_transaction_session_timeout: 60_000,
    application_name: 'registry-service',
  });
  // An idle client whose server connection dies emits here; without a listener the process would exit.
  pool.on('error', (err) => options.logger.warn({ err }, 'idle database connection failed'));
  return pool;
}

/**
 * Runs `fn` in one transaction and resolves only after COMMIT succeeded (a caller's success means
 * the data is durable). Any failure rolls back; a client whose rollback fails is discarded.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
