import type { PropertyInput } from '../../domain/types.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

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

export interface StoredTimes {
  createdUs: bigint;
  updatedUs: bigint;
}

/**
 * Inserts events in one multi-row statement (a batch costs one round trip) and returns each
 * event's timestamps by id. Rows travel as one jsonb array so ordered lists need no 2-D SQL arrays.
 */
export async function insertEvents(db: Queryable, events: NewEventRow[]): Promise<Map<string, StoredTimes>> {
  const payload = events.map((e) => ({
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
  const rows = await query<{ id: string; created_us: string; updated_us: string }>(
    db,
    `INSERT INTO events (id, object_ref, device_name, domain, event_type, images, video_clips, additional_properties)
     SELECT (e->>'id')::uuid, e->>'object_ref', e->>'device_name', e->>'domain', e->>'event_type',
            ARRAY(SELECT x FROM jsonb_array_elements_text(e->'images') WITH ORDINALITY AS i(x, n) ORDER BY n),
            ARRAY(SELECT x FROM jsonb_array_elements_text(e->'video_clips') WITH ORDINALITY AS v(x, n) ORDER BY n),
            e->'properties'
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(e, ord)
     ORDER BY ord
     RETURNING id, ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us`,
    [JSON.stringify(payload)],
  );
  return new Map(rows.map((row) => [row.id, { createdUs: BigInt(row.created_us), updatedUs: BigInt(row.updated_us) }]));
}

export interface StoredEvent {
  id: string;
  objectRef: string;
  deviceName: string;
  domain: string;
  eventType: string;
  images: string[];
  videoClips: string[];
  properties: PropertyInput[];
  createdUs: bigint;
  updatedUs: bigint;
}

interface EventRow {
  id: string;
  object_ref: string;
  device_name: string;
  domain: string;
  event_type: string;
  images: string[];
  video_clips: string[];
  properties: string;
  created_us: string;
  updated_us: string;
}

/** One event by id (a canonical UUID string), or undefined. */
export async function findEvent(db: Queryable, id: string): Promise<StoredEvent | undefined> {
  const [row] = await query<EventRow>(
    db,
    `SELECT id, object_ref, device_name, domain, event_type, images, video_clips,
            additional_properties::text AS properties,
            ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us
     FROM events WHERE id = $1::uuid`,
    [id],
  );
  if (!row) return undefined;
  // JSON.parse defines "__proto__" as an own property (no prototype change), so entries are plain data.
  const parsed = JSON.parse(row.properties) as Record<string, string>;
  return {
    id: row.id,
    objectRef: row.object_ref,
    deviceName: row.device_name,
    domain: row.domain,
    eventType: row.event_type,
    images: row.images,
    videoClips: row.video_clips,
    properties: Object.entries(parsed).map(([key, value]) => ({ key, value })),
    createdUs: BigInt(row.created_us),
    updatedUs: BigInt(row.updated_us),
  };
}
