import type { Queryable } from '../pool.js';
import { EVENT_COLUMNS, EVENT_ROW_NAMES, toStoredEvent, type EventRow, type StoredEvent } from './events.js';
import { scopeDomainsSql, type DomainScope } from './domain-scope.js';
import { query, statementName, timestampFromMicros } from './query.js';

/** Where a page starts: strictly after this (time, id) in the list's order (the time it is ordered by). */
interface EventPosition {
  us: bigint;
  id: string;
}

/** One page of ListEvents; every filter is optional and they combine with AND. */
interface EventListQuery {
  deviceName?: string;
  /** Full object id. */
  objectRef?: string;
  domain?: string;
  eventType?: string;
  /** Inclusive lower bound, microseconds since the epoch. */
  sinceUs?: bigint;
  /** Exclusive upper bound. */
  untilUs?: bigint;
  /** The token that sent them. */
  tokenId?: string;
  /** occurred_at range, inclusive and exclusive. */
  occurredSinceUs?: bigint;
  occurredUntilUs?: bigint;
  /** Ordered by occurred_at (events without one are not listed), else by created_at. */
  byOccurrence?: boolean;
  /** Domains matching these patterns (domain-scope.ts). */
  scope?: DomainScope;
  after?: EventPosition;
  newestFirst: boolean;
  /** Events in a page at most. */
  limit: number;
  /** Estimated bytes a page holds at most (eventBytesSql); its first event is answered whatever its size. */
  maxBytes: number;
}

/** A page of events, and whether more follow it (rows past the count or the bytes). */
interface EventPage {
  events: StoredEvent[];
  more: boolean;
}

/**
 * Bytes an events row of `r` (EVENT_COLUMNS) costs in a reply, estimated from above: the payload's
 * JSON text (quotes and separators outweigh protobuf's framing of the same strings), the names, the
 * rel (the object id percent-encoded, at most three times its bytes) and a fixed allowance for ids,
 * times and framing. Computed by PostgreSQL on text it builds anyway.
 */
const EVENT_BYTES = `octet_length(r.payload) + 4 * octet_length(r.object_ref) + octet_length(r.device_name)
  + octet_length(r.domain) + octet_length(r.event_type) + 1024`;

/** An EventRow whose payload is null when the row is past the page (it only says that more follow). */
type PageRow = Omit<EventRow, 'payload'> & { payload: string | null };

/**
 * Events in (created_at, id) order, a strict total order (ids are unique; a group commit's events
 * share created_at). Keyset, no OFFSET: the bound on created_at alone is written out so the planner
 * can start the scan of a (…, created_at) index at the position, then settle ties on id. A domain
 * scope reads each of its domains' first rows along (domain, …, created_at) and merges them: a page
 * costs a few index probes per domain, however many events lie outside the scope.
 *
 * A page ends at `limit` events or before its estimated bytes would pass `maxBytes`, whichever
 * comes first. The running sum is taken in the statement, so a row past the page never travels with
 * its payload: only the first such row comes back (payload null), saying that more follow.
 */
export async function listEvents(db: Queryable, q: EventListQuery): Promise<EventPage> {
  const values: unknown[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const where: string[] = [];
  if (q.deviceName !== undefined) where.push(`device_name = ${param(q.deviceName)}`);
  if (q.objectRef !== undefined) where.push(`object_ref = ${param(q.objectRef)}`);
  if (q.domain !== undefined) where.push(`domain = ${param(q.domain)}`);
  if (q.eventType !== undefined) where.push(`event_type = ${param(q.eventType)}`);
  if (q.tokenId !== undefined) where.push(`token_id = ${param(q.tokenId)}::uuid`);
  if (q.sinceUs !== undefined) where.push(`created_at >= ${param(timestampFromMicros(q.sinceUs))}::timestamptz`);
  if (q.untilUs !== undefined) where.push(`created_at < ${param(timestampFromMicros(q.untilUs))}::timestamptz`);
  if (q.occurredSinceUs !== undefined) where.push(`occurred_at >= ${param(timestampFromMicros(q.occurredSinceUs))}::timestamptz`);
  if (q.occurredUntilUs !== undefined) where.push(`occurred_at < ${param(timestampFromMicros(q.occurredUntilUs))}::timestamptz`);
  // The order's column: occurred_at (index 0013, partial: events without one are not in that list) or created_at.
  const time = q.byOccurrence ? 'occurred_at' : 'created_at';
  if (q.byOccurrence) where.push('occurred_at IS NOT NULL');
  if (q.after) {
    const at = param(timestampFromMicros(q.after.us));
    const id = param(q.after.id);
    const [loose, strict] = q.newestFirst ? ['<=', '<'] : ['>=', '>'];
    where.push(`${time} ${loose} ${at}::timestamptz AND (${time} ${strict} ${at}::timestamptz OR id ${strict} ${id}::uuid)`);
  }
  const direction = q.newestFirst ? 'DESC' : 'ASC';
  const order = `ORDER BY ${time} ${direction}, id ${direction}`;
  const [limit, maxBytes] = [param(q.limit), param(q.maxBytes)];
  let source = `events e ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}`;
  if (q.scope) {
    const domains = scopeDomainsSql(param(q.scope.exact), param(q.scope.parents));
    const inner = ['domain = scope.scope_domain', ...where].join(' AND ');
    source = `(SELECT l.* FROM ${domains} CROSS JOIN LATERAL (SELECT * FROM events WHERE ${inner} ${order} LIMIT ${limit} + 1) l) e`;
  }
  // n: the row's place in the page; running: the estimated bytes of the page up to and with it.
  // Rows whose predecessors already filled the page are dropped, except the second (the first always fits).
  const text = `SELECT ${EVENT_ROW_NAMES},
       CASE WHEN n <= ${limit} AND (n = 1 OR running <= ${maxBytes}) THEN payload END AS payload
     FROM (SELECT r.*, ${EVENT_BYTES} AS bytes, sum(${EVENT_BYTES}) OVER (ORDER BY r.n) AS running
       FROM (SELECT ${EVENT_COLUMNS}, row_number() OVER (${order}) AS n
         FROM ${source}
         ${order}
         LIMIT ${limit} + 1) r) p
     WHERE p.running - p.bytes <= ${maxBytes} OR p.n <= 2
     ORDER BY p.n`;
  // One prepared statement per shape (the filters present, the order, a position): planned once per connection.
  const rows = await query<PageRow>(db, text, values, statementName('registry-list-events', text));
  const events: StoredEvent[] = [];
  for (const row of rows) {
    if (row.payload === null) break;
    events.push(toStoredEvent({ ...row, payload: row.payload }));
  }
  return { events, more: rows.length > events.length };
}
