import type pg from 'pg';
import type { Logger } from 'pino';
import { serverStarted } from './queries/health.js';

/** A pool's connections, each tagged with the run of the server it was opened on. */
export interface ServerRuns {
  /** The server answered from the run started at `started`: connections opened on another run are cut. */
  observed(started: string): void;
  /**
   * The pool's onConnect hook: tags a new connection before the pool hands it out, so the tag's
   * query never runs beside its first caller's (pg queues a second query on a busy client, a use
   * it deprecates). A connection that does not answer within TAG_TIMEOUT_MS is cut, and its
   * caller gets the outage.
   */
  connected(client: pg.ClientBase): Promise<void>;
  /** The pool dropped the connection. */
  removed(client: pg.ClientBase): void;
}

/**
 * How long a new connection may take to say which server run it reached: as long as a caller waits
 * for a connection (pool.ts), so only a connection that is dead, not one that is slow, is cut.
 */
const TAG_TIMEOUT_MS = 5000;

/**
 * Ends a connection at once by destroying its socket: its queries fail (an outage, UNAVAILABLE) and
 * the pool drops it. `end()` would not do: it waits for the server's goodbye, which a vanished host
 * never sends.
 */
export function cutConnection(client: pg.ClientBase): void {
  // A connection in use reports the cut as an 'error' event besides failing its query, which carries the outage.
  client.on('error', () => undefined);
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * Tags each new connection (`connected`, the pool's onConnect) with the server run it reached.
 * A server killed on its own host closes its connections, and the pool learns it; one whose host
 * vanished (power loss, a network cut, a pod rescheduled elsewhere on the same address) leaves them
 * open and silent: a query on one waits for TCP to give up, many minutes, holding a pool slot, so
 * the pool stays full of dead connections long after the database is back. When a connection (the
 * health check's, every 500 ms) reaches a new run, every connection of an earlier run is cut.
 */
export function createServerRuns(logger: Logger): ServerRuns {
  const runs = new Map<pg.ClientBase, string>();
  const removed = new WeakSet<pg.ClientBase>();
  let current: string | undefined;

  function observed(started: string): void {
    if (started === current) return;
    current = started;
    let stale = 0;
    for (const [client, run] of runs) {
      if (run === started) continue;
      runs.delete(client);
      cutConnection(client);
      stale++;
    }
    if (stale > 0) logger.warn({ connections: stale }, 'the database server restarted: connections to its previous run cut');
  }

  return {
    observed,
    async connected(client) {
      const timer = setTimeout(() => cutConnection(client), TAG_TIMEOUT_MS);
      try {
        // A cut connection fails this query with pg's lost-connection error: the caller's outage.
        const started = await serverStarted(client);
        if (removed.has(client)) return;
        runs.set(client, started);
        observed(started);
      } finally {
        clearTimeout(timer);
      }
    },
    removed(client) {
      removed.add(client);
      runs.delete(client);
    },
  };
}
