import type { DeviceRecord, EventTypeRecord, ObjectRecord } from '../../model.js';
import type { Queryable } from '../pool.js';
import { DEVICE_COLUMNS, toDeviceRecord, type DeviceRow } from './devices.js';
import { EVENT_TYPE_COLUMNS, eventTypeKey, toEventTypeRecord, type EventTypeRow } from './event-types.js';
import { EVENT_COLUMNS, eventPayloadSql, toStoredEvent, type EventRow, type StoredEvent } from './events.js';
import { OBJECT_COLUMNS, toObjectRecord, type ObjectRow } from './objects.js';
import { query } from './query.js';

/** One write statement of the log (migration 0004): what it created, each list in delivery order. */
export interface LoggedCommit {
  seq: bigint;
  deviceNames: string[];
  objectIds: string[];
  types: Array<{ domain: string; eventType: string }>;
  eventIds: string[];
}

/** The log's identity and how far it was purged. */
interface LogState {
  logId: string;
  purgedThrough: bigint;
}

export async function logState(db: Queryable): Promise<LogState> {
  const [row] = await query<{ log_id: string; purged_through: string }>(db, 'SELECT log_id, purged_through FROM commit_log_state');
  if (!row) throw new Error('commit_log_state has no row (migration 0004 not applied?)');
  return { logId: row.log_id, purgedThrough: BigInt(row.purged_through) };
}

/** The highest commit number handed out so far (0 before the first); takes no transaction id. */
export async function lastCommitSeq(db: Queryable): Promise<bigint> {
  const [row] = await query<{ n: string }>(db, 'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM commit_seq');
  return BigInt(row?.n ?? '0');
}

/**
 * One poll of the watch horizon, as a select of one row: the highest commit number handed out (`n`),
 * the oldest transaction still running in the cluster (`xmin`, from this statement's snapshot), and,
 * only when `n` exceeds `$1` (the highest number already known), a transaction id of this
 * statement's own (`xid`). The sequence tuple is scanned before the select list is computed, so every
 * writer holding a number up to `n` already had its transaction id, a smaller one than `xid`: once a
 * later poll's `xmin` passes `xid`, all of them have finished. Shared with the tail's statement
 * (commit-tail.ts).
 */
export const HORIZON_SELECT = `SELECT n, pg_snapshot_xmin(pg_current_snapshot()) AS xmin, CASE WHEN n > $1::int8 THEN pg_current_xact_id() END AS xid
  FROM (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM commit_seq) s`;

/** One poll of the watch horizon (HORIZON_SELECT), one round trip. */
export async function pollHorizon(db: Queryable, known: bigint): Promise<{ n: bigint; xmin: bigint; xid: bigint | undefined }> {
  const [row] = await query<{ n: string; xmin: string; xid: string | null }>(
    db,
    `SELECT n, xmin::text AS xmin, xid::text AS xid FROM (${HORIZON_SELECT}) h`,
    [known.toString()],
    'registry-watch-horizon',
  );
  if (!row) throw new Error('commit_seq returned no row');
  return { n: BigInt(row.n), xmin: BigInt(row.xmin), xid: row.xid === null ? undefined : BigInt(row.xid) };
}

/**
 * What a watcher holds of a commit's events: the size the write statement logged (migration 0011),
 * or, for a commit logged before that column, the text size of its events' payload.
 */
const COMMIT_EVENT_BYTES = `coalesce(cl.event_bytes,
  (SELECT sum(octet_length(${eventPayloadSql('e')}::text)) FROM events e WHERE e.id = ANY (cl.event_ids)), 0)`;

/**
 * A FROM item: the commits numbered in (after, through], in order, at most `limit`, stopping at the
 * commit that brings their events' bytes past `maxBytes` (the first always comes, whatever its
 * size), so a page of large events is cut before any event row is read. Its rows carry commit_log's
 * columns and `cut`: true when commits within the limit were left out. Arguments are SQL texts
 * (parameter references). Shared with the tail's statement (commit-tail.ts).
 */
export const pageCommitsSql = (after: string, through: string, limit: string, maxBytes: string) => `(
  SELECT p.seq, p.device_names, p.object_ids, p.type_domains, p.type_names, p.event_ids, count(*) OVER () < p.listed AS cut
  FROM (
    SELECT l.*, count(*) OVER () AS listed, row_number() OVER w AS n, sum(l.bytes) OVER w AS running
    FROM (SELECT cl.*, ${COMMIT_EVENT_BYTES} AS bytes FROM commit_log cl WHERE cl.seq > ${after} AND cl.seq <= ${through} ORDER BY cl.seq LIMIT ${limit}) l
    WINDOW w AS (ORDER BY l.seq)
  ) p
  WHERE p.n = 1 OR p.running <= ${maxBytes}
)`;

/** A page of commits (pageCommitsSql) and the purge horizon read in the same snapshot. */
interface CommitPage {
  commits: LoggedCommit[];
  /** Commits within the limit were left out for their bytes: the page is not all there is up to `through`. */
  cut: boolean;
  purgedThrough: bigint;
}

/** Commits numbered in (afterSeq, throughSeq], in order, at most `limit` and cut at `maxBytes` of events (pageCommitsSql). */
export async function commitsBetween(db: Queryable, afterSeq: bigint, throughSeq: bigint, limit: number, maxBytes: number): Promise<CommitPage> {
  const rows = await query<{ seq: string | null; cut: boolean | null; purged_through: string; device_names: string[]; object_ids: string[]; type_domains: string[]; type_names: string[]; event_ids: string[] }>(
    db,
    `SELECT c.seq, c.cut, s.purged_through, c.device_names, c.object_ids, c.type_domains, c.type_names, c.event_ids
     FROM commit_log_state s
     LEFT JOIN LATERAL ${pageCommitsSql('$1::int8', '$2::int8', '$3::int4', '$4::int8')} c ON true
     ORDER BY c.seq`,
    [afterSeq.toString(), throughSeq.toString(), limit, maxBytes],
    'registry-watch-commits',
  );
  const purgedThrough = BigInt(rows[0]?.purged_through ?? '0');
  const commits = rows
    .filter((row) => row.seq !== null)
    .map((row) => ({
      seq: BigInt(row.seq ?? '0'),
      deviceNames: row.device_names,
      objectIds: row.object_ids,
      types: row.type_domains.map((domain, i) => ({ domain, eventType: row.type_names[i] ?? '' })),
      eventIds: row.event_ids,
    }));
  return { commits, cut: rows.some((row) => row.cut === true), purgedThrough };
}

/** The records the given commits created, by key; a key whose row is gone (EVENT_RETENTION) is absent. */
export interface CommitRecords {
  devices: Map<string, DeviceRecord>;
  objects: Map<string, ObjectRecord>;
  types: Map<string, EventTypeRecord>;
  events: Map<string, StoredEvent>;
}

/**
 * One primary-key lookup per kind that has keys (usually events only); prepared, as every watch page
 * runs them. `events` already read (the horizon's tail, commit-tail.ts) are not read again.
 */
export async function recordsOf(db: Queryable, commits: LoggedCommit[], known?: Map<string, StoredEvent>): Promise<CommitRecords> {
  const names = commits.flatMap((c) => c.deviceNames);
  const objectIds = commits.flatMap((c) => c.objectIds);
  const types = commits.flatMap((c) => c.types);
  const eventIds = known ? [] : commits.flatMap((c) => c.eventIds);
  const [devices, objects, eventTypes, events] = await Promise.all([
    names.length === 0 ? [] : query<DeviceRow>(db, `SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_name = ANY($1::text[])`, [names], 'registry-watch-devices'),
    objectIds.length === 0 ? [] : query<ObjectRow>(db, `SELECT ${OBJECT_COLUMNS} FROM objects WHERE id = ANY($1::text[])`, [objectIds], 'registry-watch-objects'),
    types.length === 0
      ? []
      : query<EventTypeRow>(db, `SELECT ${EVENT_TYPE_COLUMNS} FROM event_types WHERE (domain, event_type) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, [
          types.map((t) => t.domain),
          types.map((t) => t.eventType),
        ], 'registry-watch-event-types'),
    eventIds.length === 0 ? [] : query<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = ANY($1::uuid[])`, [eventIds], 'registry-watch-events'),
  ]);
  return {
    devices: new Map(devices.map((r) => [r.device_name, toDeviceRecord(r)])),
    objects: new Map(objects.map((r) => [r.id, toObjectRecord(r)])),
    types: new Map(eventTypes.map((r) => [eventTypeKey(r.domain, r.event_type), toEventTypeRecord(r)])),
    events: known ?? new Map(events.map((r) => [r.id as string, toStoredEvent(r)])),
  };
}

/**
 * Deletes the oldest commits written before `olderThanSeconds` ago, up to `limit`, never past
 * `throughSeq` (a bound below which every commit is visible, so none can appear behind the purge),
 * and moves the purge horizon in the same statement. Resolves with how many went.
 */
export async function purgeCommitLog(db: Queryable, olderThanSeconds: number, throughSeq: bigint, limit: number): Promise<number> {
  const rows = await query<{ n: string }>(
    db,
    `WITH cut AS (
       SELECT max(seq) AS seq FROM (
         SELECT seq, written_at FROM commit_log WHERE seq <= $2 ORDER BY seq LIMIT $3
       ) oldest WHERE written_at < now() - make_interval(secs => $1)
     ), gone AS (
       DELETE FROM commit_log WHERE seq <= (SELECT seq FROM cut) RETURNING 1
     ), moved AS (
       UPDATE commit_log_state SET purged_through = greatest(purged_through, (SELECT seq FROM cut))
       WHERE (SELECT seq FROM cut) IS NOT NULL
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM gone) AS n, (SELECT count(*) FROM moved) AS moved`,
    [olderThanSeconds, throughSeq.toString(), limit],
  );
  return Number(rows[0]?.n ?? 0);
}
