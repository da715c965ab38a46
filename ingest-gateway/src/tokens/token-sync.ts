import type { Logger } from '@dynamic-events/proto/runtime';
import type { TokenClient } from '../clients/tokens.js';
import type { Metrics } from '../metrics.js';
import type { TokenState } from './token-model.js';

/** A token's use is reported to the registry at most this often (its last_used_at). */
const USE_REPORT_INTERVAL_MS = 60_000;

/** The token state as the authenticator sees it. */
export interface TokenSource {
  /** The latest state; undefined until the registry first answered. */
  current(): TokenState | undefined;
  /** Notes that a token authenticated a request (cheap: reported at most once a minute). */
  used(id: string): void;
}

/** The gateway's copy of the registry's tokens, refreshed in the background. */
interface TokenSync extends TokenSource {
  /** Resolves at the first successful sync; polling goes on until stop(). */
  start(): Promise<void>;
  stop(): void;
}

/**
 * Polls SyncTokens every `intervalMs`: the registry answers "unchanged" in one cheap query unless a
 * token or the settings changed, so revocation reaches every replica within one interval plus a
 * call (README, Tokens: ≤ 5 s is the promise, 1 s the default interval). While the registry is
 * unreachable the last state stays in force (and nothing can be recorded meanwhile anyway); the
 * snapshot-age gauge shows how stale it is. Uses are batched into the next sync.
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

  async function syncOnce(): Promise<void> {
    const used = [...pending];
    pending = new Set();
    try {
      const next = await client.sync(state?.version ?? '0', used, Math.max(intervalMs, 2000));
      if (next) state = next;
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
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => void syncOnce().finally(schedule), intervalMs);
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
        void syncOnce().finally(schedule);
      }
      return firstSync.promise;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
