/**
 * TokenService administers every token and SyncTokens answers every secret's hash: both need the
 * internal credential (REGISTRY_INTERNAL_TOKEN) as `authorization: Bearer …` metadata. The
 * RegistryService methods other platform services call stay open.
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { TEST_INTERNAL_TOKEN, useFreshRegistry, type TestRegistry } from './helpers.js';
import { rejection, tokenApi } from './token-api.js';

const up = await postgresAvailable();

let t: TestRegistry;
if (up) useFreshRegistry((started) => (t = started));

describe.skipIf(!up)('TokenService needs the internal credential', () => {
  const wrongs: Array<[string, string | null]> = [
    ['no credential', null],
    ['a wrong credential', `${TEST_INTERNAL_TOKEN.slice(0, -1)}x`],
    ['a prefix of the credential', TEST_INTERNAL_TOKEN.slice(0, 20)],
    ['an empty credential', ''],
  ];

  it.each(wrongs)('answers UNAUTHENTICATED to every method with %s, and nothing changes', async (_label, credential) => {
    const api = tokenApi(t.address, credential);
    try {
      const id = '0190d3c2-0000-7000-8000-000000000000';
      const calls = [
        () => api.create({ name: 'intruder' }),
        () => api.list(),
        () => api.get(id),
        () => api.update({ id, name: 'x' }),
        () => api.revoke(id),
        () => api.requireToken(),
        () => api.setRequireToken(false),
        () => api.sync('0'),
      ];
      for (const call of calls) {
        const err = await rejection(call());
        expect(err.code).toBe('UNAUTHENTICATED');
        expect(err.message).not.toContain(TEST_INTERNAL_TOKEN);
      }
    } finally {
      api.close();
    }
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM tokens WHERE name = 'intruder'");
    expect(rows[0].n).toBe(0);
  });

  it('answers a caller presenting the credential', async () => {
    const api = tokenApi(t.address);
    try {
      const { token } = await api.create({ name: 'admitted' });
      expect((await api.list()).map((l) => l.id)).toContain(token!.id);
      expect((await api.sync('0')).tokens.map((c) => c.id)).toContain(token!.id);
    } finally {
      api.close();
    }
  });

  it('leaves the RegistryService read and record methods open to platform services', async () => {
    const { events } = await t.api.listEvents({});
    expect(events).toEqual([]);
  });
});
