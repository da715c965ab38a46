import type pg from 'pg';
import type { Queryable } from '../pool.js';

/** The channel writers notify after a commit and watchers' registries listen on. */
const COMMITS_CHANNEL = 'dynamic_events_commits';

/**
 * Tells every registry listening that commits happened. Its own small transaction, sent after the
 * writes committed: a NOTIFY inside the write statement would take Postgres' notification lock at
 * every commit and serialise them.
 */
export async function notifyCommits(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_notify('${COMMITS_CHANNEL}', '')`);
}

/** Starts listening on a dedicated session; `onNotify` runs for every notification. */
export async function listenForCommits(client: pg.PoolClient, onNotify: () => void): Promise<void> {
  client.on('notification', (message) => {
    if (message.channel === COMMITS_CHANNEL) onNotify();
  });
  await client.query(`LISTEN ${COMMITS_CHANNEL}`);
}
