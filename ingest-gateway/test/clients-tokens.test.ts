/** The TokenService client presents the internal credential (REGISTRY_INTERNAL_TOKEN) on every call. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { registry } from '@dynamic-events/proto';
import { createGrpcServer, type AsyncServiceImpl, type CallContext, type GrpcServer } from '@dynamic-events/proto/runtime';
import { createTokenClient, type TokenClient } from '../src/clients/tokens.js';

const CREDENTIAL = 'gateway-test-internal-credential-0123456789';
const presented: Array<{ method: string; authorization: unknown }> = [];
const TOKEN: registry.Token = {
  id: '0193a1b2-0000-7000-8000-000000000001',
  name: 't',
  prefix: 'dhe_abcdefgh',
  policy: undefined,
  createdAt: { seconds: '1763713204', nanos: 0 },
  lastUsedAt: undefined,
  expiresAt: undefined,
  revokedAt: undefined,
  readOnly: false,
};

function fakeTokenService(): AsyncServiceImpl<registry.TokenServiceServer> {
  const seen = (method: string, ctx: CallContext) => presented.push({ method, authorization: ctx.metadata.get('authorization')[0] });
  const token = async (method: string, ctx: CallContext) => (seen(method, ctx), { token: TOKEN });
  const settings = async (method: string, ctx: CallContext) => (seen(method, ctx), { settings: { requireToken: true } });
  return {
    createToken: async (_r, ctx) => ({ ...(await token('createToken', ctx)), secret: 'dhe_x' }),
    listTokens: async (_r, ctx) => (seen('listTokens', ctx), { tokens: [TOKEN] }),
    getToken: (_r, ctx) => token('getToken', ctx),
    updateToken: (_r, ctx) => token('updateToken', ctx),
    revokeToken: (_r, ctx) => token('revokeToken', ctx),
    getAuthSettings: (_r, ctx) => settings('getAuthSettings', ctx),
    updateAuthSettings: (_r, ctx) => settings('updateAuthSettings', ctx),
    syncTokens: async (_r, ctx) => (seen('syncTokens', ctx), { version: '1', changed: false, settings: undefined, tokens: [] }),
  };
}

let server: GrpcServer;
let client: TokenClient;
beforeAll(async () => {
  server = createGrpcServer({ logger: pino({ level: 'silent' }) });
  server.addService<registry.TokenServiceServer>(registry.TokenServiceService, fakeTokenService());
  const port = await server.listen('127.0.0.1:0');
  client = createTokenClient(`127.0.0.1:${port}`, { deadlineMs: 5000, credential: CREDENTIAL });
});
afterAll(async () => {
  client.close();
  await server.shutdown(1000);
});

describe('token client', () => {
  it('sends authorization: Bearer <REGISTRY_INTERNAL_TOKEN> with every TokenService call, SyncTokens included', async () => {
    const call = { requestId: 'req-1' };
    await client.create({ name: 't' }, call);
    await client.list(call);
    await client.get(TOKEN.id, call);
    await client.update(TOKEN.id, { name: 'u' }, call);
    await client.revoke(TOKEN.id, call);
    await client.getRequireToken(call);
    await client.setRequireToken(true, call);
    await client.sync('1', [], 5000);
    expect(presented.map((p) => p.method)).toEqual(['createToken', 'listTokens', 'getToken', 'updateToken', 'revokeToken', 'getAuthSettings', 'updateAuthSettings', 'syncTokens']);
    for (const p of presented) expect(p.authorization).toBe(`Bearer ${CREDENTIAL}`);
  });
});
