import type { EventTypeRecord } from '../../model.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

/** The identity of an event type as one string (JSON keeps the pair unambiguous). */
export function eventTypeKey(domain: string, eventType: string): string {
  return JSON.stringify([domain, eventType]);
}

export interface EventTypeRow {
  domain: string;
  event_type: string;
  display_name: string;
  display_description: string;
  created_by_token_id: string | null;
  created_us: string;
  updated_us: string;
}

/** The columns every event type query selects, as EventTypeRow. */
export const EVENT_TYPE_COLUMNS = `domain, event_type, display_name, display_description, created_by_token_id,
  ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us`;

/** An event type row as the domain record. */
export function toEventTypeRecord(row: EventTypeRow): EventTypeRecord {
  return {
    domain: row.domain,
    eventType: row.event_type,
    displayName: row.display_name,
    displayDescription: row.display_description,
    createdByTokenId: row.created_by_token_id ?? undefined,
    createdAtMicros: BigInt(row.created_us),
    updatedAtMicros: BigInt(row.updated_us),
  };
}

/** One event type by domain and identifier, or undefined. */
export async function findEventType(db: Queryable, domain: string, eventType: string): Promise<EventTypeRecord | undefined> {
  const [row] = await query<EventTypeRow>(db, `SELECT ${EVENT_TYPE_COLUMNS} FROM event_types WHERE domain = $1 AND event_type = $2`, [
    domain,
    eventType,
  ]);
  return row && toEventTypeRecord(row);
}
