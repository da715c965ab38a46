import type { EventTypeRecord } from '../../domain/types.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

export interface NewEventTypeRow {
  domain: string;
  eventType: string;
  displayName: string;
  displayDescription: string;
}

/** The identity of an event type as one string (JSON keeps the pair unambiguous). */
export function eventTypeKey(domain: string, eventType: string): string {
  return JSON.stringify([domain, eventType]);
}

/** Inserts the event types that do not exist yet (existing ones keep their settings); returns the keys it created. */
export async function insertEventTypes(db: Queryable, types: NewEventTypeRow[]): Promise<Set<string>> {
  const keyed = types.map((t) => ({ key: eventTypeKey(t.domain, t.eventType), ...t }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const rows = await query<{ domain: string; event_type: string }>(
    db,
    `INSERT INTO event_types (domain, event_type, display_name, display_description)
     SELECT domain, event_type, display_name, display_description
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
       WITH ORDINALITY AS t(domain, event_type, display_name, display_description, ord)
     ORDER BY ord
     ON CONFLICT (domain, event_type) DO NOTHING
     RETURNING domain, event_type`,
    [keyed.map((t) => t.domain), keyed.map((t) => t.eventType), keyed.map((t) => t.displayName), keyed.map((t) => t.displayDescription)],
  );
  return new Set(rows.map((row) => eventTypeKey(row.domain, row.event_type)));
}

interface EventTypeRow {
  domain: string;
  event_type: string;
  display_name: string;
  display_description: string;
  created_us: string;
  updated_us: string;
}

/** One event type by domain and identifier, or undefined. */
export async function findEventType(db: Queryable, domain: string, eventType: string): Promise<EventTypeRecord | undefined> {
  const [row] = await query<EventTypeRow>(
    db,
    `SELECT domain, event_type, display_name, display_description,
            ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us
     FROM event_types WHERE domain = $1 AND event_type = $2`,
    [domain, eventType],
  );
  if (!row) return undefined;
  return {
    domain: row.domain,
    eventType: row.event_type,
    displayName: row.display_name,
    displayDescription: row.display_description,
    createdAtMicros: BigInt(row.created_us),
    updatedAtMicros: BigInt(row.updated_us),
  };
}
