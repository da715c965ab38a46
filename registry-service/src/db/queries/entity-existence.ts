import type { Queryable } from '../pool.js';
import { eventTypeKey } from './event-types.js';
import { query } from './query.js';

/** Which of these exist, in one round trip: device names, full object ids and eventTypeKey()s. */
export async function existingEntities(
  db: Queryable,
  wanted: { devices: string[]; objects: string[]; types: Array<{ domain: string; eventType: string }> },
): Promise<{ devices: Set<string>; objects: Set<string>; types: Set<string> }> {
  const rows = await query<{ kind: string; key: string; event_type: string | null }>(
    db,
    `SELECT 'device' AS kind, device_name AS key, NULL AS event_type FROM devices WHERE device_name = ANY($1::text[])
     UNION ALL SELECT 'object', id, NULL FROM objects WHERE id = ANY($2::text[])
     UNION ALL SELECT 'event_type', domain, event_type FROM event_types
       WHERE (domain, event_type) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
    [wanted.devices, wanted.objects, wanted.types.map((t) => t.domain), wanted.types.map((t) => t.eventType)],
  );
  const found = { devices: new Set<string>(), objects: new Set<string>(), types: new Set<string>() };
  for (const r of rows) {
    if (r.kind === 'device') found.devices.add(r.key);
    else if (r.kind === 'object') found.objects.add(r.key);
    else found.types.add(eventTypeKey(r.key, r.event_type ?? ''));
  }
  return found;
}
