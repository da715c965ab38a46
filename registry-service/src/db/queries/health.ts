import type { Queryable } from '../pool.js';

/** The cheapest round trip that proves the database answers. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
