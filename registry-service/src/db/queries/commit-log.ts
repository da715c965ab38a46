import type { DeviceRecord, EventTypeRecord, ObjectRecord } from '../../domain/types.js';
import type { Queryable } from '../pool.js';
import { DEVICE_COLUMNS, toDeviceRecord, type DeviceRow } from './devices.js';
import { EVENT_TYPE_COLUMNS, eventTypeKey, toEventTypeRecord, type EventTypeRow } from './event-types.js';
import { EVENT_COLUMNS, toStoredEvent, type EventRow, type StoredEvent } from './events.js';
import { OBJECT_COLUMNS, toObjectRecord, type ObjectRow } from './objects.js';
import { query } from './query.js';

/** One commit of the log: what it created, each list in delivery order (migration 0002). */
export interface LoggedCommit {
  seq: bigint;
  deviceNames: string[];
  objectIds: string[];
  types: Array<{ domain: string; eventType: string }>;
  eventIds: string[];
}

/** The number of the latest commit (0 before the first). */
export async function commitHead(db: Queryable): Promise<bigint> {
  const [row] = await query<{ seq: string }>(db, 'SELECT seq FROM commit_sequence');
  return BigInt(row?.seq ?? '0');
}

/** Commits numbered from `fromSeq` on, in order, at most `limit`. */
export async function commitsFrom(db: Queryable, fromSeq: bigint, limit: number): Promise<LoggedCommit[]> {
  const rows = await query<{ seq: string; device_names: string[]; object_ids: string[]; type_domains: string[]; type_names: string[]; event_ids: string[] }>(
    db,
    `SELECT seq, device_names, object_ids, type_domains, type_names, event_ids
     FROM commit_log WHERE seq >= $1 ORDER BY seq LIMIT $2`,
    [fromSeq.toString(), limit],
  );
  return rows.map((row) => ({
    seq: BigInt(row.seq),
    deviceNames: row.device_names,
    objectIds: row.object_ids,
    types: row.type_domains.map((domain, i) => ({ domain, eventType: row.type_names[i] ?? '' })),
    eventIds: row.event_ids,
  }));
}

/** The records the given commits created, by key; a key whose row is gone (retention) is absent. */
export interface CommitRecords {
  devices: Map<string, DeviceRecord>;
  objects: Map<string, ObjectRecord>;
  types: Map<string, EventTypeRecord>;
  events: Map<string, StoredEvent>;
}

/** One primary-key lookup per kind that has keys (events usually only). */
export async function recordsOf(db: Queryable, commits: LoggedCommit[]): Promise<CommitRecords> {
  const names = commits.flatMap((c) => c.deviceNames);
  const objectIds = commits.flatMap((c) => c.objectIds);
  const types = commits.flatMap((c) => c.types);
  const eventIds = commits.flatMap((c) => c.eventIds);
  const [devices, objects, eventTypes, events] = await Promise.all([
    names.length === 0 ? [] : query<DeviceRow>(db, `SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_name = ANY($1::text[])`, [names]),
    objectIds.length === 0 ? [] : query<ObjectRow>(db, `SELECT ${OBJECT_COLUMNS} FROM objects WHERE id = ANY($1::text[])`, [objectIds]),
    types.length === 0
      ? []
      : query<EventTypeRow>(
          db,
          `SELECT ${EVENT_TYPE_COLUMNS} FROM event_types WHERE (domain, event_type) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
          [types.map((t) => t.domain), types.map((t) => t.eventType)],
        ),
    eventIds.length === 0 ? [] : query<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE id = ANY($1::uuid[])`, [eventIds]),
  ]);
  return {
    devices: new Map(devices.map((r) => [r.device_name, toDeviceRecord(r)])),
    objects: new Map(objects.map((r) => [r.id, toObjectRecord(r)])),
    types: new Map(eventTypes.map((r) => [eventTypeKey(r.domain, r.event_type), toEventTypeRecord(r)])),
    events: new Map(events.map((r) => [r.id, toStoredEvent(r)])),
  };
}
