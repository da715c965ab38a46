import type { PropertyInput } from '../../model.js';
import type { Queryable } from '../pool.js';
import { eventTypeKey } from './event-types.js';
import { fromKeyConflict } from './idempotency-keys.js';
import { query } from './query.js';
import { recordBatchStatement, type StatementShape } from './record-events-sql.js';

export interface NewObjectRow {
  /** Full identifier "{object_domain}.{object_id}". */
  id: string;
  objectDomain: string;
  objectId: string;
  objectName: string;
  objectType: string;
  deviceName: string;
  /** The token whose event creates it, if it is new. */
  tokenId: string | undefined;
}

export interface NewEventTypeRow {
  domain: string;
  eventType: string;
  displayName: string;
  displayDescription: string;
  tokenId: string | undefined;
}

/** A device to ensure, and the token whose event creates it if it is new. */
export interface NewDeviceRow {
  name: string;
  tokenId: string | undefined;
}

interface NewEventRow {
  id: string;
  objectRef: string;
  deviceName: string;
  domain: string;
  eventType: string;
  images: string[];
  videoClips: string[];
  properties: PropertyInput[];
  tokenId: string | undefined;
  /** occurred_at in microseconds since the epoch; undefined: not sent. */
  occurredUs?: bigint;
}

/** An Idempotency-Key stored with the event it recorded. */
export interface NewKeyRow {
  scope: string;
  key: string;
  requestHash: string;
  eventId: string;
}

/** What one RecordEvent(s) call writes: each distinct entity once, and the events in request order. */
interface RecordBatch {
  devices: NewDeviceRow[];
  objects: NewObjectRow[];
  types: NewEventTypeRow[];
  events: NewEventRow[];
  /** Keys of the events that carried one (distinct); undefined or empty: the statement without keys. */
  keys?: NewKeyRow[];
  /** Some event of a token may create a device or object here: the statement applies the token's limits. */
  tokenCreations?: boolean;
}

interface StoredTimes {
  createdUs: bigint;
  updatedUs: bigint;
}

/** What the statement created (device names, full object ids, eventTypeKey()s) and each event's timestamps by id. */
interface StoredBatch {
  devices: Set<string>;
  objects: Set<string>;
  types: Set<string>;
  times: Map<string, StoredTimes>;
  /** The statement's number in the commit log (migration 0004), which watchers follow. */
  commitSeq: bigint;
}

interface ResultRow {
  kind: 'device' | 'object' | 'event_type' | 'event' | 'commit_seq' | 'refused';
  key: string;
  event_type: string | null;
  created_us: string | null;
  updated_us: string | null;
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
  const events = batch.events.map((e) => ({
    id: e.id,
    object_ref: e.objectRef,
    device_name: e.deviceName,
    domain: e.domain,
    event_type: e.eventType,
    images: e.images,
    video_clips: e.videoClips,
    // Own data properties only: "__proto__" or "constructor" become ordinary keys, never a prototype.
    properties: Object.fromEntries(e.properties.map((p) => [p.key, p.value])),
    token_id: e.tokenId,
    // Text: exact beyond 2^53.
    occurred_us: e.occurredUs?.toString(),
  }));
  const eventsJson = JSON.stringify(events);
  const parameters: unknown[] = [
    devices.map((d) => d.name),
    objects.map((o) => o.id),
    objects.map((o) => o.objectDomain),
    objects.map((o) => o.objectId),
    objects.map((o) => o.objectName),
    objects.map((o) => o.objectType),
    objects.map((o) => o.deviceName),
    types.map((t) => t.domain),
    types.map((t) => t.eventType),
    types.map((t) => t.displayName),
    types.map((t) => t.displayDescription),
    eventsJson,
    devices.map((d) => d.tokenId ?? null),
    objects.map((o) => o.tokenId ?? null),
    types.map((t) => t.tokenId ?? null),
    Buffer.byteLength(eventsJson),
  ];
  const shape = { tokens: batch.tokenCreations === true, keys: (batch.keys?.length ?? 0) > 0 };
  if (shape.keys) parameters.push(...keyParameters(batch.keys ?? []));
  const rows = await run(db, shape, parameters);

  const stored: StoredBatch = { devices: new Set(), objects: new Set(), types: new Set(), times: new Map(), commitSeq: 0n };
  for (const row of rows) {
    if (row.kind === 'device') stored.devices.add(row.key);
    else if (row.kind === 'commit_seq') stored.commitSeq = BigInt(row.key);
    else if (row.kind === 'object') stored.objects.add(row.key);
    else if (row.kind === 'event_type') stored.types.add(eventTypeKey(row.key, row.event_type ?? ''));
    else if (row.created_us !== null && row.updated_us !== null) {
      stored.times.set(row.key, { createdUs: BigInt(row.created_us), updatedUs: BigInt(row.updated_us) });
    }
  }
  return stored;
}

/** The four statement texts, built once. */
const statements = new Map<string, { text: string; name: string }>();

/**
 * Runs the statement of `shape`, prepared once per connection: parsing and planning it on every
 * call cost about a third of the throughput. A key committed meanwhile becomes ALREADY_EXISTS.
 */
async function run(db: Queryable, shape: StatementShape, parameters: unknown[]): Promise<ResultRow[]> {
  const id = `${shape.tokens}-${shape.keys}`;
  let statement = statements.get(id);
  if (!statement) statements.set(id, (statement = recordBatchStatement(shape)));
  try {
    return await query<ResultRow>(db, statement.text, parameters, statement.name);
  } catch (err) {
    throw shape.keys ? fromKeyConflict(err) : err;
  }
}

/** The keys' parameters, sorted so concurrent statements lock them in one order. */
function keyParameters(keys: NewKeyRow[]): unknown[] {
  const sorted = [...keys].sort(byKey((k) => `${k.scope}\n${k.key}`));
  return [sorted.map((k) => k.scope), sorted.map((k) => k.key), sorted.map((k) => k.requestHash), sorted.map((k) => k.eventId)];
}
