import type { PropertyInput } from '../../model.js';
import { MICROS, nullable, STRING_MAP, TEXT, TEXT_ARRAY, UUID, type SqlType } from './event-sql-types.js';

/**
 * One stored field of an event: its column, the name it travels under (a select's alias, the key
 * in the write statement's events JSON), its SQL type, and the mappings between the value
 * JavaScript holds (V) and what PostgreSQL sends (R) or is sent (J).
 */
interface EventColumn<F extends string, V, R, J> {
  /** The field of StoredEvent (and, when written, of NewEventRow). */
  readonly field: F;
  readonly column: string;
  /** Default: the column's name. */
  readonly name: string;
  readonly sql: SqlType<R, J>;
  readonly read: (wire: R) => V;
  /** undefined: the database fills the column (its default), and the write statement returns it. */
  readonly write: ((value: V) => J) | undefined;
}

interface ColumnSpec<F extends string, V, R, J> {
  field: F;
  column: string;
  as?: string;
  sql: SqlType<R, J>;
  read: (wire: R) => V;
}

/** A column the write statement fills: how the value is taken from NewEventRow and how it is read back. */
export function written<F extends string, V, R, J>(spec: ColumnSpec<F, V, R, J> & { write: (value: V) => J }): EventColumn<F, V, R, J> & { readonly write: (value: V) => J } {
  return { field: spec.field, column: spec.column, name: spec.as ?? spec.column, sql: spec.sql, read: spec.read, write: spec.write };
}

/** A column the database fills (its default): read back, returned by the write statement. */
function filled<F extends string, V, R, J>(spec: ColumnSpec<F, V, R, J>): EventColumn<F, V, R, J> & { readonly write: undefined } {
  return { field: spec.field, column: spec.column, name: spec.as ?? spec.column, sql: spec.sql, read: spec.read, write: undefined };
}

/**
 * The events table, one entry per column: the write statement's events and column list, the row
 * and JSON selects, StoredEvent, NewEventRow and the mappings both ways are built from it (events.ts,
 * record-events-sql.ts), so a new field is one entry here (and its migration). The order is the
 * JSON select's order; the names keep the texts' bytes (the commit log's event_bytes) as they are.
 */
export const EVENT_TABLE = [
  written({ field: 'id', column: 'id', sql: UUID, read: (wire) => wire, write: (value) => value }),
  written({ field: 'objectRef', column: 'object_ref', sql: TEXT, read: (wire) => wire, write: (value) => value }),
  written({ field: 'deviceName', column: 'device_name', sql: TEXT, read: (wire) => wire, write: (value) => value }),
  written({ field: 'domain', column: 'domain', sql: TEXT, read: (wire) => wire, write: (value) => value }),
  written({ field: 'eventType', column: 'event_type', sql: TEXT, read: (wire) => wire, write: (value) => value }),
  written({ field: 'images', column: 'images', sql: TEXT_ARRAY, read: (wire) => wire, write: (value) => value }),
  written({ field: 'videoClips', column: 'video_clips', sql: TEXT_ARRAY, read: (wire) => wire, write: (value) => value }),
  written({
    field: 'properties',
    column: 'additional_properties',
    as: 'properties',
    sql: STRING_MAP,
    // JSON.parse defines "__proto__" as an own property (no prototype change), so entries are plain data.
    read: (wire): PropertyInput[] => Object.entries(wire).map(([key, value]) => ({ key, value })),
    // Own data properties only: "__proto__" or "constructor" become ordinary keys, never a prototype.
    write: (value) => Object.fromEntries(value.map((p) => [p.key, p.value])),
  }),
  /** The token that sent it; undefined when none did. */
  written({ field: 'tokenId', column: 'token_id', sql: nullable(UUID), read: (wire) => wire ?? undefined, write: (value) => value }),
  /** When it happened, by the device's clock; undefined when none was sent. */
  written({
    field: 'occurredUs',
    column: 'occurred_at',
    as: 'occurred_us',
    sql: nullable(MICROS),
    read: (wire) => (wire === null ? undefined : BigInt(wire)),
    write: (value) => value?.toString(),
  }),
  filled({ field: 'createdUs', column: 'created_at', as: 'created_us', sql: MICROS, read: BigInt }),
  filled({ field: 'updatedUs', column: 'updated_at', as: 'updated_us', sql: MICROS, read: BigInt }),
] as const;

type Column = (typeof EVENT_TABLE)[number];
type ValueOf<C extends Column> = ReturnType<C['read']>;
type WireOf<C extends Column> = Parameters<C['read']>[0];
type Written = Extract<Column, { write: (value: never) => unknown }>;
type Filled = Exclude<Column, Written>;

/** An events row as the registry holds it: one field per EVENT_TABLE entry. */
export type StoredEvent = { [C in Column as C['field']]: ValueOf<C> };

/** What the write statement takes of an event: the fields of the columns it fills. */
export type NewEventRow = { [C in Written as C['field']]: ValueOf<C> };

type UnsetFields = { [K in keyof NewEventRow]: undefined extends NewEventRow[K] ? K : never }[keyof NewEventRow];

/** NewEventRow whose fields that may be unset may also be left out (what insertRecordBatch takes). */
export type NewEventInput = Omit<NewEventRow, UnsetFields> & Partial<Pick<NewEventRow, UnsetFields>>;

/** What the database fills in, returned by the write statement. */
export type FilledFields = { [C in Filled as C['field']]: ValueOf<C> };

/** An event as EVENT_JSON selects it: one element per EVENT_TABLE entry, in its order. */
export type EventJson = { -readonly [I in keyof typeof EVENT_TABLE]: (typeof EVENT_TABLE)[I] extends Column ? WireOf<(typeof EVENT_TABLE)[I]> : never };

export const WRITTEN_COLUMNS: readonly Written[] = EVENT_TABLE.filter((c): c is Written => c.write !== undefined);
export const FILLED_COLUMNS: readonly Filled[] = EVENT_TABLE.filter((c): c is Filled => c.write === undefined);
