import { micros } from './query.js';

/**
 * How values of one SQL type travel (event-columns.ts). R: what a select of it yields in
 * JavaScript, the same in a pg row and inside a JSON text (so one read mapping serves both); J: what
 * the write statement's events JSON carries for it.
 */
export interface SqlType<R, J> {
  /** The SQL type `select` yields (a NULL of it heads a UNION). */
  readonly selected: string;
  /** The SQL selecting `column` so that it arrives as R. */
  select(column: string): string;
  /** The SQL taking the value under `key` out of the jsonb object `e`. */
  fromJson(e: string, key: string): string;
  /**
   * Travels in a row's payload JSON text (EVENT_COLUMNS) rather than as a column of its own: pg
   * parses a text[] or jsonb column in JavaScript, character by character, where one JSON.parse
   * of the payload is native.
   */
  readonly payload: boolean;
  /** Never set: carries R and J for the compiler. */
  readonly types?: { read: R; write: J };
}

export const TEXT: SqlType<string, string> = { selected: 'text', select: (c) => c, fromJson: (e, k) => `${e}->>'${k}'`, payload: false };

export const UUID: SqlType<string, string> = { selected: 'uuid', select: (c) => c, fromJson: (e, k) => `(${e}->>'${k}')::uuid`, payload: false };

/** In order (WITH ORDINALITY: jsonb_array_elements_text promises no order of its own). */
export const TEXT_ARRAY: SqlType<string[], string[]> = {
  selected: 'text[]',
  select: (c) => c,
  fromJson: (e, k) => `ARRAY(SELECT x FROM jsonb_array_elements_text(${e}->'${k}') WITH ORDINALITY AS a(x, n) ORDER BY n)`,
  payload: true,
};

/** A jsonb object of strings. */
export const STRING_MAP: SqlType<Record<string, string>, Record<string, string>> = { selected: 'jsonb', select: (c) => c, fromJson: (e, k) => `${e}->'${k}'`, payload: true };

/** A timestamptz as whole microseconds since the epoch, in text both ways: exact beyond 2^53. */
export const MICROS: SqlType<string, string> = {
  selected: 'text',
  select: (c) => `${micros(c)}::text`,
  fromJson: (e, k) => `timestamptz 'epoch' + (${e}->>'${k}')::int8 * interval '1 microsecond'`,
  payload: false,
};

/** The same type where the column may be NULL: read as null, written by leaving the key out. */
export function nullable<R, J>(type: SqlType<R, J>): SqlType<R | null, J | undefined> {
  return type as SqlType<R | null, J | undefined>;
}
