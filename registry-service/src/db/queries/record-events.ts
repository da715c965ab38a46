import type { Queryable } from '../pool.js';
import type { FilledFields, NewEventInput } from './event-columns.js';
import { eventTypeKey } from './event-types.js';
import { eventsJsonText, filledFields } from './events.js';
import { fromKeyConflict } from './idempotency-keys.js';
import { query } from './query.js';
import type { NewDeviceRow, NewEventTypeRow, NewKeyRow, NewObjectRow } from './record-batch-rows.js';
import { recordBatchStatement, type StatementShape } from './record-events-sql.js';

/** What one RecordEvent(s) call writes: each distinct entity once, and the events in request order. */
interface RecordBatch {
  devices: NewDeviceRow[];
  objects: NewObjectRow[];
  types: NewEventTypeRow[];
  events: NewEventInput[];
  /** Keys of the events that carried one (distinct); undefined or empty: the statement without keys. */
  keys?: NewKeyRow[];
  /** Some event of a token may create a device or object here: the statement applies the token's limits. */
  tokenCreations?: boolean;
}

/** What the statement created (device names, full object ids, eventTypeKey()s) and what the database filled in of each event, by id. */
interface StoredBatch {
  devices: Set<string>;
  objects: Set<string>;
  types: Set<string>;
  times: Map<string, FilledFields>;
  /** The statement's number in the commit log (migration 0004), which watchers follow. */
  commitSeq: bigint;
}

/** A row of the statement: what it created, and for an event the filled columns (FILLED_COLUMNS, by name). */
interface ResultRow extends Record<string, unknown> {
  kind: 'device' | 'object' | 'event_type' | 'event' | 'commit_seq' | 'refused';
  key: string;
  event_type: string | null;
}

const byKey = <T>(key: (item: T) => string) => (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/**
 * Ensures the batch's devices, objects and event types and inserts its events in ONE statement
 * (one round trip; all or none). Reports which entities this statement created.
 */
export async function insertRecordBatch(db: Queryable, batch: RecordBatch): Promise<StoredBatch> {
  // Sorted so concurrent calls take unique-index locks in the same order (no deadlocks).
  const devices = [...batch.devices].sort(byKey((d) => d.name));
  const objects = [...batch.objects].sort(byKey((o) => o.id));
  const types = [...batch.types].sort(byKey((t) => eventTypeKey(t.domain, t.eventType)));
  // Events travel as one jsonb array so ordered lists need no 2-D SQL arrays.
  const input = { devices, objects, types, eventsJson: eventsJsonText(batch.events), keys: sortedKeys(batch.keys ?? []) };
  const shape = { tokens: batch.tokenCreations === true, keys: input.keys.length > 0 };
  const rows = await run(db, shape, recordBatchStatement(shape).values(input));

  const stored: StoredBatch = { devices: new Set(), objects: new Set(), types: new Set(), times: new Map(), commitSeq: 0n };
  for (const row of rows) {
    if (row.kind === 'device') stored.devices.add(row.key);
    else if (row.kind === 'commit_seq') stored.commitSeq = BigInt(row.key);
    else if (row.kind === 'object') stored.objects.add(row.key);
    else if (row.kind === 'event_type') stored.types.add(eventTypeKey(row.key, row.event_type ?? ''));
    else if (row.kind === 'event') stored.times.set(row.key, filledFields(row));
  }
  return stored;
}

/**
 * Runs the statement of `shape`, prepared once per connection: parsing and planning it on every
 * call cost about a third of the throughput. A key committed meanwhile becomes ALREADY_EXISTS.
 */
async function run(db: Queryable, shape: StatementShape, parameters: unknown[]): Promise<ResultRow[]> {
  const statement = recordBatchStatement(shape);
  try {
    return await query<ResultRow>(db, statement.text, parameters, statement.name);
  } catch (err) {
    throw shape.keys ? fromKeyConflict(err) : err;
  }
}

/** The keys sorted, so concurrent statements lock them in one order. */
function sortedKeys(keys: NewKeyRow[]): NewKeyRow[] {
  return [...keys].sort(byKey((k) => `${k.scope}\n${k.key}`));
}
