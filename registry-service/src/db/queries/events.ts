import type { Queryable } from '../pool.js';
import { EVENT_TABLE, FILLED_COLUMNS, WRITTEN_COLUMNS, type EventJson, type FilledFields, type NewEventInput, type StoredEvent } from './event-columns.js';
import { compileObjectMapper } from './object-mapper.js';
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

// Each mapping compiled once (object-mapper.ts): a row's value sits in its column (by name) or in the payload (by index).
const fromRow = compileObjectMapper(EVENT_TABLE.map((c) => (c.sql.payload ? { key: c.field, source: 1, at: PAYLOAD.indexOf(c as (typeof PAYLOAD)[number]), map: c.read as Read } : { key: c.field, source: 0, at: c.name, map: c.read as Read })));
const fromJson = compileObjectMapper(EVENT_TABLE.map((c, i) => ({ key: c.field, source: 0, at: i, map: c.read as Read })));
// undefined (an unset nullable) is left out by JSON.stringify: the statement reads NULL.
const toJson = compileObjectMapper(WRITTEN_COLUMNS.map((c) => ({ key: c.name, source: 0, at: c.field, map: c.write as Read })));
const toFilled = compileObjectMapper(FILLED_COLUMNS.map((c) => ({ key: c.field, source: 0, at: c.name, map: c.read as Read })));

/** Maps an EventRow. */
export function toStoredEvent(row: EventRow): StoredEvent {
  return fromRow(row, JSON.parse(row.payload)) as StoredEvent;
}

/** Maps an EventJson. */
export function fromEventJson(json: EventJson): StoredEvent {
  return fromJson(json) as StoredEvent;
}

/** The events as the write statement's JSON text: one object per event, keyed by the written entries' names. */
export function eventsJsonText(events: readonly NewEventInput[]): string {
  return JSON.stringify(events.map((e) => toJson(e)));
}

/** What the database filled in, from the write statement's row (its FILLED_COLUMNS by name). */
export function filledFields(row: Record<string, unknown>): FilledFields {
  return toFilled(row) as unknown as FilledFields;
}

/** One event by id (a canonical UUID string), or undefined. */
export async function findEvent(db: Queryable, id: string): Promise<StoredEvent | undefined> {
  const [row] = await query<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = $1::uuid`, [id], 'registry-find-event');
  return row && toStoredEvent(row);
}
