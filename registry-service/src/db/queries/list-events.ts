import type { Queryable } from '../pool.js';
import { EVENT_COLUMNS, toStoredEvent, type EventRow, type StoredEvent } from './events.js';
import { query, statementName, timestampFromMicros } from './query.js';

/** Where a page starts: strictly after this (created_at, id) in the list's order. */
interface EventPosition {
  createdUs: bigint;
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
  after?: EventPosition;
  newestFirst: boolean;
  limit: number;
}

/**
 * Events in (created_at, id) order, a strict total order (ids are unique; a group commit's events
 * share created_at). Keyset, no OFFSET: the bound on created_at alone is written out so the planner
 * can start the scan of a (…, created_at) index at the position, then settle ties on id.
 */
export async function listEvents(db: Queryable, q: EventListQuery): Promise<StoredEvent[]> {
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
  if (q.after) {
    const at = param(timestampFromMicros(q.after.createdUs));
    const id = param(q.after.id);
    const [loose, strict] = q.newestFirst ? ['<=', '<'] : ['>=', '>'];
    where.push(`created_at ${loose} ${at}::timestamptz AND (created_at ${strict} ${at}::timestamptz OR id ${strict} ${id}::uuid)`);
  }
  const direction = q.newestFirst ? 'DESC' : 'ASC';
  const text = `SELECT ${EVENT_COLUMNS} FROM events e
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at ${direction}, id ${direction}
     LIMIT ${param(q.limit)}`;
  // One prepared statement per shape (the filters present, the order, a position): planned once per connection.
  const rows = await query<EventRow>(db, text, values, statementName('registry-list-events', text));
  return rows.map(toStoredEvent);
}
