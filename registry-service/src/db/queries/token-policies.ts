import type { Queryable } from '../pool.js';
import { query } from './query.js';

/** A live token's policy as stored (the API's JSON shape). */
interface PolicyRow {
  id: string;
  name: string;
  policy: unknown;
}

/** The version every token or settings change moves (migration 0007): what a cache compares. */
export async function readTokensVersion(db: Queryable): Promise<string> {
  const [row] = await query<{ version: string }>(db, 'SELECT version FROM auth_settings');
  return row?.version ?? '0';
}

/** Every token not revoked, with its policy (expired ones too: the gateway refuses those). */
export async function listLivePolicies(db: Queryable): Promise<PolicyRow[]> {
  return query<PolicyRow>(db, 'SELECT id::text, name, policy FROM tokens WHERE revoked_at IS NULL');
}

/** How many devices and objects a token created so far (the counters the write statement moves). */
export async function tokenCreations(db: Queryable, id: string): Promise<{ devices: number; objects: number }> {
  const [row] = await query<{ devices: string; objects: string }>(db, 'SELECT devices_created AS devices, objects_created AS objects FROM tokens WHERE id = $1::uuid', [id]);
  return { devices: Number(row?.devices ?? 0), objects: Number(row?.objects ?? 0) };
}
