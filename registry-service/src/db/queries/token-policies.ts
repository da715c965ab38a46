import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

/** A live token's policy as stored (the API's JSON shape), and its expiry (µs since the epoch, int8 as text). */
interface PolicyRow {
  id: string;
  name: string;
  policy: unknown;
  expires_us: string | null;
}

/** The version every token or settings change moves (migration 0007): what a cache compares. */
export async function readTokensVersion(db: Queryable): Promise<string> {
  const [row] = await query<{ version: string }>(db, 'SELECT version FROM auth_settings');
  return row?.version ?? '0';
}

/** Every token not revoked, with its policy and expiry (expired ones too: whoever reads them compares with the clock). */
export async function listLivePolicies(db: Queryable): Promise<PolicyRow[]> {
  return query<PolicyRow>(db, `SELECT id::text, name, policy, ${micros('expires_at')}::text AS expires_us FROM tokens WHERE revoked_at IS NULL`);
}

/** Which of these token ids name a revoked token (the others of them name no token at all). */
export async function revokedAmong(db: Queryable, ids: string[]): Promise<Set<string>> {
  const rows = await query<{ id: string }>(db, 'SELECT id::text FROM tokens WHERE id = ANY($1::uuid[]) AND revoked_at IS NOT NULL', [ids]);
  return new Set(rows.map((r) => r.id));
}

/** How many devices and objects a token created so far (the counters the write statement moves). */
export async function tokenCreations(db: Queryable, id: string): Promise<{ devices: number; objects: number }> {
  const [row] = await query<{ devices: string; objects: string }>(db, 'SELECT devices_created AS devices, objects_created AS objects FROM tokens WHERE id = $1::uuid', [id]);
  return { devices: Number(row?.devices ?? 0), objects: Number(row?.objects ?? 0) };
}
