import type { Queryable } from '../pool.js';
import { HORIZON_SELECT, pageCommitsSql, type LoggedCommit } from './commit-log.js';
import { EVENT_JSON, fromEventJson, type EventJson, type StoredEvent } from './events.js';
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
  /** Commits in (after, through], in order, at most `limit`, cut at `maxBytes` of events (pageCommitsSql). */
  commits: LoggedCommit[];
  /** Commits within the limit were left out for their bytes. */
  cut: boolean;
  events: Map<string, StoredEvent>;
}

interface TailPoll {
  n: bigint;
  xmin: bigint;
  xid: bigint | undefined;
  tail: CommitTail;
}

/** The statement's one row: three JSON texts. */
interface TailRow {
  poll: string;
  commits: string | null;
  events: string | null;
}

/**
 * pollHorizon's statement (commit-log.ts) that also reads, in the same snapshot, the commits that
 * became readable and their events: one round trip per horizon step instead of three (poll,
 * commit-log page, events), which is what following the log cost the registry per event.
 *
 * Why the rows are visible: the new bound is the largest pending number whose transaction id is
 * below this statement's snapshot xmin, so every writer holding a number up to it finished before
 * this snapshot was taken, and the page read with that snapshot holds all of their commits.
 *
 * The commits stop at a byte bound as a catch-up page does (pageCommitsSql): a poll after the
 * horizon stood still (no watcher followed it while large events were written) reads a page's worth
 * of event bytes, not `limit` commits of up to 16 MiB events.
 *
 * One row of three JSON texts (poll: n, xmin, xid, bound, purged_through, cut; the commits; the events),
 * each taken apart by one native JSON.parse: as rows of columns, pg's per-row and per-field parsing
 * of the events is most of what following the log costs the registry per event. The events are
 * looked up by `= ANY (ARRAY(...))`: with `IN (SELECT unnest ...)` the prepared statement's generic
 * plan hashes a sequential scan of the whole events table at every poll.
 */
const TAIL_SQL = `
WITH h AS MATERIALIZED (
  ${HORIZON_SELECT}
), b AS MATERIALIZED (
  SELECT coalesce((SELECT max(p.n) FROM unnest($3::int8[], $4::xid8[]) AS p(n, xid) WHERE p.xid < h.xmin), 0) AS bound,
         (SELECT purged_through FROM commit_log_state) AS purged_through
  FROM h
), c AS MATERIALIZED (
  SELECT cl.* FROM b, LATERAL ${pageCommitsSql('$2::int8', 'b.bound', '$5::int4', '$6::int8')} cl
  WHERE $2::int8 >= b.purged_through
)
SELECT json_build_array(h.n::text, h.xmin::text, h.xid::text, b.bound::text, b.purged_through::text, coalesce((SELECT bool_or(c.cut) FROM c), false))::text AS poll,
  (SELECT json_agg(json_build_array(c.seq::text, c.device_names, c.object_ids, c.type_domains, c.type_names, c.event_ids) ORDER BY c.seq)::text FROM c) AS commits,
  (SELECT json_agg(${EVENT_JSON})::text FROM events e WHERE e.id = ANY (ARRAY(SELECT unnest(c.event_ids) FROM c))) AS events
FROM h, b`;

function toLoggedCommit([seq, deviceNames, objectIds, typeDomains, typeNames, eventIds]: [string, string[] | null, string[] | null, string[] | null, string[] | null, string[] | null]): LoggedCommit {
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
export async function pollHorizonWithTail(db: Queryable, known: bigint, after: bigint, pending: readonly PendingNumber[], limit: number, maxBytes: number): Promise<TailPoll> {
  const rows = await query<TailRow>(
    db,
    TAIL_SQL,
    [known.toString(), after.toString(), pending.map((p) => p.n.toString()), pending.map((p) => p.xid.toString()), limit, maxBytes],
    'registry-watch-tail',
  );
  const [row] = rows;
  if (!row) throw new Error('commit_seq returned no row');
  const [n, xmin, xid, bound, purged, cut] = JSON.parse(row.poll) as [string, string, string | null, string, string, boolean];
  const commits = row.commits === null ? [] : (JSON.parse(row.commits) as Parameters<typeof toLoggedCommit>[0][]).map(toLoggedCommit);
  const events = new Map<string, StoredEvent>();
  if (row.events !== null) for (const e of JSON.parse(row.events) as EventJson[]) events.set(e[0], fromEventJson(e));
  return {
    n: BigInt(n),
    xmin: BigInt(xmin),
    xid: xid === null ? undefined : BigInt(xid),
    tail: { after, through: BigInt(bound), purgedThrough: BigInt(purged), commits, cut, events },
  };
}
