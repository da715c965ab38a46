import type { DeviceRecord } from '../../model.js';
import type { Queryable } from '../pool.js';
import { micros, microsOrUndefined, query } from './query.js';

export interface DeviceRow {
  device_name: string;
  kind: string;
  created_by_token_id: string | null;
  created_us: string;
  updated_us: string;
  last_seen_us: string | null;
}

/** The columns every device query selects, as DeviceRow. */
export const DEVICE_COLUMNS = `device_name, kind, created_by_token_id, ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us, ${micros('last_seen_at')} AS last_seen_us`;

/** A device row as the domain record. */
export function toDeviceRecord(row: DeviceRow): DeviceRecord {
  return { deviceName: row.device_name, kind: row.kind, createdByTokenId: row.created_by_token_id ?? undefined, createdAtMicros: BigInt(row.created_us), updatedAtMicros: BigInt(row.updated_us), lastSeenAtMicros: microsOrUndefined(row.last_seen_us) };
}

/** One device by name, or undefined. */
export async function findDevice(db: Queryable, name: string): Promise<DeviceRecord | undefined> {
  const [row] = await query<DeviceRow>(
    db,
    `SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_name = $1`,
    [name],
  );
  return row && toDeviceRecord(row);
}
