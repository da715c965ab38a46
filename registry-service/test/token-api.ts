/** TokenService as a caller sees it (failures reject with an AppError), for the token tests. */
import { AppError, registry } from '@dynamic-events/proto';
import { callUnary, createGrpcClient } from '@dynamic-events/proto/runtime';
import type pg from 'pg';
import { expect } from 'vitest';
import { TEST_INTERNAL_TOKEN } from './helpers.js';

/** Promise-returning wrappers over the generated TokenService client, with a deadline; `credential` null sends none. */
export function tokenApi(address: string, credential: string | null = TEST_INTERNAL_TOKEN) {
  const client = createGrpcClient(registry.TokenServiceClient, address);
  const deadline = { deadlineMs: 15_000, credential: credential ?? undefined };
  return {
    close: () => client.close(),
    create: (request: Partial<registry.CreateTokenRequest>) =>
      callUnary(client.createToken.bind(client), { name: '', policy: undefined, expiresAt: undefined, ...request }, deadline),
    list: async () => (await callUnary(client.listTokens.bind(client), {}, deadline)).tokens,
    get: async (id: string) => (await callUnary(client.getToken.bind(client), { id }, deadline)).token!,
    update: async (request: Partial<registry.UpdateTokenRequest> & { id: string }) =>
      (await callUnary(client.updateToken.bind(client), { policy: undefined, expiresAt: undefined, clearExpiresAt: false, ...request }, deadline)).token!,
    revoke: async (id: string) => (await callUnary(client.revokeToken.bind(client), { id }, deadline)).token!,
    requireToken: async () => (await callUnary(client.getAuthSettings.bind(client), {}, deadline)).settings!.requireToken,
    setRequireToken: async (requireToken: boolean) =>
      (await callUnary(client.updateAuthSettings.bind(client), { settings: { requireToken } }, deadline)).settings!.requireToken,
    updateSettings: (settings: registry.AuthSettings | undefined) => callUnary(client.updateAuthSettings.bind(client), { settings }, deadline),
    sync: (knownVersion: string, usedTokenIds: string[] = []) => callUnary(client.syncTokens.bind(client), { knownVersion, usedTokenIds }, deadline),
  };
}
export type TokenApi = ReturnType<typeof tokenApi>;

/** The current version, read as a gateway does (known_version 0 always differs). */
export async function versionOf(api: TokenApi): Promise<bigint> {
  return BigInt((await api.sync('0')).version);
}

/** The AppError a call rejected with (fails the test when it resolved). */
export async function rejection(call: Promise<unknown>): Promise<AppError> {
  const err = await call.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/** Expects INVALID_ARGUMENT (or another code) naming `field` and `rule`. */
export async function expectRefused(call: Promise<unknown>, field: string, rule: string | undefined, code = 'INVALID_ARGUMENT'): Promise<AppError> {
  const err = await rejection(call);
  expect({ code: err.code, field: err.details.field, rule: err.details.rule }).toEqual({ code, field, rule });
  return err;
}

/** A timestamp `seconds` from now. */
export function inSeconds(seconds: number): registry.Token['expiresAt'] {
  return { seconds: String(Math.floor(Date.now() / 1000) + seconds), nanos: 0 };
}

/** The auth_settings row as stored (test-only SQL). */
export async function storedSettings(pool: pg.Pool): Promise<{ version: bigint; requireToken: boolean }> {
  const { rows } = await pool.query<{ version: string; require_token: boolean }>('SELECT version, require_token FROM auth_settings');
  return { version: BigInt(rows[0]!.version), requireToken: rows[0]!.require_token };
}
