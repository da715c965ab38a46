import { AppError, type Logger } from '@dynamic-events/proto';
import type pg from 'pg';
import { eventTypeKey } from '../db/queries/event-types.js';
import { commitHead, commitsFrom, recordsOf, type LoggedCommit, type CommitRecords } from '../db/queries/commit-log.js';
import { toEventRecord } from './event-record.js';
import type { DeviceRecord, EventRecord, EventTypeRecord, ObjectRecord } from './types.js';

/** One thing a commit created, as a watcher receives it. */
export type Change =
  | { kind: 'device'; device: DeviceRecord }
  | { kind: 'object'; object: ObjectRecord }
  | { kind: 'event_type'; eventType: EventTypeRecord }
  | { kind: 'event'; event: EventRecord };

/** A commit with its changes at their positions (devices, objects, event types, events); a hole is a row retention removed. */
export interface FeedCommit {
  seq: bigint;
  changes: Array<Change | undefined>;
}

/**
 * The registry's view of the commit log, shared by all its watchers: one poll of the head for all
 * of them, and recently read commits cached, so watchers following the tail cost one read per
 * commit between them rather than one each.
 */
export interface CommitFeed {
  /** The latest commit number, read from the database. */
  head(): Promise<bigint>;
  /** Commits numbered from `fromSeq` on (one page); [] when there is none yet. FAILED_PRECONDITION when `fromSeq` was trimmed. */
  read(fromSeq: bigint): Promise<FeedCommit[]>;
  /** Resolves once a commit numbered `seq` or later exists, after `timeoutMs`, or when `signal` aborts. */
  waitFor(seq: bigint, timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** Aborted by close(): every watch ends (shutdown), its client resumes elsewhere. */
  readonly closed: AbortSignal;
  close(): void;
}

export interface CommitFeedOptions {
  pool: pg.Pool;
  logger: Logger;
  /** How often the head is polled while someone waits. */
  pollMs: number;
  /** Commits per read (bounds a watcher's memory: at most this many commits of up to 500 events). */
  pageCommits?: number;
  /** Commits kept for watchers near the tail. */
  cacheCommits?: number;
}

function toFeedCommit(commit: LoggedCommit, records: CommitRecords): FeedCommit {
  const change = <T>(record: T | undefined, make: (r: T) => Change) => (record === undefined ? undefined : make(record));
  return {
    seq: commit.seq,
    changes: [
      ...commit.deviceNames.map((n) => change(records.devices.get(n), (device) => ({ kind: 'device', device }))),
      ...commit.objectIds.map((id) => change(records.objects.get(id), (object) => ({ kind: 'object', object }))),
      ...commit.types.map((t) => change(records.types.get(eventTypeKey(t.domain, t.eventType)), (eventType) => ({ kind: 'event_type', eventType }))),
      ...commit.eventIds.map((id) => change(records.events.get(id), (stored) => ({ kind: 'event', event: toEventRecord(stored) }))),
    ],
  };
}

export function createCommitFeed(options: CommitFeedOptions): CommitFeed {
  const { pool, logger, pollMs } = options;
  const pageCommits = options.pageCommits ?? 20;
  const cacheCommits = options.cacheCommits ?? 1000;
  const cache = new Map<bigint, FeedCommit>();
  const loading = new Map<bigint, Promise<FeedCommit[]>>();
  const waiters = new Set<{ seq: bigint; wake: () => void }>();
  const closing = new AbortController();
  let knownHead = 0n;
  let timer: NodeJS.Timeout | undefined;
  let polling = false;

  const wakeReached = () => {
    for (const waiter of waiters) if (waiter.seq <= knownHead) waiter.wake();
  };
  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      const head = await commitHead(pool);
      if (head > knownHead) knownHead = head;
      wakeReached();
    } catch (err) {
      logger.warn({ err }, 'watch: reading the commit head failed');
    } finally {
      polling = false;
    }
  }

  async function load(fromSeq: bigint): Promise<FeedCommit[]> {
    const logged = await commitsFrom(pool, fromSeq, pageCommits);
    const first = logged[0];
    if ((first && first.seq > fromSeq) || (!first && (await commitHead(pool)) >= fromSeq)) {
      throw new AppError('FAILED_PRECONDITION', 'after_cursor is older than the retained commit log: start a new watch and list what was missed', {
        field: 'after_cursor',
        rule: 'expired',
      });
    }
    const records = await recordsOf(pool, logged);
    const commits = logged.map((c) => toFeedCommit(c, records));
    for (const commit of commits) cache.set(commit.seq, commit);
    // Map keeps insertion order: the oldest entries go first.
    for (const seq of cache.keys()) {
      if (cache.size <= cacheCommits) break;
      cache.delete(seq);
    }
    return commits;
  }

  return {
    closed: closing.signal,
    head: async () => {
      const head = await commitHead(pool);
      if (head > knownHead) knownHead = head;
      return head;
    },
    read(fromSeq) {
      const cached: FeedCommit[] = [];
      for (let seq = fromSeq; cached.length < pageCommits; seq++) {
        const commit = cache.get(seq);
        if (!commit) break;
        cached.push(commit);
      }
      if (cached.length > 0) return Promise.resolve(cached);
      // Watchers at the tail all ask for the same next commit at once: one query answers them all.
      let pending = loading.get(fromSeq);
      if (!pending) {
        pending = load(fromSeq).finally(() => loading.delete(fromSeq));
        loading.set(fromSeq, pending);
      }
      return pending;
    },
    waitFor(seq, timeoutMs, signal) {
      if (seq <= knownHead || signal.aborted || closing.signal.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const waiter = { seq, wake: () => done() };
        const timeout = setTimeout(() => done(), timeoutMs);
        const done = () => {
          clearTimeout(timeout);
          waiters.delete(waiter);
          signal.removeEventListener('abort', waiter.wake);
          closing.signal.removeEventListener('abort', waiter.wake);
          if (waiters.size === 0 && timer) {
            clearInterval(timer);
            timer = undefined;
          }
          resolve();
        };
        waiters.add(waiter);
        signal.addEventListener('abort', waiter.wake, { once: true });
        closing.signal.addEventListener('abort', waiter.wake, { once: true });
        timer ??= setInterval(() => void poll(), pollMs);
      });
    },
    close() {
      closing.abort();
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
