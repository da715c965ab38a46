import { AppError, hashTokenSecret, newTokenSecret, tokenPrefixOf } from '@dynamic-events/proto';
import type { TokenClient } from '../src/clients/tokens.js';
import type { TokenCredential, TokenRecord, TokenState } from '../src/tokens/token-model.js';
import type { TokenSource } from '../src/tokens/token-sync.js';

/**
 * A TokenClient over an in-memory list (the registry's rules are the registry's tests' business).
 * `source` reads the list live (every change shows at once); the client's `sync` answers a copy of
 * it whenever it changed since the caller's version, as the registry's SyncTokens does, for tests
 * that run the real token sync over this client.
 */
export interface FakeTokens {
  client: TokenClient;
  source: TokenSource & { loaded: boolean; usedIds: string[] };
  records: TokenRecord[];
  calls: string[];
  /** Adds an active token directly, answering its secret. */
  add(name: string, extra?: Partial<TokenCredential>): string;
  revoke(id: string): void;
  requireToken: boolean;
}

/** A TokenSource reading `state` live: every change shows at once, so it needs no listeners or refresh. */
function liveSource(state: () => TokenState): FakeTokens['source'] {
  const source: FakeTokens['source'] = {
    loaded: true,
    usedIds: [],
    current: () => (source.loaded ? state() : undefined),
    used: (id) => void source.usedIds.push(id),
    onChange: () => () => {},
    refresh: async () => {},
  };
  return source;
}

/** A copy of a token state, as a gateway holds it after a sync. */
function snapshot(version: number, requireToken: boolean, credentials: Map<string, TokenCredential>): TokenState {
  return { version: String(version), requireToken, byHash: new Map([...credentials].map(([hash, credential]) => [hash, { ...credential }])) };
}

export function fakeTokens(): FakeTokens {
  const records: TokenRecord[] = [];
  const credentials = new Map<string, TokenCredential>();
  const calls: string[] = [];
  let version = 1;
  const fake: FakeTokens = {
    records,
    calls,
    requireToken: true,
    add(name, extra = {}) {
      const secret = newTokenSecret();
      const id = `00000000-0000-7000-8000-${String(records.length + 1).padStart(12, '0')}`;
      records.push({ id, name, prefix: tokenPrefixOf(secret), policy: {}, createdAt: '2026-11-25T00:00:00.000000000Z', lastUsedAt: null, expiresAt: null, revokedAt: null, readOnly: false });
      credentials.set(hashTokenSecret(secret).toString('base64'), { id, name, policy: {}, expiresAtMs: undefined, ...extra });
      version++;
      return secret;
    },
    revoke(id) {
      for (const [hash, credential] of credentials) if (credential.id === id) credentials.delete(hash);
      version++;
    },
    client: {
      async create(draft) {
        calls.push(`create ${draft.name}`);
        // The registry turns require_token on with the first token.
        fake.requireToken = true;
        const expiresAtMs = draft.expiresAt && Number(draft.expiresAt.seconds) * 1000;
        const secret = fake.add(draft.name, { policy: draft.policy ?? {}, expiresAtMs });
        return { token: { ...records.at(-1)!, policy: draft.policy ?? {} }, secret };
      },
      async list() {
        calls.push('list');
        return records;
      },
      async get(id) {
        calls.push(`get ${id}`);
        const found = records.find((r) => r.id === id);
        if (!found) throw new AppError('NOT_FOUND', `token ${id} not found`, { field: 'id' });
        return found;
      },
      async update(id, change) {
        calls.push(`update ${id} ${JSON.stringify(change)}`);
        for (const credential of credentials.values()) if (credential.id === id && change.policy) credential.policy = change.policy;
        version++;
        return { ...(await fake.client.get(id, { requestId: '' })), ...(change.name ? { name: change.name } : {}) };
      },
      async revoke(id) {
        calls.push(`revoke ${id}`);
        fake.revoke(id);
        return { ...(await fake.client.get(id, { requestId: '' })), revokedAt: '2026-11-25T00:00:01.000000000Z' };
      },
      async getRequireToken() {
        return fake.requireToken;
      },
      async setRequireToken(value) {
        calls.push(`require ${value}`);
        fake.requireToken = value;
        version++;
        return value;
      },
      async sync(knownVersion) {
        return knownVersion === String(version) ? undefined : snapshot(version, fake.requireToken, credentials);
      },
      close() {},
    },
    source: liveSource(() => ({ version: String(version), requireToken: fake.requireToken, byHash: credentials })),
  };
  return fake;
}
