import { policyFromJson } from '@dynamic-events/proto';
import type { AuthSnapshot, TokenCredentialRecord } from '../../tokens/token-rows.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';

/**
 * The CTE that bumps auth_settings.version when the CTE `changed` returned a row, written into the
 * same statement as the change: one statement is atomic, so no gateway can see a change without a
 * new version. `requireToken` also turns the requirement on (a new token: the instance never opens
 * by accident).
 */
export function bumpVersionWhen(changed: string, requireToken = false): string {
  return `bumped AS (
    UPDATE auth_settings SET version = version + 1${requireToken ? ', require_token = true' : ''}
    WHERE id AND EXISTS (SELECT 1 FROM ${changed})
  )`;
}

/** Whether the instance requires a token. */
export async function readRequireToken(db: Queryable): Promise<boolean> {
  const [row] = await query<{ require_token: boolean }>(db, 'SELECT require_token FROM auth_settings WHERE id');
  if (!row) throw new Error('auth_settings has no row (migration 0007 inserts it)');
  return row.require_token;
}

/** Sets the requirement; the version moves only when the value does, so a repeated call costs gateways nothing. */
export async function writeRequireToken(db: Queryable, requireToken: boolean): Promise<void> {
  await query(db, 'UPDATE auth_settings SET require_token = $1, version = version + 1 WHERE id AND require_token <> $1', [requireToken]);
}

/** Records that tokens authenticated requests; not a change gateways need to hear of, so no version bump. */
export async function touchTokens(db: Queryable, ids: string[]): Promise<void> {
  await query(db, 'UPDATE tokens SET last_used_at = now() WHERE id = ANY($1::uuid[])', [ids]);
}

interface SnapshotRow {
  version: string;
  require_token: boolean;
  id: string | null;
  name: string | null;
  secret_sha256: Buffer | null;
  policy: unknown;
  expires_us: string | null;
}

/**
 * The version, and when it differs from `knownVersion` the requirement and every token not revoked,
 * read by one statement: version and tokens always belong together (two reads could pair an old
 * version with newer tokens, and the gateway would then skip the change in between). When the
 * version matches, the join yields no token and the answer is one short row.
 */
export async function readAuthSnapshot(db: Queryable, knownVersion: string): Promise<AuthSnapshot> {
  const rows = await query<SnapshotRow>(
    db,
    `SELECT s.version, s.require_token, t.id, t.name, t.secret_sha256, t.policy, ${micros('t.expires_at')} AS expires_us
     FROM auth_settings s
     LEFT JOIN tokens t ON s.version <> $1::int8 AND t.revoked_at IS NULL
     WHERE s.id
     ORDER BY t.created_at, t.id`,
    [knownVersion],
    'auth-snapshot',
  );
  const first = rows[0];
  if (!first) throw new Error('auth_settings has no row (migration 0007 inserts it)');
  if (first.version === knownVersion) return { version: first.version, changed: false };
  const tokens = rows.filter((row) => row.id !== null).map(toCredential);
  return { version: first.version, changed: true, requireToken: first.require_token, tokens };
}

function toCredential(row: SnapshotRow): TokenCredentialRecord {
  return {
    id: row.id ?? '',
    name: row.name ?? '',
    secretSha256: row.secret_sha256 ?? Buffer.alloc(0),
    policy: policyFromJson(row.policy),
    expiresAtMicros: row.expires_us === null ? undefined : BigInt(row.expires_us),
  };
}
