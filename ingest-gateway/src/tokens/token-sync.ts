import type { Logger } from '@dynamic-events/proto/runtime';
import type { TokenClient } from '../clients/tokens.js';
import type { Metrics } from '../metrics.js';
import type { TokenState } from './token-model.js';

/** A token's use is reported to the registry at most this often (its last_used_at). */
export const USE_REPORT_INTERVAL_MS = 60_000;

/** The token state as the authenticator sees it. */
export interface TokenSource {
  /** The latest state; undefined until the registry first answered. */
  current(): TokenState | undefined;
  /** Notes that a token authenticated a request (cheap: reported at most once a minute). */
  used(id: string): void;
  /** Calls `listener` with every new state (a token created, changed or revoked, the setting switched); answers its removal. */
  onChange(listener: (state: TokenState) => void): () => void;
  /**
   * Asks the registry now, after any sync in flight (whose answer may predate the caller's change),
   * and resolves once that answer is applied, or failed (the interval's syncs go on retrying).
   */
  refresh(): Promise<void>;
}

/** The gateway's copy of the registry's tokens, refreshed in the background. */
interface TokenSync extends TokenSource {
  /** Resolves at the first successful sync; polling goes on until stop(). */
  start(): Promise<void>;
  stop(): void;
}

/**
 * Runs `run` one call at a time: a call while one runs waits for it and then starts one more,
 * shared by every call that arrived meanwhile (so its outcome postdates each of them).
 */
function oneAtATime(run: () => Promise<void>): () => Promise<void> {
  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const next = (): Promise<void> => {
    if (inFlight === undefined) {
      inFlight = run().finally(() => (inFlight = undefined));
      return inFlight;
    }
    queued ??= inFlight.then(() => {
      queued = undefined;
      return next();
    });
    return queued;
  };
  return next;
}

/**
 * Polls SyncTokens every `intervalMs`: the registry answers "unchanged" in one cheap query unless a
 * token or the settings changed, so revocation reaches every replica within one interval plus a
 * call (registry-service/README.md, "How gateways check tokens": ≤ 5 s is the promise, 1 s the
 * default interval). While the registry is unreachable the last state stays in force (and nothing can be recorded meanwhile anyway); the
 * snapshot-age gauge shows how stale it is. Uses are batched into the next sync. An admin change
 * served by this gateway calls refresh(), so it is in force here before the change is answered. One
 * sync at a time: an older answer can never replace a newer one.
 */
export function createTokenSync(deps: { client: TokenClient; intervalMs: number; logger: Logger; metrics: Metrics }): TokenSync {
  const { client, intervalMs, logger, metrics } = deps;
  let state: TokenState | undefined;
  let confirmedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;
  const reportedAt = new Map<string, number>();
  let pending = new Set<string>();
  let firstSync: { resolve: () => void; promise: Promise<void> } | undefined;
  const listeners = new Set<(state: TokenState) => void>();
  const syncSoon = oneAtATime(syncOnce);

  async function syncOnce(): Promise<void> {
    const used = [...pending];
    pending = new Set();
    let changed: TokenState | undefined;
    try {
      const next = await client.sync(state?.version ?? '0', used, Math.max(intervalMs, 2000));
      if (next) state = next;
      changed = next;
      confirmedAt = Date.now();
      metrics.tokenSyncs.inc({ result: next ? 'changed' : 'unchanged' });
      if (failing) logger.info('token snapshot refreshed again');
      failing = false;
      firstSync?.resolve();
    } catch (err) {
      for (const id of used) pending.add(id);
      metrics.tokenSyncs.inc({ result: 'failed' });
      // Once per outage, not once a second.
      if (!failing) logger.warn({ err }, 'token snapshot refresh failed: the last state stays in force');
      failing = true;
    }
    if (confirmedAt > 0) metrics.tokenSnapshotAge.set((Date.now() - confirmedAt) / 1000);
    if (changed) for (const listener of listeners) listener(changed);
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => void syncSoon().finally(schedule), intervalMs);
    timer.unref();
  }

  return {
    current: () => state,
    used(id) {
      const now = Date.now();
      const last = reportedAt.get(id);
      if (last !== undefined && now - last < USE_REPORT_INTERVAL_MS) return;
      reportedAt.set(id, now);
      pending.add(id);
    },
    start() {
      if (!firstSync) {
        let resolve = () => {};
        const promise = new Promise<void>((r) => (resolve = r));
        firstSync = { resolve, promise };
        void syncSoon().finally(schedule);
      }
      return firstSync.promise;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh: syncSoon,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
