import { AppError, domainAllowed, invalidArgument } from '@dynamic-events/proto';
import { changeBytes, type Change, type CommitFeed, type HeldPage } from './commit-feed.js';
import { checkEventFilter, type EventFilter, type EventFilterInput } from '../reads/list-filters.js';
import { decodeCursor, encodeCursor, type Position } from './watch-cursor.js';

export type ChangeKind = Change['kind'];

/** A change with its position. */
export interface PositionedChange {
  cursor: string;
  change: Change;
}

/**
 * What a watch yields: changes read together (in order), or none in a keep-alive; `cursor` is
 * where a resume continues after this message.
 */
export interface WatchMessage {
  cursor: string;
  changes: PositionedChange[];
}

/** Changes per message at most, and roughly the bytes of record data: several per message, never a huge one. */
const BATCH_CHANGES = 200;
const BATCH_BYTES = 256 * 1024;

interface WatchRequest {
  filter: EventFilterInput;
  /** Empty: every kind. */
  kinds: ChangeKind[];
  /** Empty: from now on. */
  afterCursor: string;
}

export type Watch = (request: WatchRequest, signal: AbortSignal) => AsyncGenerator<WatchMessage>;

/**
 * A filter field applies to the records that have it; a record without a filtered field does not
 * match (token_id: the sender, or the creator of an entity; a device has no domain, so no domain
 * filter or domain patterns let it through). Patterns match as in a list's SQL (domainAllowed).
 */
function matches(change: Change, f: EventFilter): boolean {
  const want = (filter: string | undefined, value: string | undefined) => filter === undefined || filter === value;
  const inDomain = (domain: string) => want(f.domain, domain) && (f.domainPatterns === undefined || domainAllowed(f.domainPatterns, domain));
  switch (change.kind) {
    case 'event': {
      const e = change.event;
      return want(f.deviceName, e.deviceName) && want(f.object, `${e.domain}.${e.objectId}`) && inDomain(e.domain) && want(f.eventType, e.eventType) && want(f.tokenId, e.tokenId);
    }
    case 'device': {
      const noDomain = !f.domain && f.domainPatterns === undefined;
      return want(f.deviceName, change.device.deviceName) && !f.object && noDomain && !f.eventType && want(f.tokenId, change.device.createdByTokenId);
    }
    case 'object': {
      const o = change.object;
      return want(f.deviceName, o.deviceName) && want(f.object, o.id) && inDomain(o.objectDomain) && !f.eventType && want(f.tokenId, o.createdByTokenId);
    }
    case 'event_type': {
      const t = change.eventType;
      return inDomain(t.domain) && want(f.eventType, t.eventType) && !f.deviceName && !f.object && want(f.tokenId, t.createdByTokenId);
    }
  }
}

/**
 * The changes of `page` after position `from` that a watcher wants, with their cursors, in batches
 * of at most BATCH_CHANGES changes and about BATCH_BYTES of record data.
 */
function* pageBatches(page: HeldPage['page'], from: Position, wanted: (change: Change) => boolean, cursorOf: (change: Change, seq: bigint, index: number) => string): Generator<PositionedChange[]> {
  let batch: PositionedChange[] = [];
  let bytes = 0;
  for (const commit of page.commits) {
    const first = commit.seq === from.seq && from.index !== 'end' ? from.index + 1 : 0;
    for (let i = first; i < commit.changes.length; i++) {
      const change = commit.changes[i];
      if (!change || !wanted(change)) continue;
      batch.push({ cursor: cursorOf(change, commit.seq, i), change });
      bytes += changeBytes(change);
      if (batch.length >= BATCH_CHANGES || bytes >= BATCH_BYTES) {
        yield batch;
        [batch, bytes] = [[], 0];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** How long a watch without a cursor waits for commits already handed out to become readable ("now"). */
const START_WAIT_MS = 2000;

/**
 * Follows the commit log from a cursor: every change of every later commit exactly once, in the
 * log's order (commit-horizon.ts, migration 0004). It pulls one page at a time and the gRPC edge
 * waits for the client to drain before asking for more, so a slow watcher costs one page of memory
 * and simply reads further behind from the database; one that stops reading altogether is ended
 * by the server's stall limit (RESOURCE_EXHAUSTED) and resumes from its last cursor. A page read
 * from history takes a slot (page-slots.ts) until the watcher moved past it, so watchers behind
 * hold a bounded number of pages between them; one waiting for a slot sends keep-alives.
 */
export function createWatch(feed: CommitFeed, options: { keepAliveMs: number }): Watch {
  const cursors = new WeakMap<Change, string>();
  return async function* watch(request, signal) {
    if (request.filter.sinceUs !== undefined || request.filter.untilUs !== undefined) {
      throw invalidArgument(request.filter.sinceUs !== undefined ? 'since' : 'until', 'unsupported', 'a watch follows commits: since and until are not allowed');
    }
    const filter = checkEventFilter(request.filter);
    const kinds = new Set(request.kinds);
    const wanted = (change: Change) => (kinds.size === 0 || kinds.has(change.kind)) && matches(change, filter);
    const logId = await feed.logId();
    const unfollow = feed.horizon.follow();
    let held: HeldPage | undefined;
    try {
      let at: Position = request.afterCursor === '' ? { seq: await feed.horizon.refresh(START_WAIT_MS), index: 'end' } : decodeCursor(request.afterCursor, logId);
      if (at.seq > feed.horizon.bound && at.seq > (await feed.lastSeq())) {
        throw invalidArgument('after_cursor', 'cursor', 'after_cursor is ahead of every commit of this database');
      }
      // Commits after the position; a position inside a commit reads that commit again from its next change.
      const afterOf = (p: Position) => (p.index === 'end' ? p.seq : p.seq - 1n);
      // Read before the first message, so an expired cursor is refused rather than acknowledged
      // (unless no page slot came within the keep-alive interval: then the refusal follows it).
      held = await feed.read(afterOf(at), signal, options.keepAliveMs);
      yield { cursor: encodeCursor(logId, at), changes: [] };
      let lastSent = Date.now();
      // Every watcher reading a shared page gets the same change objects: their cursors are computed once.
      const cursorOf = (change: Change, seq: bigint, index: number): string => {
        let cursor = cursors.get(change);
        if (cursor === undefined) cursors.set(change, (cursor = encodeCursor(logId, { seq, index })));
        return cursor;
      };
      for (;;) {
        if (signal.aborted) return;
        if (feed.closed.aborted) throw new AppError('UNAVAILABLE', 'registry shutting down: resume from the last cursor received');
        if (!held) {
          held = await feed.read(afterOf(at), signal, Math.max(options.keepAliveMs - (Date.now() - lastSent), 0));
          if (signal.aborted) return;
          // No page slot within the keep-alive interval (a storm holds them): say so, and wait again.
          if (!held) {
            yield { cursor: encodeCursor(logId, at), changes: [] };
            lastSent = Date.now();
            continue;
          }
        }
        const { page } = held;
        for (const changes of pageBatches(page, at, wanted, cursorOf)) {
          yield { cursor: changes[changes.length - 1]!.cursor, changes };
          lastSent = Date.now();
        }
        const last = page.commits[page.commits.length - 1];
        if (last) at = { seq: last.seq, index: 'end' };
        // Nothing more up to the horizon: a resume may start there (keep-alive cursors stay recent),
        // and the next read asks for the page after it, the one the horizon's poll reads for the tail.
        if (page.complete && page.through > at.seq) at = { seq: page.through, index: 'end' };
        const idleMs = Date.now() - lastSent;
        if (idleMs >= options.keepAliveMs) {
          yield { cursor: encodeCursor(logId, at), changes: [] };
          lastSent = Date.now();
        } else if (page.commits.length === 0) {
          await feed.horizon.waitPast(at.seq, options.keepAliveMs - idleMs, signal);
        }
        // The page is let go (this iteration's scope with it) before waiting for the next one's slot.
        held.release();
        held = undefined;
      }
    } finally {
      held?.release();
      unfollow();
    }
  };
}
