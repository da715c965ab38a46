import type pg from 'pg';
import type { Logger } from 'pino';
import { pgErrorFields } from '../db/pool.js';
import { lastCommitSeq, pollHorizon } from '../db/queries/commit-log.js';
import type { Metrics } from '../metrics.js';

/**
 * How far watchers may read the commit log: a number `bound` such that every commit numbered up to
 * it has finished (committed and visible to any later statement, or rolled back) and no commit can
 * ever appear at or below it. The sequence alone does not give that: a writer takes its number just
 * before it commits, so number 11 may be visible while number 10 is still committing.
 *
 * Each poll reads the highest number handed out (`n`) and only then takes a transaction id `xid` of
 * its own: every writer holding a number up to `n` already had its transaction id, a smaller one.
 * Once the oldest transaction still running in the cluster is younger than `xid` (seen by a later
 * poll: one round trip each), all of them have finished, and `n` becomes the bound. This waits for transactions, never blocks one: writers pay
 * nothing. A long transaction anywhere in the cluster (a stuck session, a manual BEGIN that wrote
 * something) holds the bound back until it ends: registry_watch_horizon_lag_seconds shows it.
 */
export interface CommitHorizon {
  /** The current bound (0 until the first poll). */
  readonly bound: bigint;
  /** Asks for a poll soon: a commit in this process, or a notification from another replica. */
  nudge(): void;
  /**
   * Polls until every commit handed out before the call is within the bound, or `maxWaitMs` passed
   * (a long transaction holds it back); resolves with the bound.
   */
  refresh(maxWaitMs: number): Promise<bigint>;
  /** Resolves once the bound passed `seq`, after `timeoutMs`, when `signal` aborts, or at close(). */
  waitPast(seq: bigint, timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** Polling runs only while someone follows; returns the matching unfollow. */
  follow(): () => void;
  close(): void;
}

export interface CommitHorizonOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  /** Polls at least this often while followed (commits of replicas whose notification was missed). */
  fallbackPollMs?: number;
  /** Shortest gap between two polls (default 15 ms): bounds the cost under a stream of commits. */
  minPollGapMs?: number;
}

interface Pending {
  n: bigint;
  xid: bigint;
  since: number;
}

// The one function over 80 lines left in src (issue 10): its closures share a dozen variables of
// poll state; splitting it is a change to the watch path of its own, not part of the file split.
// eslint-disable-next-line max-lines-per-function
export function createCommitHorizon(options: CommitHorizonOptions): CommitHorizon {
  const { pool, logger, metrics } = options;
  const fallbackPollMs = options.fallbackPollMs ?? 500;
  const minGapMs = options.minPollGapMs ?? 15;
  const pending: Pending[] = [];
  const waiters = new Set<{ seq: bigint; wake: () => void }>();
  let bound = 0n;
  let followers = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let fallback: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let lastPoll = 0;
  let retries = 0;
  // Polls in a row that left the oldest pending number unresolved (a long transaction): back off.
  let stalls = 0;
  let lastWarned = 0;

  async function pollOnce(): Promise<void> {
    const known = pending[pending.length - 1]?.n ?? bound;
    const { n, xmin, xid } = await pollHorizon(pool, known > bound ? known : bound);
    // Our own ids grow with every poll, so the finished ones are a prefix.
    let done = 0;
    while (done < pending.length && (pending[done]?.xid ?? xmin) < xmin) done++;
    stalls = done === 0 && pending.length > 0 ? stalls + 1 : 0;
    const last = pending[done - 1];
    if (last && last.n > bound) bound = last.n;
    pending.splice(0, done);
    if (xid !== undefined) pending.push({ n, xid, since: Date.now() });
    const lagSeconds = pending[0] ? (Date.now() - pending[0].since) / 1000 : 0;
    metrics.watchHorizonLagSeconds.set(lagSeconds);
    if (lagSeconds > 5 && Date.now() - lastWarned > 60_000) {
      lastWarned = Date.now();
      logger.warn({ lagSeconds }, 'watch: a long-running transaction in the database holds back what watchers receive');
    }
    for (const waiter of waiters) if (waiter.seq < bound) waiter.wake();
  }

  function schedule(delayMs: number): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void poll();
    }, delayMs);
  }

  function poll(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    lastPoll = Date.now();
    running = pollOnce()
      .then(() => {
        retries = 0;
      })
      .catch((err: unknown) => {
        retries++;
        logger.warn({ error: pgErrorFields(err) }, 'watch: reading the commit horizon failed; retrying');
      })
      .finally(() => {
        running = undefined;
        // Unfinished writers: look again soon, backing off while a long transaction holds them.
        if (again || pending.length > 0 || retries > 0) {
          again = false;
          schedule(Math.min(minGapMs * 2 ** Math.min(retries + stalls, 5), 250));
        }
      });
    return running;
  }

  return {
    get bound() {
      return bound;
    },
    nudge() {
      if (followers === 0 || closed) return;
      if (running) again = true;
      else schedule(Math.max(0, lastPoll + minGapMs - Date.now()));
    },
    async refresh(maxWaitMs) {
      const target = await lastCommitSeq(pool);
      const deadline = Date.now() + maxWaitMs;
      for (let attempt = 0; bound < target && !closed && Date.now() < deadline; attempt++) {
        await poll();
        if (bound < target) await new Promise((resolve) => setTimeout(resolve, Math.min(minGapMs * 2 ** attempt, 250)));
      }
      return bound;
    },
    waitPast(seq, timeoutMs, signal) {
      if (seq < bound || signal.aborted || closed) return Promise.resolve();
      return new Promise((resolve) => {
        const waiter = { seq, wake: () => done() };
        const timeout = setTimeout(() => done(), timeoutMs);
        const done = () => {
          clearTimeout(timeout);
          waiters.delete(waiter);
          signal.removeEventListener('abort', waiter.wake);
          resolve();
        };
        waiters.add(waiter);
        signal.addEventListener('abort', waiter.wake, { once: true });
      });
    },
    follow() {
      followers++;
      fallback ??= setInterval(() => void poll(), fallbackPollMs);
      let followed = true;
      return () => {
        if (!followed) return;
        followed = false;
        followers--;
        if (followers === 0) {
          clearInterval(fallback);
          fallback = undefined;
        }
      };
    },
    close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(fallback);
      for (const waiter of waiters) waiter.wake();
    },
  };
}
