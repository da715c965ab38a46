import { AppError } from '@dynamic-events/proto';
import type pg from 'pg';
import { eventTypeKey } from '../db/queries/event-types.js';
import { commitsBetween, lastCommitSeq, logState, recordsOf, type CommitRecords, type LoggedCommit } from '../db/queries/commit-log.js';
import type { Metrics } from '../metrics.js';
import type { CommitHorizon } from './commit-horizon.js';
import { toEventRecord } from '../reads/reads.js';
import type { DeviceRecord, EventRecord, EventTypeRecord, ObjectRecord } from '../model.js';

/** One thing a commit created, as a watcher receives it. */
export type Change =
  | { kind: 'device'; device: DeviceRecord }
  | { kind: 'object'; object: ObjectRecord }
  | { kind: 'event_type'; eventType: EventTypeRecord }
  | { kind: 'event'; event: EventRecord };

/** A commit with its changes at their positions (devices, objects, event types, events); a hole is a row retention removed. */
interface FeedCommit {
  seq: bigint;
  changes: Array<Change | undefined>;
}

/** What a watcher asked to read: commits after `afterSeq`, up to the horizon. */
interface FeedPage {
  commits: FeedCommit[];
  /** The horizon the page was read up to: with no commit in the page, the watcher is caught up to here. */
  through: bigint;
  /** Every commit up to `through` is in the page (fewer than a page's limit): a watcher that read it is at `through`. */
  complete: boolean;
}

/**
 * The registry's view of the commit log, shared by all its watchers: watchers at the same position
 * (following the tail) share one read, so ten watchers cost about one.
 */
export interface CommitFeed {
  readonly horizon: CommitHorizon;
  /** This database's log identity (cursors carry it). */
  logId(): Promise<string>;
  /** The highest commit number handed out so far. */
  lastSeq(): Promise<bigint>;
  /** Commits after `afterSeq` within the horizon (one page). FAILED_PRECONDITION when `afterSeq` was purged. */
  read(afterSeq: bigint): Promise<FeedPage>;
  /** Aborted by close(): every watch ends (shutdown), its client resumes elsewhere. */
  readonly closed: AbortSignal;
  close(): void;
}

interface CommitFeedOptions {
  pool: pg.Pool;
  horizon: CommitHorizon;
  /** Commits per read (bounds a watcher's memory: this many commits of up to a batch of events each). */
  pageCommits?: number;
  metrics?: Pick<Metrics, 'watchPages'>;
}

/** Shared reads kept for watchers arriving at the same position a little later. */
const SHARED_READS = 32;

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

/** The status a watcher gets when its cursor points into purged history. */
function expiredCursor(): AppError {
  return new AppError('FAILED_PRECONDITION', 'after_cursor is older than the retained watch history (WATCH_RETENTION): list what was missed, then watch from now', {
    field: 'after_cursor',
    rule: 'expired',
  });
}

export function createCommitFeed(options: CommitFeedOptions): CommitFeed {
  const { pool, horizon, metrics } = options;
  const pageCommits = options.pageCommits ?? 20;
  const shared = new Map<string, Promise<FeedPage>>();
  const closing = new AbortController();
  let logIdPromise: Promise<string> | undefined;

  async function load(afterSeq: bigint, through: bigint): Promise<FeedPage> {
    const { commits, purgedThrough } = await commitsBetween(pool, afterSeq, through, pageCommits);
    if (afterSeq < purgedThrough) throw expiredCursor();
    return pageOf(commits, await recordsOf(pool, commits), through);
  }

  function pageOf(commits: LoggedCommit[], records: CommitRecords, through: bigint): FeedPage {
    return { commits: commits.map((c) => toFeedCommit(c, records)), through, complete: commits.length < pageCommits };
  }

  function keep(key: string, page: Promise<FeedPage>): void {
    // A failed read is not kept; a Map keeps insertion order, so the oldest entries go first.
    page.catch(() => shared.delete(key));
    shared.set(key, page);
    for (const old of shared.keys()) {
      if (shared.size <= SHARED_READS) break;
      shared.delete(old);
    }
  }

  // The horizon's polls read the commits that became readable: the page of every watcher at the
  // tail, kept under the key its read() asks for, before the poll wakes them.
  horizon.readTails(pageCommits, (tail) => {
    if (tail.after < tail.purgedThrough) return; // read() answers that with expiredCursor
    const { commits, events, through } = tail;
    const page = recordsOf(pool, commits, events).then((records) => pageOf(commits, records, through));
    keep(`${tail.after}:${through}`, page);
    metrics?.watchPages.inc({ source: 'horizon' });
  });

  return {
    horizon,
    closed: closing.signal,
    logId() {
      logIdPromise ??= logState(pool).then((state) => state.logId);
      logIdPromise.catch(() => (logIdPromise = undefined));
      return logIdPromise;
    },
    lastSeq: () => lastCommitSeq(pool),
    read(afterSeq) {
      const through = horizon.bound;
      if (afterSeq >= through) return Promise.resolve({ commits: [], through, complete: true });
      const key = `${afterSeq}:${through}`;
      let page = shared.get(key);
      if (!page) {
        keep(key, (page = load(afterSeq, through)));
        metrics?.watchPages.inc({ source: 'read' });
      }
      return page;
    },
    close() {
      closing.abort();
      horizon.close();
    },
  };
}
