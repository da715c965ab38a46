import type { Queryable } from '../pool.js';
import { EVENT_TABLE, FILLED_COLUMNS, WRITTEN_COLUMNS, type EventJson, type FilledFields, type NewEventInput, type StoredEvent } from './event-columns.js';
import { query } from './query.js';

export type { EventJson, StoredEvent } from './event-columns.js';

/** A column's mapping from what PostgreSQL sent, untyped: each entry's own types are checked in EVENT_TABLE. */
type Read = (wire: unknown) => unknown;

const PAYLOAD = EVENT_TABLE.filter((c) => c.sql.payload);
const OWN = EVENT_TABLE.filter((c) => !c.sql.payload);

/** An events row as EVENT_COLUMNS selects it: a column per scalar entry, the payload's entries in one JSON text. */
export type EventRow = Record<string, unknown> & { payload: string };

/**
 * The select expression of the payload of the events row `e`: the entries whose type travels in
 * JSON (arrays, jsonb), also what a commit's events weigh (commit-log.ts).
 */
export const eventPayloadSql = (e: string): string => `json_build_array(${PAYLOAD.map((c) => c.sql.select(`${e}.${c.column}`)).join(', ')})`;

/** The aliases of EVENT_COLUMNS but the payload, for a statement that selects them again (list-events.ts). */
export const EVENT_ROW_NAMES = OWN.map((c) => c.name).join(', ');

/**
 * The select list of an EventRow from the events table aliased `e`. The two text arrays and the
 * properties travel as one JSON text: pg parses a text[] character by character in JavaScript, and
 * that would be the registry's largest cost per row of a list (about 15 % of its CPU for 100 events),
 * where one JSON.parse is native.
 */
export const EVENT_COLUMNS = [...OWN.map((c) => `${c.sql.select(`e.${c.column}`)} AS ${c.name}`), `${eventPayloadSql('e')}::text AS payload`].join(', ');

/**
 * The select expression of one events row of `e` as a JSON array (EventJson), for statements that
 * answer many events in one JSON text (commit-tail.ts): one native JSON.parse instead of pg's
 * per-row and per-field parsing. The microseconds travel as text (exact beyond 2^53).
 */
export const EVENT_JSON = `json_build_array(${EVENT_TABLE.map((c) => c.sql.select(`e.${c.column}`)).join(', ')})`;

// Each mapping with where its value sits: a row's column (by name) or the payload's element (by index).
const FROM_ROW = EVENT_TABLE.map((c) => ({ field: c.field, name: c.name, at: PAYLOAD.indexOf(c as (typeof PAYLOAD)[number]), read: c.read as Read }));
const FROM_JSON = EVENT_TABLE.map((c) => ({ field: c.field, read: c.read as Read }));

/** Maps an EventRow. */
export function toStoredEvent(row: EventRow): StoredEvent {
  const payload = JSON.parse(row.payload) as unknown[];
  const event: Record<string, unknown> = {};
  for (const c of FROM_ROW) event[c.field] = c.read(c.at < 0 ? row[c.name] : payload[c.at]);
  return event as StoredEvent;
}

/** Maps an EventJson. */
export function fromEventJson(json: EventJson): StoredEvent {
  const event: Record<string, unknown> = {};
  FROM_JSON.forEach((c, i) => (event[c.field] = c.read(json[i])));
  return event as StoredEvent;
}

/** The events as the write statement's JSON text: one object per event, keyed by the written entries' names. */
export function eventsJsonText(events: readonly NewEventInput[]): string {
  return JSON.stringify(
    events.map((e) => {
      const json: Record<string, unknown> = {};
      // undefined (an unset nullable) leaves the key out: the statement reads NULL.
      for (const c of WRITTEN_COLUMNS) json[c.name] = (c.write as (value: unknown) => unknown)(e[c.field]);
      return json;
    }),
  );
}

/** What the database filled in, from the write statement's row (its FILLED_COLUMNS by name). */
export function filledFields(row: Record<string, unknown>): FilledFields {
  const fields: Record<string, unknown> = {};
  for (const c of FILLED_COLUMNS) fields[c.field] = (c.read as Read)(row[c.name]);
  return fields as FilledFields;
}

/** One event by id (a canonical UUID string), or undefined. */
export async function findEvent(db: Queryable, id: string): Promise<StoredEvent | undefined> {
  const [row] = await query<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = $1::uuid`, [id], 'registry-find-event');
  return row && toStoredEvent(row);
}
