import type pg from 'pg';
import type { Logger } from 'pino';
import { pgErrorFields } from '../db/pool.js';
import { lastCommitSeq, pollHorizon } from '../db/queries/commit-log.js';
import { pollHorizonWithTail, type CommitTail } from '../db/queries/commit-tail.js';
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
  /**
   * From now on each poll also reads the commits that became readable (up to `limit` commits and
   * about `maxBytes` of events, as a page, with their events) and hands them to `onTail` before
   * waking waiters: the feed serves its followers from them without reading again.
   */
  readTails(page: { limit: number; maxBytes: number }, onTail: (tail: CommitTail) => void): void;
  close(): void;
}

interface CommitHorizonOptions {
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

/** Pending numbers beyond this (a long transaction holds the horizon) poll without the tail: the list travels with each poll. */
const MAX_PENDING_WITH_TAIL = 64;

/**
 * The poller behind createCommitHorizon: a class because it holds the poll state (pending numbers,
 * waiters, timers) that every method shares.
 */
class HorizonPoller implements CommitHorizon {
  private readonly pending: Pending[] = [];
  private readonly waiters = new Set<{ seq: bigint; wake: () => void }>();
  private readonly fallbackPollMs: number;
  private readonly minGapMs: number;
  private current = 0n;
  private followers = 0;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private fallback: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private lastPoll = 0;
  private retries = 0;
  // Polls in a row that left the oldest pending number unresolved (a long transaction): back off.
  private stalls = 0;
  private lastWarned = 0;
  private tails: { limit: number; maxBytes: number; onTail: (tail: CommitTail) => void } | undefined;

  constructor(private readonly options: CommitHorizonOptions) {
    this.fallbackPollMs = options.fallbackPollMs ?? 500;
    this.minGapMs = options.minPollGapMs ?? 15;
  }

  get bound(): bigint {
    return this.current;
  }

  nudge(): void {
    if (this.followers === 0 || this.closed) return;
    if (this.running) this.again = true;
    else this.schedule(Math.max(0, this.lastPoll + this.minGapMs - Date.now()));
  }

  async refresh(maxWaitMs: number): Promise<bigint> {
    const target = await lastCommitSeq(this.options.pool);
    const deadline = Date.now() + maxWaitMs;
    for (let attempt = 0; this.current < target && !this.closed && Date.now() < deadline; attempt++) {
      await this.poll();
      if (this.current < target) await new Promise((resolve) => setTimeout(resolve, Math.min(this.minGapMs * 2 ** attempt, 250)));
    }
    return this.current;
  }

  waitPast(seq: bigint, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (seq < this.current || signal.aborted || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { seq, wake: () => done() };
      const timeout = setTimeout(() => done(), timeoutMs);
      const done = () => {
        clearTimeout(timeout);
        this.waiters.delete(waiter);
        signal.removeEventListener('abort', waiter.wake);
        resolve();
      };
      this.waiters.add(waiter);
      signal.addEventListener('abort', waiter.wake, { once: true });
    });
  }

  follow(): () => void {
    this.followers++;
    this.fallback ??= setInterval(() => void this.poll(), this.fallbackPollMs);
    let followed = true;
    return () => {
      if (!followed) return;
      followed = false;
      this.followers--;
      if (this.followers === 0) {
        clearInterval(this.fallback);
        this.fallback = undefined;
      }
    };
  }

  readTails(page: { limit: number; maxBytes: number }, onTail: (tail: CommitTail) => void): void {
    this.tails = { ...page, onTail };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.fallback);
    for (const waiter of this.waiters) waiter.wake();
  }

  private async pollOnce(): Promise<void> {
    const { pending } = this;
    const known = pending[pending.length - 1]?.n ?? this.current;
    const before = this.current;
    const { tails } = this;
    const withTail = tails !== undefined && pending.length <= MAX_PENDING_WITH_TAIL;
    const { pool } = this.options;
    const from = known > before ? known : before;
    const { n, xmin, xid, tail } = withTail ? await pollHorizonWithTail(pool, from, before, pending, tails.limit, tails.maxBytes) : { ...(await pollHorizon(pool, from)), tail: undefined };
    // Our own ids grow with every poll, so the finished ones are a prefix.
    let done = 0;
    while (done < pending.length && (pending[done]?.xid ?? xmin) < xmin) done++;
    this.stalls = done === 0 && pending.length > 0 ? this.stalls + 1 : 0;
    const last = pending[done - 1];
    if (last && last.n > this.current) this.current = last.n;
    pending.splice(0, done);
    if (xid !== undefined) pending.push({ n, xid, since: Date.now() });
    this.reportLag();
    // The statement resolved the same prefix from the same xmin; a page from another starting bound is not this step's.
    if (tails && tail && this.current > before && tail.through === this.current) tails.onTail(tail);
    for (const waiter of this.waiters) if (waiter.seq < this.current) waiter.wake();
  }

  /** The age of the oldest unfinished writer, as a metric and, past 5 s, a warning at most once a minute. */
  private reportLag(): void {
    const oldest = this.pending[0];
    const lagSeconds = oldest ? (Date.now() - oldest.since) / 1000 : 0;
    this.options.metrics.watchHorizonLagSeconds.set(lagSeconds);
    if (lagSeconds > 5 && Date.now() - this.lastWarned > 60_000) {
      this.lastWarned = Date.now();
      this.options.logger.warn({ lagSeconds }, 'watch: a long-running transaction in the database holds back what watchers receive');
    }
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, delayMs);
  }

  private poll(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.lastPoll = Date.now();
    this.running = this.pollOnce()
      .then(() => {
        this.retries = 0;
      })
      .catch((err: unknown) => {
        this.retries++;
        this.options.logger.warn({ error: pgErrorFields(err) }, 'watch: reading the commit horizon failed; retrying');
      })
      .finally(() => {
        this.running = undefined;
        // Unfinished writers: look again soon, backing off while a long transaction holds them.
        if (this.again || this.pending.length > 0 || this.retries > 0) {
          this.again = false;
          this.schedule(Math.min(this.minGapMs * 2 ** Math.min(this.retries + this.stalls, 5), 250));
        }
      });
    return this.running;
  }
}

export function createCommitHorizon(options: CommitHorizonOptions): CommitHorizon {
  return new HorizonPoller(options);
}
