import type { BatchInput, NewDeviceRow, NewEventTypeRow, NewKeyRow, NewObjectRow } from './record-batch-rows.js';
import type { StatementParameters } from './statement-parameters.js';

/** The write statement's parameters (record-events-sql.ts). */
export type Parameters = StatementParameters<BatchInput>;

/** A column of an entity inserted from one array parameter per column (unnestRows). */
interface ArrayColumn<R> {
  column: string;
  /** The SQL type of one element. */
  type: string;
  value: (row: R) => unknown;
}

export const DEVICE_COLUMNS: ArrayColumn<NewDeviceRow>[] = [
  { column: 'device_name', type: 'text', value: (d) => d.name },
  { column: 'created_by_token_id', type: 'uuid', value: (d) => d.tokenId ?? null },
];
export const OBJECT_COLUMNS: ArrayColumn<NewObjectRow>[] = [
  { column: 'id', type: 'text', value: (o) => o.id },
  { column: 'object_domain', type: 'text', value: (o) => o.objectDomain },
  { column: 'object_id', type: 'text', value: (o) => o.objectId },
  { column: 'object_name', type: 'text', value: (o) => o.objectName },
  { column: 'object_type', type: 'text', value: (o) => o.objectType },
  { column: 'device_name', type: 'text', value: (o) => o.deviceName },
  { column: 'created_by_token_id', type: 'uuid', value: (o) => o.tokenId ?? null },
];
export const EVENT_TYPE_COLUMNS: ArrayColumn<NewEventTypeRow>[] = [
  { column: 'domain', type: 'text', value: (t) => t.domain },
  { column: 'event_type', type: 'text', value: (t) => t.eventType },
  { column: 'display_name', type: 'text', value: (t) => t.displayName },
  { column: 'display_description', type: 'text', value: (t) => t.displayDescription },
  { column: 'created_by_token_id', type: 'uuid', value: (t) => t.tokenId ?? null },
];
export const KEY_COLUMNS: ArrayColumn<NewKeyRow>[] = [
  { column: 'scope', type: 'text', value: (k) => k.scope },
  { column: 'key', type: 'text', value: (k) => k.key },
  { column: 'request_hash', type: 'text', value: (k) => k.requestHash },
  { column: 'event_id', type: 'uuid', value: (k) => k.eventId },
];

/**
 * `INSERT INTO table (columns) SELECT columns FROM unnest(one array parameter per column) WITH
 * ORDINALITY AS t(columns, ord)`, the arrays taken from `rows` of the input; `constants` are
 * further columns with one SQL value for every row.
 */
export function unnestRows<R>(p: Parameters, table: string, rows: (input: BatchInput) => R[], columns: ArrayColumn<R>[], constants: Record<string, string> = {}): string {
  const arrays = columns.map((c) => p.add(`${c.type}[]`, (input) => rows(input).map(c.value)));
  const names = columns.map((c) => c.column);
  const into = [...names, ...Object.keys(constants)].join(', ');
  const values = [...names, ...Object.values(constants)].join(', ');
  return `INSERT INTO ${table} (${into})
  SELECT ${values} FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS t(${names.join(', ')}, ord)`;
}
