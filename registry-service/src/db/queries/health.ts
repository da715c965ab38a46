import type { Queryable } from '../pool.js';

/**
 * The cheapest round trip that proves the database answers, and which run of the server answered:
 * the postmaster's start time, which changes when the server restarts (connections opened on an
 * earlier run are dead, whether or not their sockets say so).
 */
export async function serverStarted(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ started: string }>('SELECT pg_postmaster_start_time()::text AS started');
  return rows[0]?.started ?? '';
}
