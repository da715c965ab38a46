import { AppError, hashTokenSecret, newTokenSecret, tokenPrefixOf } from '@dynamic-events/proto';
import type { TokenClient } from '../src/clients/tokens.js';
import type { TokenCredential, TokenRecord, TokenState } from '../src/tokens/token-model.js';
import type { TokenSource } from '../src/tokens/token-sync.js';

/** A TokenClient over an in-memory list (the registry's rules are the registry's tests' business). */
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
        const secret = fake.add(draft.name);
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
        return value;
      },
      async sync() {
        return undefined;
      },
      close() {},
    },
    source: {
      loaded: true,
      usedIds: [],
      current(): TokenState | undefined {
        if (!fake.source.loaded) return undefined;
        return { version: String(version), requireToken: fake.requireToken, byHash: credentials };
      },
      used(id) {
        fake.source.usedIds.push(id);
      },
    },
  };
  return fake;
}
