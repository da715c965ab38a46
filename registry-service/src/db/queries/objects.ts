import type { ObjectRecord } from '../../model.js';
import type { Queryable } from '../pool.js';
import { micros, microsOrUndefined, query } from './query.js';

export interface ObjectRow {
  id: string;
  object_domain: string;
  object_id: string;
  object_name: string;
  object_type: string;
  device_name: string;
  created_by_token_id: string | null;
  created_us: string;
  updated_us: string;
  last_seen_us: string | null;
}

/** The columns every object query selects, as ObjectRow. */
export const OBJECT_COLUMNS = `id, object_domain, object_id, object_name, object_type, device_name, created_by_token_id,
  ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us, ${micros('last_seen_at')} AS last_seen_us`;

/** An object row as the domain record. */
export function toObjectRecord(row: ObjectRow): ObjectRecord {
  return {
    id: row.id,
    objectDomain: row.object_domain,
    objectId: row.object_id,
    objectName: row.object_name,
    objectType: row.object_type,
    deviceName: row.device_name,
    createdByTokenId: row.created_by_token_id ?? undefined,
    createdAtMicros: BigInt(row.created_us),
    updatedAtMicros: BigInt(row.updated_us),
    lastSeenAtMicros: microsOrUndefined(row.last_seen_us),
  };
}

/** One object by its full identifier "{object_domain}.{object_id}", or undefined. */
export async function findObject(db: Queryable, id: string): Promise<ObjectRecord | undefined> {
  const [row] = await query<ObjectRow>(db, `SELECT ${OBJECT_COLUMNS} FROM objects WHERE id = $1`, [id]);
  return row && toObjectRecord(row);
}
