import type { DeviceRecord, EventTypeRecord, ObjectRecord } from '../../model.js';
import type { Queryable } from '../pool.js';
import { DEVICE_COLUMNS, toDeviceRecord, type DeviceRow } from './devices.js';
import { EVENT_TYPE_COLUMNS, toEventTypeRecord, type EventTypeRow } from './event-types.js';
import { OBJECT_COLUMNS, toObjectRecord, type ObjectRow } from './objects.js';
import { query } from './query.js';

/*
 * Entity lists page on their primary keys (keyset, no OFFSET): each page starts strictly after the
 * last key of the previous one, in the database collation's order, which ORDER BY uses too.
 */

/** Devices by name, after `afterName` when given. */
export async function listDevices(db: Queryable, q: { afterName?: string; limit: number }): Promise<DeviceRecord[]> {
  const rows = await query<DeviceRow>(
    db,
    `SELECT ${DEVICE_COLUMNS} FROM devices WHERE $1::text IS NULL OR device_name > $1 ORDER BY device_name LIMIT $2`,
    [q.afterName ?? null, q.limit],
  );
  return rows.map(toDeviceRecord);
}

/** Objects by full id, optionally of one device and/or one domain, after `afterId` when given. */
export async function listObjects(
  db: Queryable,
  q: { deviceName?: string; domain?: string; afterId?: string; limit: number },
): Promise<ObjectRecord[]> {
  const rows = await query<ObjectRow>(
    db,
    `SELECT ${OBJECT_COLUMNS} FROM objects
     WHERE ($1::text IS NULL OR device_name = $1) AND ($2::text IS NULL OR object_domain = $2) AND ($3::text IS NULL OR id > $3)
     ORDER BY id LIMIT $4`,
    [q.deviceName ?? null, q.domain ?? null, q.afterId ?? null, q.limit],
  );
  return rows.map(toObjectRecord);
}

/** Event types by (domain, event_type), optionally of one domain, after `after` when given. */
export async function listEventTypes(
  db: Queryable,
  q: { domain?: string; after?: { domain: string; eventType: string }; limit: number },
): Promise<EventTypeRecord[]> {
  const rows = await query<EventTypeRow>(
    db,
    `SELECT ${EVENT_TYPE_COLUMNS} FROM event_types
     WHERE ($1::text IS NULL OR domain = $1) AND ($2::text IS NULL OR (domain, event_type) > ($2, $3::text))
     ORDER BY domain, event_type LIMIT $4`,
    [q.domain ?? null, q.after?.domain ?? null, q.after?.eventType ?? null, q.limit],
  );
  return rows.map(toEventTypeRecord);
}
