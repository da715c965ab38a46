import type pg from 'pg';
import type { Queryable } from '../pool.js';

/**
 * Runs `work` on one connection inside BEGIN … COMMIT, for the few changes that need a lock taken
 * by one statement to hold over the next (each statement of a READ COMMITTED transaction reads a
 * new snapshot, taken after the locks before it were granted). On failure it rolls back; a
 * connection whose ROLLBACK failed is discarded, not handed to the next caller. `begin` may ask
 * for another isolation (SNAPSHOT_READ: several reads of one snapshot).
 */
/** Reads that must agree with each other: one snapshot, no writes. */
export const SNAPSHOT_READ = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

export async function inTransaction<T>(pool: pg.Pool, work: (client: Queryable) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError as Error));
    throw err;
  } finally {
    client.release(broken);
  }
}
