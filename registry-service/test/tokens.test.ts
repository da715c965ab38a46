/**
 * TokenService over a real gRPC server and PostgreSQL: create, list, get, update, revoke, the
 * version gateways sync on, last-used times and the token requirement.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertToken } from '../src/db/queries/tokens.js';
import { postgresAvailable } from '../../test/support/servers.js';
import { unique, useFreshRegistry, type TestRegistry } from './helpers.js';
import { expectRefused, inSeconds, rejection, storedSettings, tokenApi, versionOf, type TokenApi } from './token-api.js';

const up = await postgresAvailable();

// One registry on a fresh database for the whole file; the describes run in order and share it.
let t: TestRegistry;
let api: TokenApi;
if (up) {
  useFreshRegistry((started) => {
    t = started;
    api = tokenApi(started.address);
  });
}

const sha256 = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

describe.skipIf(!up)('TokenService: create, list, get', () => {
  it('creates a token: a dhe_ secret answered once, its prefix listed, its SHA-256 stored, and the instance now requires tokens', async () => {
    expect(await api.requireToken()).toBe(false);
    const before = await storedSettings(t.pool);
    const { token, secret } = await api.create({ name: 'camera gateway', policy: { mayCreate: undefined, domains: { values: ['acme.camera.*'] }, rate: undefined } });
    expect(secret).toMatch(/^dhe_[A-Za-z0-9_-]{43}$/);
    expect(token!.prefix).toBe(secret.slice(0, 12));
    expect(token!).toMatchObject({ name: 'camera gateway', readOnly: false, lastUsedAt: undefined, expiresAt: undefined, revokedAt: undefined });
    expect(token!.policy).toEqual({ mayCreate: undefined, domains: { values: ['acme.camera.*'] }, maxDevices: undefined, maxObjects: undefined, rate: undefined });

    const listed = await api.list();
    expect(listed.map((l) => l.id)).toContain(token!.id);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(12));
    expect(await api.get(token!.id)).toEqual(token);

    const { rows } = await t.pool.query<{ secret_sha256: Buffer; policy: unknown }>('SELECT secret_sha256, policy FROM tokens WHERE id = $1', [token!.id]);
    expect(rows[0]!.secret_sha256.equals(sha256(secret))).toBe(true);
    expect(rows[0]!.policy).toEqual({ domains: ['acme.camera.*'] });
    const synced = await api.sync('0');
    expect(Buffer.from(synced.tokens.find((c) => c.id === token!.id)!.secretSha256).equals(sha256(secret))).toBe(true);

    expect(await storedSettings(t.pool)).toEqual({ version: before.version + 1n, requireToken: true });
    expect(await api.requireToken()).toBe(true);
  });

  it('answers NOT_FOUND naming id for a malformed or unknown id', async () => {
    for (const id of ['', 'nope', '0190d3c2-0000-7000-8000-00000000000', '0190d3c2-0000-7000-8000-000000000000']) {
      const err = await expectRefused(api.get(id), 'id', undefined, 'NOT_FOUND');
      expect(err.message).toMatch(/^token .* not found$/);
    }
    expect((await rejection(api.get('0190d3c2-0000-7000-8000-000000000000'))).message).toBe('token 0190d3c2-0000-7000-8000-000000000000 not found');
  });

  it('refuses a second live token of the same name (ALREADY_EXISTS naming name); the name is free again once revoked', async () => {
    const name = unique('dup');
    const first = (await api.create({ name })).token!;
    const version = await versionOf(api);
    await expectRefused(api.create({ name }), 'name', 'unique', 'ALREADY_EXISTS');
    expect(await versionOf(api)).toBe(version);
    const other = (await api.create({ name: unique('other') })).token!;
    await expectRefused(api.update({ id: other.id, name }), 'name', 'unique', 'ALREADY_EXISTS');
    await api.revoke(first.id);
    const second = (await api.create({ name })).token!;
    expect(second.id).not.toBe(first.id);
    expect((await api.list()).filter((l) => l.name === name).map((l) => l.id)).toEqual([first.id, second.id]);
  });

  it('never lets a failing statement quote the row (pg puts the whole row, hash included, in its detail)', async () => {
    const row = { id: '0190d3c2-0000-7000-8000-0000000000ab', name: unique('short-hash'), prefix: 'dhe_x', policy: {}, secretSha256: Buffer.alloc(31, 0xab) };
    const err = (await insertToken(t.pool, row).then(() => undefined, (e: unknown) => e)) as { code?: string; constraint?: string; detail?: string };
    expect(err).toMatchObject({ code: '23514', constraint: 'tokens_secret_sha256_is_sha256', detail: undefined });
    expect(JSON.stringify(err)).not.toContain('abab');
  });

  it('lists every token oldest first, revoked and expired ones included', async () => {
    const revoked = (await api.create({ name: unique('old') })).token!;
    await api.revoke(revoked.id);
    const expiring = (await api.create({ name: unique('expiring'), expiresAt: inSeconds(3600) })).token!;
    await t.pool.query(`UPDATE tokens SET expires_at = now() - interval '1 hour' WHERE id = $1`, [expiring.id]);
    const listed = await api.list();
    const ids = listed.map((l) => l.id);
    expect(ids.indexOf(revoked.id)).toBeLessThan(ids.indexOf(expiring.id));
    const created = listed.map((l) => BigInt(l.createdAt!.seconds) * 1_000_000_000n + BigInt(l.createdAt!.nanos));
    expect(created).toEqual([...created].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(listed.find((l) => l.id === revoked.id)!.revokedAt).toBeDefined();
    expect(listed.find((l) => l.id === expiring.id)!.expiresAt).toBeDefined();
  });
});

describe.skipIf(!up)('TokenService: update and revoke', () => {
  it('updates name, policy and expiry one at a time, each a new version, fields left unset staying as they were', async () => {
    const { token } = await api.create({ name: unique('upd'), policy: { mayCreate: { values: ['devices'] }, domains: undefined, maxDevices: '5', rate: undefined } });
    let version = await versionOf(api);
    const step = async (request: Parameters<TokenApi['update']>[0]) => {
      const updated = await api.update(request);
      expect(await versionOf(api)).toBe(++version);
      expect(await api.get(token!.id)).toEqual(updated);
      return updated;
    };
    const renamed = await step({ id: token!.id, name: 'renamed ✓' });
    expect(renamed).toMatchObject({ name: 'renamed ✓', policy: token!.policy, expiresAt: undefined });
    // A set policy replaces the whole policy; an empty list allows nothing (not the same as unset).
    const policy = { mayCreate: { values: [] }, domains: { values: ['*'] }, maxDevices: undefined, maxObjects: '0', rate: { perSecond: 0.5, burst: 3 } };
    expect((await step({ id: token!.id, policy })).policy).toEqual(policy);
    const expiresAt = inSeconds(86_400)!;
    expect(await step({ id: token!.id, expiresAt })).toMatchObject({ name: 'renamed ✓', policy, expiresAt });
    const cleared = await step({ id: token!.id, clearExpiresAt: true });
    expect(cleared).toMatchObject({ name: 'renamed ✓', policy, expiresAt: undefined });
    const { rows } = await t.pool.query('SELECT policy FROM tokens WHERE id = $1', [token!.id]);
    expect(rows[0].policy).toEqual({ may_create: [], domains: ['*'], max_objects: 0, rate: { per_second: 0.5, burst: 3 } });
  });

  it('revokes once: revoking again answers the token unchanged, without a new version; a revoked token cannot be updated', async () => {
    const { token } = await api.create({ name: unique('rev') });
    const version = await versionOf(api);
    const revoked = await api.revoke(token!.id);
    expect(revoked.revokedAt).toBeDefined();
    expect(await versionOf(api)).toBe(version + 1n);
    expect(await api.revoke(token!.id)).toEqual(revoked);
    expect(await versionOf(api)).toBe(version + 1n);
    const err = await expectRefused(api.update({ id: token!.id, name: unique('late') }), 'id', 'revoked', 'FAILED_PRECONDITION');
    expect(err.message).toBe(`token ${token!.id} is revoked`);
    await expectRefused(api.revoke('0190d3c2-0000-7000-8000-000000000000'), 'id', undefined, 'NOT_FOUND');
    await expectRefused(api.update({ id: 'not-a-uuid', name: 'x' }), 'id', undefined, 'NOT_FOUND');
  });
});

describe.skipIf(!up)('TokenService: sync and settings', () => {
  it('answers changed: false and nothing else while the version holds; the full live set once it moved', async () => {
    const version = (await api.sync('0')).version;
    expect(await api.sync(version)).toEqual({ version, changed: false, settings: undefined, tokens: [] });
    const { token } = await api.create({ name: unique('sync'), expiresAt: inSeconds(600) });
    const full = await api.sync(version);
    expect(full).toMatchObject({ version: String(BigInt(version) + 1n), changed: true, settings: { requireToken: true } });
    const live = await api.list().then((all) => all.filter((l) => !l.revokedAt).map((l) => l.id));
    expect(full.tokens.map((c) => c.id)).toEqual(live);
    expect(full.tokens.find((c) => c.id === token!.id)).toMatchObject({ name: token!.name, expiresAt: token!.expiresAt });
  });

  it('records used tokens (malformed and unknown ids ignored) without moving the version', async () => {
    const { token } = await api.create({ name: unique('used') });
    const version = (await api.sync('0')).version;
    const answer = await api.sync(version, [token!.id.toUpperCase(), 'garbage', '', '0190d3c2-0000-7000-8000-000000000000']);
    expect(answer).toMatchObject({ version, changed: false });
    const used = await api.get(token!.id);
    expect(used.lastUsedAt).toBeDefined();
    expect(Math.abs(Number(used.lastUsedAt!.seconds) - Date.now() / 1000)).toBeLessThan(60);
    expect((await api.sync('0')).version).toBe(version);
  });

  it('keeps requiring tokens after the last one is revoked; only UpdateAuthSettings turns it off, and a repeat changes nothing', async () => {
    for (const live of (await api.list()).filter((l) => !l.revokedAt)) await api.revoke(live.id);
    expect((await api.sync('0')).tokens).toEqual([]);
    expect(await api.requireToken()).toBe(true);
    const version = await versionOf(api);
    expect(await api.setRequireToken(false)).toBe(false);
    expect(await api.requireToken()).toBe(false);
    expect(await versionOf(api)).toBe(version + 1n);
    await api.setRequireToken(false);
    expect(await versionOf(api)).toBe(version + 1n);
    expect(await api.setRequireToken(true)).toBe(true);
    expect((await api.sync(String(version + 1n))).settings).toEqual({ requireToken: true });
    await api.setRequireToken(false);
    await api.create({ name: unique('again') });
    expect(await api.requireToken()).toBe(true);
  });
});
