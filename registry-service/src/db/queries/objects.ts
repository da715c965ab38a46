import type { ObjectRecord } from '../../domain/types.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

export interface NewObjectRow {
  id: string;
  objectDomain: string;
  objectId: string;
  objectName: string;
  objectType: string;
  deviceName: string;
}

/** Inserts the objects that do not exist yet and returns the full ids it created. */
export async function insertObjects(db: Queryable, objects: NewObjectRow[]): Promise<Set<string>> {
  const sorted = [...objects].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const column = (pick: (o: NewObjectRow) => string): string[] => sorted.map(pick);
  const rows = await query<{ id: string }>(
    db,
    `INSERT INTO objects (id, object_domain, object_id, object_name, object_type, device_name)
     SELECT id, object_domain, object_id, object_name, object_type, device_name
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
       WITH ORDINALITY AS t(id, object_domain, object_id, object_name, object_type, device_name, ord)
     ORDER BY ord
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    [
      column((o) => o.id),
      column((o) => o.objectDomain),
      column((o) => o.objectId),
      column((o) => o.objectName),
      column((o) => o.objectType),
      column((o) => o.deviceName),
    ],
  );
  return new Set(rows.map((row) => row.id));
}

interface ObjectRow {
  id: string;
  object_domain: string;
  object_id: string;
  object_name: string;
  object_type: string;
  device_name: string;
  created_us: string;
  updated_us: string;
}

/** One object by its full identifier "{object_domain}.{object_id}", or undefined. */
export async function findObject(db: Queryable, id: string): Promise<ObjectRecord | undefined> {
  const [row] = await query<ObjectRow>(
    db,
    `SELECT id, object_domain, object_id, object_name, object_type, device_name,
            ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us
     FROM objects WHERE id = $1`,
    [id],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    objectDomain: row.object_domain,
    objectId: row.object_id,
    objectName: row.object_name,
    objectType: row.object_type,
    deviceName: row.device_name,
    createdAtMicros: BigInt(row.created_us),
    updatedAtMicros: BigInt(row.updated_us),
  };
}
