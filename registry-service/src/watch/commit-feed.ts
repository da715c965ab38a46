import { AppError } from '@dynamic-events/proto';
import type pg from 'pg';
import { eventTypeKey } from '../db/queries/event-types.js';
import { commitsBetween, lastCommitSeq, logState, recordsOf, type CommitRecords, type LoggedCommit } from '../db/queries/commit-log.js';
import type { Metrics } from '../metrics.js';
import type { CommitHorizon } from './commit-horizon.js';
import { createPageSlots, type PageSlots } from './page-slots.js';
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

/** A page and the release of the slot it takes (page-slots.ts): called when its watcher moved past it or ended. */
export interface HeldPage {
  page: FeedPage;
  release(): void;
}

const NO_SLOT = (): void => undefined;

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
  /**
   * Commits after `afterSeq` within the horizon (one page), held by the caller until it calls
   * `release` (page-slots.ts); undefined when `signal` aborts or `timeoutMs` passes while it waits
   * for a slot. FAILED_PRECONDITION when `afterSeq` was purged.
   */
  read(afterSeq: bigint, signal: AbortSignal, timeoutMs: number): Promise<HeldPage | undefined>;
  /** Aborted by close(): every watch ends (shutdown), its client resumes elsewhere. */
  readonly closed: AbortSignal;
  close(): void;
}

interface CommitFeedOptions {
  pool: pg.Pool;
  horizon: CommitHorizon;
  /** Commits per read (bounds a watcher's memory: this many commits of up to a batch of events each). */
  pageCommits?: number;
  /** Event bytes a read (catch-up or the horizon's tail) stops at (default PAGE_BYTES); its first commit always comes. */
  pageBytes?: number;
  /** Bytes of the shared reads kept for later watchers (default SHARED_READ_BYTES). */
  sharedBytes?: number;
  metrics?: Pick<Metrics, 'watchPages'>;
  /** Distinct pages read for watchers at once (default: createPageSlots()). */
  slots?: PageSlots;
}

/** Shared reads kept for watchers arriving at the same position a little later, and their bytes at most. */
const SHARED_READS = 32;
const SHARED_READ_BYTES = 16 * 1024 * 1024;
/**
 * A read stops at the commit that brings its events' bytes past this (a larger single commit comes
 * alone): a watcher resuming from old history over large events, or the horizon's first poll after
 * it stood still, holds one page of this size, not pageCommits commits of up to 16 MiB events.
 */
const PAGE_BYTES = 4 * 1024 * 1024;

/** Rough size of a change's record: what a page, a kept read or a Watch message holds of it. */
export function changeBytes(change: Change): number {
  if (change.kind !== 'event') return 512;
  let bytes = 512;
  for (const p of change.event.properties) bytes += p.key.length + p.value.length + 8;
  for (const url of change.event.images) bytes += url.length + 4;
  for (const url of change.event.videoClips) bytes += url.length + 4;
  return bytes;
}

const pageBytesOf = (page: FeedPage): number => page.commits.reduce((sum, c) => sum + c.changes.reduce((n, change) => n + (change ? changeBytes(change) : 0), 0), 0);

export function toFeedCommit(commit: LoggedCommit, records: CommitRecords): FeedCommit {
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

/**
 * The reads kept for watchers arriving at the same position a little later. Watchers reading a page
 * hold it themselves: the kept reads only serve later arrivals, so they stay within a count and a
 * byte bound and leave no large payload behind once the watchers go.
 */
function sharedReads(maxBytes: number) {
  const shared = new Map<string, Promise<FeedPage>>();
  // Bytes of each kept read once it resolved.
  const sizes = new Map<string, number>();
  let keptBytes = 0;
  const forget = (key: string) => {
    shared.delete(key);
    keptBytes -= sizes.get(key) ?? 0;
    sizes.delete(key);
  };
  // A Map keeps insertion order, so the oldest entries go first.
  const trim = () => {
    for (const old of shared.keys()) {
      if (shared.size <= SHARED_READS && keptBytes <= maxBytes) break;
      forget(old);
    }
  };
  const keep = (key: string, page: Promise<FeedPage>): void => {
    shared.set(key, page);
    page.then(
      (read) => {
        if (shared.get(key) !== page) return;
        const bytes = pageBytesOf(read);
        sizes.set(key, bytes);
        keptBytes += bytes;
        trim();
      },
      // A failed read is not kept.
      () => shared.get(key) === page && forget(key),
    );
    trim();
  };
  return { shared: shared as ReadonlyMap<string, Promise<FeedPage>>, keep };
}

export function createCommitFeed(options: CommitFeedOptions): CommitFeed {
  const { pool, horizon, metrics } = options;
  const pageCommits = options.pageCommits ?? 20;
  const pageBytes = options.pageBytes ?? PAGE_BYTES;
  const { shared, keep } = sharedReads(options.sharedBytes ?? SHARED_READ_BYTES);
  const slots = options.slots ?? createPageSlots();
  // Keys of the kept pages the horizon read (a subset of the kept reads' keys).
  const tailKeys = new Set<string>();
  const closing = new AbortController();
  let logIdPromise: Promise<string> | undefined;

  async function load(afterSeq: bigint, through: bigint): Promise<FeedPage> {
    const { commits, cut, purgedThrough } = await commitsBetween(pool, afterSeq, through, pageCommits, pageBytes);
    if (afterSeq < purgedThrough) throw expiredCursor();
    return pageOf(commits, await recordsOf(pool, commits), through, cut);
  }

  function pageOf(commits: LoggedCommit[], records: CommitRecords, through: bigint, cut = false): FeedPage {
    return { commits: commits.map((c) => toFeedCommit(c, records)), through, complete: !cut && commits.length < pageCommits };
  }

  // The horizon's polls read the commits that became readable: the page of every watcher at the
  // tail, kept under the key its read() asks for, before the poll wakes them.
  horizon.readTails({ limit: pageCommits, maxBytes: pageBytes }, (tail) => {
    if (tail.after < tail.purgedThrough) return; // read() answers that with expiredCursor
    const { commits, cut, events, through } = tail;
    const page = recordsOf(pool, commits, events).then((records) => pageOf(commits, records, through, cut));
    const key = `${tail.after}:${through}`;
    keep(key, page);
    for (const old of tailKeys) if (!shared.has(old)) tailKeys.delete(old);
    tailKeys.add(key);
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
    async read(afterSeq, signal, timeoutMs) {
      const through = horizon.bound;
      if (afterSeq >= through) return { page: { commits: [], through, complete: true }, release: NO_SLOT };
      const key = `${afterSeq}:${through}`;
      // The horizon's pages, read for the watchers at the tail, need no slot: live delivery never waits behind a storm.
      const kept = shared.get(key);
      if (kept && tailKeys.has(key)) return { page: await kept, release: NO_SLOT };
      const release = await slots.acquire(key, signal, timeoutMs);
      if (!release) return undefined;
      try {
        let page = shared.get(key);
        if (!page) {
          keep(key, (page = load(afterSeq, through)));
          metrics?.watchPages.inc({ source: 'read' });
        }
        return { page: await page, release };
      } catch (err) {
        release();
        throw err;
      }
    },
    close() {
      closing.abort();
      horizon.close();
    },
  };
}
