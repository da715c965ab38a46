import type { DeviceRecord, EventTypeRecord, ObjectRecord } from '../../model.js';
import type { Queryable } from '../pool.js';
import { DEVICE_COLUMNS, toDeviceRecord, type DeviceRow } from './devices.js';
import { EVENT_TYPE_COLUMNS, toEventTypeRecord, type EventTypeRow } from './event-types.js';
import { OBJECT_COLUMNS, toObjectRecord, type ObjectRow } from './objects.js';
import { domainMatchSql, scopeDomainsSql, type DomainScope } from './domain-scope.js';
import { query } from './query.js';

/**
 * q as an ILIKE pattern: a substring, its own wildcards (% _) and the escape (\\) taken literally.
 * The trigram GIN indexes of migration 0015 serve ILIKE '%…%' (from three characters on; shorter
 * text reads the whole index, still without touching the table rows that do not match).
 */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/*
 * Entity lists page on their primary keys (keyset, no OFFSET): each page starts strictly after the
 * last key of the previous one, in the database collation's order, which ORDER BY uses too.
 */

/**
 * Devices by name, after `afterName` when given; only those a token created when `createdByTokenId`
 * is given (its own statement, so the plan reads that token's devices along their index, 0010).
 */
export async function listDevices(db: Queryable, q: { afterName?: string; createdByTokenId?: string; q?: string; limit: number }): Promise<DeviceRecord[]> {
  // $3 is typed either way (a NULL of no type would fail the statement).
  const byToken = q.createdByTokenId === undefined ? '$3::uuid IS NULL AND ' : 'created_by_token_id = $3::uuid AND ';
  const rows = await query<DeviceRow>(
    db,
    `SELECT ${DEVICE_COLUMNS} FROM devices WHERE ${byToken}($1::text IS NULL OR device_name > $1) AND ($4::text IS NULL OR device_name ILIKE $4)
     ORDER BY device_name LIMIT $2`,
    [q.afterName ?? null, q.limit, q.createdByTokenId ?? null, q.q === undefined ? null : containsPattern(q.q)],
  );
  return rows.map(toDeviceRecord);
}

/**
 * Objects by full id, optionally of one device, one domain and/or a domain scope, after `afterId`
 * when given. A scope reads each of its domains along (object_domain, id) and merges them in id order.
 */
export async function listObjects(
  db: Queryable,
  q: { deviceName?: string; domain?: string; scope?: DomainScope; afterId?: string; q?: string; limit: number },
): Promise<ObjectRecord[]> {
  const search = q.q === undefined ? '' : ` AND (id ILIKE $${q.scope ? 7 : 5} OR object_name ILIKE $${q.scope ? 7 : 5})`;
  const filters = `($1::text IS NULL OR device_name = $1) AND ($2::text IS NULL OR object_domain = $2) AND ($3::text IS NULL OR id > $3)${search}`;
  const source = q.scope
    ? `(SELECT l.* FROM ${scopeDomainsSql('$5', '$6')} CROSS JOIN LATERAL
         (SELECT * FROM objects WHERE object_domain = scope.scope_domain AND ${filters} ORDER BY id LIMIT $4) l) o`
    : `objects o WHERE ${filters}`;
  const rows = await query<ObjectRow>(
    db,
    `SELECT ${OBJECT_COLUMNS} FROM ${source} ORDER BY id LIMIT $4`,
    [q.deviceName ?? null, q.domain ?? null, q.afterId ?? null, q.limit, ...(q.scope ? [q.scope.exact, q.scope.parents] : []), ...(q.q === undefined ? [] : [containsPattern(q.q)])],
  );
  return rows.map(toObjectRecord);
}

/** Event types by (domain, event_type), optionally of one domain and/or a domain scope, after `after` when given. */
export async function listEventTypes(
  db: Queryable,
  q: { domain?: string; scope?: DomainScope; after?: { domain: string; eventType: string }; q?: string; limit: number },
): Promise<EventTypeRecord[]> {
  // The event types are the smallest table (their count, not the events', grows the scan).
  const scoped = q.scope ? ` AND ${domainMatchSql('domain', '$5', '$6')}` : '';
  const qAt = `$${q.scope ? 7 : 5}`;
  // The expression of the index of migration 0015.
  const search = q.q === undefined ? '' : ` AND ((domain || '.' || event_type) ILIKE ${qAt} OR display_name ILIKE ${qAt})`;
  const rows = await query<EventTypeRow>(
    db,
    `SELECT ${EVENT_TYPE_COLUMNS} FROM event_types
     WHERE ($1::text IS NULL OR domain = $1) AND ($2::text IS NULL OR (domain, event_type) > ($2, $3::text))${scoped}${search}
     ORDER BY domain, event_type LIMIT $4`,
    [q.domain ?? null, q.after?.domain ?? null, q.after?.eventType ?? null, q.limit, ...(q.scope ? [q.scope.exact, q.scope.parents] : []), ...(q.q === undefined ? [] : [containsPattern(q.q)])],
  );
  return rows.map(toEventTypeRecord);
}
