import type { Queryable } from '../pool.js';
import type { LoggedCommit } from './commit-log.js';
import { EVENT_COLUMNS, toStoredEvent, type EventRow, type StoredEvent } from './events.js';
import { query } from './query.js';

/** A commit number the horizon waits on, with the transaction id taken when it was read (commit-horizon.ts). */
export interface PendingNumber {
  n: bigint;
  xid: bigint;
}

/** The commits that became readable in this poll, with the events they created. */
export interface CommitTail {
  /** The bound this page starts after (the caller's bound before the poll). */
  after: bigint;
  /** The new bound: every commit numbered up to it has finished. */
  through: bigint;
  purgedThrough: bigint;
  /** Commits in (after, through], in order, at most `limit`. */
  commits: LoggedCommit[];
  events: Map<string, StoredEvent>;
}

export interface TailPoll {
  n: bigint;
  xmin: bigint;
  xid: bigint | undefined;
  tail: CommitTail;
}

type TailRow = EventRow & { kind: 'event' | 'poll' | 'commit' };

/**
 * pollHorizon's statement (commit-log.ts) that also reads, in the same snapshot, the commits that
 * became readable and their events: one round trip per horizon step instead of three (poll,
 * commit-log page, events), which is what following the log cost the registry per event.
 *
 * Why the rows are visible: the new bound is the largest pending number whose transaction id is
 * below this statement's snapshot xmin, so every writer holding a number up to it finished before
 * this snapshot was taken, and the page read with that snapshot holds all of their commits.
 *
 * One result of three row kinds (the event rows' columns, the others in `payload` and `created_us`):
 * 'poll' (n, xmin, xid, bound, purged_through as a JSON array), 'commit' (seq in created_us, its
 * lists as a JSON array: one native JSON.parse instead of pg's per-character array parser), and
 * 'event'. The event branch comes first so the union takes its column types. The events are
 * looked up by `= ANY (ARRAY(...))`: with `IN (SELECT unnest ...)` the prepared statement's generic
 * plan hashed a sequential scan of the whole events table at every poll.
 */
const TAIL_SQL = `
WITH h AS MATERIALIZED (
  SELECT n, pg_snapshot_xmin(pg_current_snapshot()) AS xmin, CASE WHEN n > $1::int8 THEN pg_current_xact_id() END AS xid
  FROM (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM commit_seq) s
), b AS MATERIALIZED (
  SELECT coalesce((SELECT max(p.n) FROM unnest($3::int8[], $4::xid8[]) AS p(n, xid) WHERE p.xid < h.xmin), 0) AS bound,
         (SELECT purged_through FROM commit_log_state) AS purged_through
  FROM h
), c AS MATERIALIZED (
  SELECT cl.seq, cl.device_names, cl.object_ids, cl.type_domains, cl.type_names, cl.event_ids
  FROM b, LATERAL (SELECT * FROM commit_log WHERE seq > $2::int8 AND seq <= b.bound ORDER BY seq LIMIT $5) cl
  WHERE $2::int8 >= b.purged_through
)
SELECT 'event' AS kind, ${EVENT_COLUMNS} FROM events e WHERE e.id = ANY (ARRAY(SELECT unnest(c.event_ids) FROM c))
UNION ALL
SELECT 'poll', NULL, NULL, NULL, NULL, NULL, NULL, json_build_array(h.n::text, h.xmin::text, h.xid::text, b.bound::text, b.purged_through::text)::text, NULL, NULL FROM h, b
UNION ALL
SELECT 'commit', NULL, NULL, NULL, NULL, NULL, NULL, json_build_array(c.device_names, c.object_ids, c.type_domains, c.type_names, c.event_ids)::text, c.seq, NULL FROM c`;

function toLoggedCommit(seq: string, payload: string): LoggedCommit {
  const [deviceNames, objectIds, typeDomains, typeNames, eventIds] = JSON.parse(payload) as string[][];
  return {
    seq: BigInt(seq),
    deviceNames: deviceNames ?? [],
    objectIds: objectIds ?? [],
    types: (typeDomains ?? []).map((domain, i) => ({ domain, eventType: typeNames?.[i] ?? '' })),
    eventIds: eventIds ?? [],
  };
}

/**
 * One horizon poll (see pollHorizon) that also returns the commits in (after, bound] and their
 * events, where bound is what the caller's pending numbers resolve to in this poll. `pending` is
 * the caller's list in order; `known` as in pollHorizon.
 */
export async function pollHorizonWithTail(db: Queryable, known: bigint, after: bigint, pending: readonly PendingNumber[], limit: number): Promise<TailPoll> {
  const rows = await query<TailRow>(
    db,
    TAIL_SQL,
    [known.toString(), after.toString(), pending.map((p) => p.n.toString()), pending.map((p) => p.xid.toString()), limit],
    'registry-watch-tail',
  );
  let poll: string[] | undefined;
  const commits: LoggedCommit[] = [];
  const events = new Map<string, StoredEvent>();
  for (const row of rows) {
    if (row.kind === 'event') events.set(row.id, toStoredEvent(row));
    else if (row.kind === 'commit') commits.push(toLoggedCommit(row.created_us, row.payload));
    else poll = JSON.parse(row.payload) as string[];
  }
  if (!poll) throw new Error('commit_seq returned no row');
  const [n = '0', xmin = '0', xid, bound = '0', purged = '0'] = poll;
  commits.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
  return {
    n: BigInt(n),
    xmin: BigInt(xmin),
    xid: xid === null || xid === undefined ? undefined : BigInt(xid),
    tail: { after, through: BigInt(bound), purgedThrough: BigInt(purged), commits, events },
  };
}
