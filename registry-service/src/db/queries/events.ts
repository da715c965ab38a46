import type { PropertyInput } from '../../model.js';
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
  tokenId: string | undefined;
  /** undefined: none was sent. */
  occurredUs: bigint | undefined;
  createdUs: bigint;
  updatedUs: bigint;
}

/** An events row as EVENT_COLUMNS selects it. */
export interface EventRow {
  id: string;
  object_ref: string;
  device_name: string;
  domain: string;
  event_type: string;
  /** JSON text: [images, video_clips, additional_properties]. */
  payload: string;
  token_id: string | null;
  occurred_us: string | null;
  created_us: string;
  updated_us: string;
}

/**
 * The select list of an EventRow from the events table aliased `e`. The two text arrays and the
 * properties travel as one JSON text: pg parses a text[] character by character in JavaScript, and
 * that would be the registry's largest cost per row of a list (about 15 % of its CPU for 100 events),
 * where one JSON.parse is native.
 */
export const EVENT_COLUMNS = `e.id, e.object_ref, e.device_name, e.domain, e.event_type, e.token_id,
       json_build_array(e.images, e.video_clips, e.additional_properties)::text AS payload,
       ${micros('e.created_at')} AS created_us, ${micros('e.updated_at')} AS updated_us, ${micros('e.occurred_at')} AS occurred_us`;

/** One event by id (a canonical UUID string), or undefined. */
export async function findEvent(db: Queryable, id: string): Promise<StoredEvent | undefined> {
  const [row] = await query<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = $1::uuid`, [id], 'registry-find-event');
  return row && toStoredEvent(row);
}

/** An event as EVENT_JSON selects it; also what an EventRow holds, its payload taken apart. */
export type EventJson = [
  id: string,
  objectRef: string,
  deviceName: string,
  domain: string,
  eventType: string,
  tokenId: string | null,
  images: string[],
  videoClips: string[],
  properties: Record<string, string>,
  createdUs: string,
  updatedUs: string,
  occurredUs: string | null,
];

/**
 * The select expression of one events row of `e` as a JSON array (EventJson), for statements that
 * answer many events in one JSON text (commit-tail.ts): one native JSON.parse instead of pg's
 * per-row and per-field parsing. The microseconds travel as text (exact beyond 2^53).
 */
export const EVENT_JSON = `json_build_array(e.id, e.object_ref, e.device_name, e.domain, e.event_type, e.token_id, e.images, e.video_clips,
  e.additional_properties, ${micros('e.created_at')}::text, ${micros('e.updated_at')}::text, ${micros('e.occurred_at')}::text)`;

function storedEvent(...[id, objectRef, deviceName, domain, eventType, tokenId, images, videoClips, properties, createdUs, updatedUs, occurredUs]: EventJson): StoredEvent {
  // JSON.parse defines "__proto__" as an own property (no prototype change), so entries are plain data.
  return {
    id,
    objectRef,
    deviceName,
    domain,
    eventType,
    images,
    videoClips,
    properties: Object.entries(properties).map(([key, value]) => ({ key, value })),
    tokenId: tokenId ?? undefined,
    occurredUs: occurredUs === null ? undefined : BigInt(occurredUs),
    createdUs: BigInt(createdUs),
    updatedUs: BigInt(updatedUs),
  };
}

/** Maps an EventRow. */
export function toStoredEvent(row: EventRow): StoredEvent {
  const [images, videoClips, properties] = JSON.parse(row.payload) as [string[], string[], Record<string, string>];
  return storedEvent(row.id, row.object_ref, row.device_name, row.domain, row.event_type, row.token_id, images, videoClips, properties, row.created_us, row.updated_us, row.occurred_us);
}

/** Maps an EventJson. */
export function fromEventJson(event: EventJson): StoredEvent {
  return storedEvent(...event);
}
