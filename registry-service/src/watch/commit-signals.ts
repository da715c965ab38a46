import type pg from 'pg';
import type { Logger } from 'pino';
import { pgErrorFields } from '../db/pool.js';
import { listenForCommits, notifyCommits } from '../db/queries/commit-notify.js';
import type { CommitHorizon } from './commit-horizon.js';

/** How often at most a replica tells the others it committed (one tiny transaction each). */
const NOTIFY_GAP_MS = 25;
/** Wait before listening again after the listening session failed. */
const RELISTEN_MS = 1000;

/**
 * Wakes watchers soon after a commit: at once in the writing process, and through LISTEN/NOTIFY in
 * the other replicas (which also poll every fallbackPollMs, in case a notification is missed).
 */
interface CommitSignals {
  /** A write of this process committed. */
  committed(): void;
  /** Listens for other replicas' commits from now on (idempotent); each notification nudges the horizon. */
  listen(): void;
  close(): Promise<void>;
}

export function createCommitSignals(options: { pool: pg.Pool; horizon: CommitHorizon; logger: Logger }): CommitSignals {
  const { pool, horizon, logger } = options;
  let notifyTimer: NodeJS.Timeout | undefined;
  let listening: pg.PoolClient | undefined;
  let wantListen = false;
  let closed = false;
  let relisten: NodeJS.Timeout | undefined;
  // A session is given back once: its connection may still report an error after that (the server
  // terminating it, or the socket closing, during a shutdown or a dropped database), and a second
  // release throws.
  const released = new WeakSet<pg.PoolClient>();
  const release = (session: pg.PoolClient, err: Error | boolean) => {
    if (released.has(session)) return;
    released.add(session);
    session.release(err);
  };

  async function startListening(): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const session = client;
      session.on('error', (err) => {
        if (released.has(session)) return;
        logger.warn({ error: pgErrorFields(err) }, 'watch: the LISTEN session failed; listening again shortly');
        if (listening === session) listening = undefined;
        release(session, err);
        if (!closed) relisten = setTimeout(() => void startListening(), RELISTEN_MS);
      });
      await listenForCommits(session, () => horizon.nudge());
      if (closed) {
        release(session, true);
        return;
      }
      listening = session;
    } catch (err) {
      if (client) release(client, true);
      logger.warn({ error: pgErrorFields(err) }, 'watch: could not LISTEN for other replicas\' commits; polling meanwhile');
      if (!closed) relisten = setTimeout(() => void startListening(), RELISTEN_MS);
    }
  }

  return {
    committed() {
      horizon.nudge();
      if (notifyTimer || closed) return;
      notifyTimer = setTimeout(() => {
        notifyCommits(pool)
          .catch((err: unknown) => logger.debug({ error: pgErrorFields(err) }, 'watch: NOTIFY failed; other replicas poll'))
          .finally(() => (notifyTimer = undefined));
      }, NOTIFY_GAP_MS);
    },
    listen() {
      if (wantListen || closed) return;
      wantListen = true;
      void startListening();
    },
    async close() {
      closed = true;
      clearTimeout(relisten);
      clearTimeout(notifyTimer);
      const session = listening;
      listening = undefined;
      if (session) {
        await session.query('UNLISTEN *').catch(() => undefined);
        release(session, true);
      }
    },
  };
}
