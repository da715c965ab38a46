import type { PropertyInput } from '../../domain/types.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

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

export interface EventRow {
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

/** The columns every event query selects, as EventRow. */
export const EVENT_COLUMNS = `id, object_ref, device_name, domain, event_type, images, video_clips,
  additional_properties::text AS properties, ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us`;

/** An event row as stored. */
export function toStoredEvent(row: EventRow): StoredEvent {
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

/** One event by id (a canonical UUID string), or undefined. */
export async function findEvent(db: Queryable, id: string): Promise<StoredEvent | undefined> {
  const [row] = await query<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1::uuid`, [id]);
  return row && toStoredEvent(row);
}
