import { AppError, invalidArgument } from '@dynamic-events/proto';
import type { Change, CommitFeed } from './commit-feed.js';
import { checkEventFilter, type EventFilter, type EventFilterInput } from './list-filters.js';
import { createTokenCodec } from './page-token.js';

export type ChangeKind = Change['kind'];

/** What a watch yields: a change with its cursor, or a keep-alive carrying where a resume continues. */
export type WatchMessage = { cursor: string; change: Change } | { cursor: string; keepAlive: true };

export interface WatchRequest {
  filter: EventFilterInput;
  /** Empty: every kind. */
  kinds: ChangeKind[];
  /** Empty: from now on. */
  afterCursor: string;
}

export type Watch = (request: WatchRequest, signal: AbortSignal) => AsyncGenerator<WatchMessage>;

/** The position after the last change of a commit (a keep-alive's cursor). */
const WHOLE_COMMIT = 'end';
const cursors = createTokenCodec('watch', 'commit-log-v1', 2);
const SEQ = /^\d{1,19}$/;
const POSITION = /^\d{1,9}$/;

interface Position {
  seq: bigint;
  /** Changes of commit `seq` up to this index were delivered; 'end': all of them. */
  index: number | typeof WHOLE_COMMIT;
}

function decodeCursor(cursor: string): Position {
  const [seq = '', index = ''] = cursors.decode(cursor, 'after_cursor');
  if (!SEQ.test(seq) || (index !== WHOLE_COMMIT && !POSITION.test(index))) throw invalidArgument('after_cursor', 'token', 'after_cursor is malformed');
  return { seq: BigInt(seq), index: index === WHOLE_COMMIT ? WHOLE_COMMIT : Number(index) };
}

const encodeCursor = (p: Position): string => cursors.encode([p.seq.toString(), String(p.index)]);

/** A filter field applies to the records that have it; a record without a filtered field does not match. */
function matches(change: Change, f: EventFilter): boolean {
  const want = (filter: string | undefined, value: string | undefined) => filter === undefined || filter === value;
  switch (change.kind) {
    case 'event': {
      const e = change.event;
      return want(f.deviceName, e.deviceName) && want(f.object, `${e.domain}.${e.objectId}`) && want(f.domain, e.domain) && want(f.eventType, e.eventType);
    }
    case 'device':
      return want(f.deviceName, change.device.deviceName) && !f.object && !f.domain && !f.eventType;
    case 'object': {
      const o = change.object;
      return want(f.deviceName, o.deviceName) && want(f.object, o.id) && want(f.domain, o.objectDomain) && !f.eventType;
    }
    case 'event_type':
      return want(f.domain, change.eventType.domain) && want(f.eventType, change.eventType.eventType) && !f.deviceName && !f.object;
  }
}

/**
 * Follows the commit log from a cursor: every change of every later commit exactly once, in commit
 * order. It pulls one page at a time (the gRPC edge waits for the client to drain before asking for
 * more), so a slow watcher costs a page of memory and simply reads further behind from the database.
 */
export function createWatch(feed: CommitFeed, options: { keepAliveMs: number }): Watch {
  return async function* watch(request, signal) {
    if (request.filter.sinceUs !== undefined || request.filter.untilUs !== undefined) {
      throw invalidArgument(request.filter.sinceUs !== undefined ? 'since' : 'until', 'unsupported', 'a watch follows commits: since and until are not allowed');
    }
    const filter = checkEventFilter(request.filter);
    const kinds = new Set(request.kinds);
    const head = await feed.head();
    let at: Position = request.afterCursor === '' ? { seq: head, index: WHOLE_COMMIT } : decodeCursor(request.afterCursor);
    if (at.seq > head) throw invalidArgument('after_cursor', 'token', "after_cursor is ahead of this registry's commit log (a cursor of another deployment?)");
    yield { cursor: encodeCursor(at), keepAlive: true };
    let lastSent = Date.now();
    while (!signal.aborted) {
      if (feed.closed.aborted) throw new AppError('UNAVAILABLE', 'registry shutting down: resume from the last cursor received');
      const next = at.index === WHOLE_COMMIT ? at.seq + 1n : at.seq;
      const commits = await feed.read(next);
      for (const commit of commits) {
        const from = commit.seq === at.seq && at.index !== WHOLE_COMMIT ? at.index + 1 : 0;
        for (let i = from; i < commit.changes.length; i++) {
          const change = commit.changes[i];
          if (!change || (kinds.size > 0 && !kinds.has(change.kind)) || !matches(change, filter)) continue;
          yield { cursor: encodeCursor({ seq: commit.seq, index: i }), change };
          lastSent = Date.now();
        }
        at = { seq: commit.seq, index: WHOLE_COMMIT };
      }
      const idleMs = Date.now() - lastSent;
      if (idleMs >= options.keepAliveMs) {
        yield { cursor: encodeCursor(at), keepAlive: true };
        lastSent = Date.now();
      } else if (commits.length === 0) {
        await feed.waitFor(at.seq + 1n, options.keepAliveMs - idleMs, signal);
      }
    }
  };
}
