import type { PropertyInput } from '../../domain/types.js';
import type { Queryable } from '../pool.js';
import { eventTypeKey } from './event-types.js';
import { fromKeyConflict } from './idempotency-keys.js';
import { micros, query } from './query.js';

export interface NewObjectRow {
  /** Full identifier "{object_domain}.{object_id}". */
  id: string;
  objectDomain: string;
  objectId: string;
  objectName: string;
  objectType: string;
  deviceName: string;
}

export interface NewEventTypeRow {
  domain: string;
  eventType: string;
  displayName: string;
  displayDescription: string;
}

export interface NewEventRow {
  id: string;
  objectRef: string;
  deviceName: string;
  domain: string;
  eventType: string;
  images: string[];
  videoClips: string[];
  properties: PropertyInput[];
}

/** An Idempotency-Key stored with the event it recorded. */
export interface NewKeyRow {
  scope: string;
  key: string;
  requestHash: string;
  eventId: string;
}

/** What one RecordEvent(s) call writes: each distinct entity once, and the events in request order. */
export interface RecordBatch {
  devices: string[];
  objects: NewObjectRow[];
  types: NewEventTypeRow[];
  events: NewEventRow[];
  /** Keys of the events that carried one (distinct); undefined or empty: the statement without keys. */
  keys?: NewKeyRow[];
}

export interface StoredTimes {
  createdUs: bigint;
  updatedUs: bigint;
}

/** What the statement created (device names, full object ids, eventTypeKey()s) and each event's timestamps by id. */
export interface StoredBatch {
  devices: Set<string>;
  objects: Set<string>;
  types: Set<string>;
  times: Map<string, StoredTimes>;
  /** The statement's number in the commit log (migration 0004), which watchers follow. */
  commitSeq: bigint;
}

/*
 * One statement, so one round trip and no BEGIN/COMMIT: a single statement is atomic on its own
 * (a failing event rolls back the entities too). Each CTE inserts with ON CONFLICT DO NOTHING, so a
 * RETURNed row is one this call created and an existing row is kept unchanged; a concurrent creator's
 * uncommitted row makes the insert wait for its outcome, as in separate statements.
 *
 * Sibling CTEs run in an unspecified order and share one snapshot. Each insert therefore first counts
 * the previous CTE's rows (a one-time filter that runs it to completion): devices, objects, event
 * types, events, always in that order and each list sorted, so concurrent calls take unique-index
 * locks in one global order and cannot deadlock. Foreign keys hold although the new parent rows are
 * invisible to the CTEs' snapshot: Postgres checks them in AFTER triggers at the end of the statement,
 * which see every row the statement inserted (and rows other transactions committed meanwhile).
 */
const RECORD_BATCH_CTES = `
WITH new_devices AS (
  INSERT INTO devices (device_name, kind)
  SELECT name, 'generic' FROM unnest($1::text[]) WITH ORDINALITY AS t(name, ord)
  ORDER BY ord
  ON CONFLICT (device_name) DO NOTHING
  RETURNING device_name
), new_objects AS (
  INSERT INTO objects (id, object_domain, object_id, object_name, object_type, device_name)
  SELECT id, object_domain, object_id, object_name, object_type, device_name
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
    WITH ORDINALITY AS t(id, object_domain, object_id, object_name, object_type, device_name, ord)
  WHERE (SELECT count(*) FROM new_devices) >= 0
  ORDER BY ord
  ON CONFLICT (id) DO NOTHING
  RETURNING id
), new_event_types AS (
  INSERT INTO event_types (domain, event_type, display_name, display_description)
  SELECT domain, event_type, display_name, display_description
  FROM unnest($8::text[], $9::text[], $10::text[], $11::text[])
    WITH ORDINALITY AS t(domain, event_type, display_name, display_description, ord)
  WHERE (SELECT count(*) FROM new_objects) >= 0
  ORDER BY ord
  ON CONFLICT (domain, event_type) DO NOTHING
  RETURNING domain, event_type
), new_events AS (
  INSERT INTO events (id, object_ref, device_name, domain, event_type, images, video_clips, additional_properties)
  SELECT (e->>'id')::uuid, e->>'object_ref', e->>'device_name', e->>'domain', e->>'event_type',
         ARRAY(SELECT x FROM jsonb_array_elements_text(e->'images') WITH ORDINALITY AS i(x, n) ORDER BY n),
         ARRAY(SELECT x FROM jsonb_array_elements_text(e->'video_clips') WITH ORDINALITY AS v(x, n) ORDER BY n),
         e->'properties'
  FROM jsonb_array_elements($12::jsonb) WITH ORDINALITY AS t(e, ord)
  WHERE (SELECT count(*) FROM new_event_types) >= 0
  ORDER BY ord
  RETURNING id, ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us
)`;

/*
 * The keys go last, after their events (so lock order stays global), plain INSERT without ON CONFLICT:
 * a key another transaction committed meanwhile fails the statement with a unique violation, and
 * nothing of it is committed (fromKeyConflict → ALREADY_EXISTS, then the caller replays). A data-
 * modifying CTE always runs to completion, referenced or not; the FK to events is checked at the end.
 */
const KEYS_CTE = `, new_keys AS (
  INSERT INTO idempotency_keys (scope, key, request_hash, event_id)
  SELECT scope, key, request_hash, event_id
  FROM unnest($13::text[], $14::text[], $15::text[], $16::uuid[]) WITH ORDINALITY AS t(scope, key, request_hash, event_id, ord)
  WHERE (SELECT count(*) FROM new_events) >= 0
  ORDER BY ord
  RETURNING 1
)`;

/*
 * The commit log row goes LAST, gated on the previous CTE like the others: nextval runs after every
 * insert, so after every wait on another writer's uncommitted row (see migration 0004 for why that
 * orders commits causally). It holds no lock: concurrent statements never wait for each other here.
 */
const logCte = (after: string) => `, logged AS (
  INSERT INTO commit_log (seq, device_names, object_ids, type_domains, type_names, event_ids)
  SELECT nextval('commit_seq'),
         ARRAY(SELECT device_name FROM new_devices ORDER BY device_name),
         ARRAY(SELECT id FROM new_objects ORDER BY id),
         ARRAY(SELECT domain FROM new_event_types ORDER BY domain, event_type),
         ARRAY(SELECT event_type FROM new_event_types ORDER BY domain, event_type),
         ARRAY(SELECT (e->>'id')::uuid FROM jsonb_array_elements($12::jsonb) WITH ORDINALITY AS t(e, ord) ORDER BY ord)
  WHERE (SELECT count(*) FROM ${after}) >= 0
  RETURNING seq
)`;

const RECORD_BATCH_SELECT = `
SELECT 'device' AS kind, device_name AS key, NULL AS event_type, NULL::int8 AS created_us, NULL::int8 AS updated_us FROM new_devices
UNION ALL SELECT 'object', id, NULL, NULL, NULL FROM new_objects
UNION ALL SELECT 'event_type', domain, event_type, NULL, NULL FROM new_event_types
UNION ALL SELECT 'event', id::text, NULL, created_us, updated_us FROM new_events
UNION ALL SELECT 'commit_seq', seq::text, NULL, NULL, NULL FROM logged`;

/** Events without a key (the usual case) use the statement without the keys' CTE: they pay nothing for it. */
const RECORD_BATCH_SQL = RECORD_BATCH_CTES + logCte('new_events') + RECORD_BATCH_SELECT;
const RECORD_BATCH_WITH_KEYS_SQL = RECORD_BATCH_CTES + KEYS_CTE + logCte('new_keys') + RECORD_BATCH_SELECT;

interface ResultRow {
  kind: 'device' | 'object' | 'event_type' | 'event' | 'commit_seq';
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
  const devices = [...batch.devices].sort();
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
  }));
  const parameters = [
    devices,
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
    JSON.stringify(events),
  ];
  // Prepared once per connection: parsing and planning this statement on every call cost about a third of the throughput.
  const rows = batch.keys?.length ? await insertWithKeys(db, parameters, batch.keys) : await query<ResultRow>(db, RECORD_BATCH_SQL, parameters, 'registry-record-batch');

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

/** The statement with the keys' CTE; keys sorted so concurrent statements lock them in one order. */
async function insertWithKeys(db: Queryable, parameters: unknown[], keys: NewKeyRow[]): Promise<ResultRow[]> {
  const sorted = [...keys].sort(byKey((k) => `${k.scope}\n${k.key}`));
  const values = [...parameters, sorted.map((k) => k.scope), sorted.map((k) => k.key), sorted.map((k) => k.requestHash), sorted.map((k) => k.eventId)];
  try {
    return await query<ResultRow>(db, RECORD_BATCH_WITH_KEYS_SQL, values, 'registry-record-batch-keys');
  } catch (err) {
    throw fromKeyConflict(err);
  }
}
