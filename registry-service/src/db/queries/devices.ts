import type { DeviceRecord } from '../../domain/types.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

/** Inserts the devices that do not exist yet (kind "generic") and returns the names it created. */
export async function insertDevices(db: Queryable, names: string[]): Promise<Set<string>> {
  // Sorted so concurrent batches take unique-index locks in the same order (no deadlocks).
  const sorted = [...names].sort();
  const rows = await query<{ device_name: string }>(
    db,
    `INSERT INTO devices (device_name, kind)
     SELECT name, 'generic' FROM unnest($1::text[]) WITH ORDINALITY AS t(name, ord) ORDER BY ord
     ON CONFLICT (device_name) DO NOTHING
     RETURNING device_name`,
    [sorted],
  );
  return new Set(rows.map((row) => row.device_name));
}

interface DeviceRow {
  device_name: string;
  kind: string;
  created_us: string;
  updated_us: string;
}

/** One device by name, or undefined. */
export async function findDevice(db: Queryable, name: string): Promise<DeviceRecord | undefined> {
  const [row] = await query<DeviceRow>(
    db,
    `SELECT device_name, kind, ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us
     FROM devices WHERE device_name = $1`,
    [name],
  );
  if (!row) return undefined;
  return { deviceName: row.device_name, kind: row.kind, createdAtMicros: BigInt(row.created_us), updatedAtMicros: BigInt(row.updated_us) };
}
