import { callUnary, createGrpcClient, type Interceptor } from '@dynamic-events/proto/runtime';
import { registry, toProtoPolicy } from '@dynamic-events/proto';
import type { CallOptions } from '../model.js';
import type { TokenChange, TokenDraft, TokenRecord, TokenState } from '../tokens/token-model.js';
import { toTokenRecord, toTokenState } from './token-mapping.js';

/** The registry's TokenService as the gateway uses it; failures reject with AppError. */
export interface TokenClient {
  create(draft: TokenDraft, call: CallOptions): Promise<{ token: TokenRecord; secret: string }>;
  list(call: CallOptions): Promise<TokenRecord[]>;
  get(id: string, call: CallOptions): Promise<TokenRecord>;
  update(id: string, change: TokenChange, call: CallOptions): Promise<TokenRecord>;
  revoke(id: string, call: CallOptions): Promise<TokenRecord>;
  getRequireToken(call: CallOptions): Promise<boolean>;
  setRequireToken(requireToken: boolean, call: CallOptions): Promise<boolean>;
  /** The token state when it changed since `knownVersion` ('0': none held), else undefined; reports `usedIds`. */
  sync(knownVersion: string, usedIds: string[], deadlineMs: number): Promise<TokenState | undefined>;
  close(): void;
}

interface TokenClientOptions {
  deadlineMs: number;
  /** REGISTRY_INTERNAL_TOKEN, presented with every call (the registry refuses TokenService calls without it). */
  credential: string;
  interceptors?: Interceptor[];
}

/** Creates the TokenService client (its own channel to the registry's address). */
export function createTokenClient(address: string, options: TokenClientOptions): TokenClient {
  const client = createGrpcClient(registry.TokenServiceClient, address, { interceptors: options.interceptors });
  const { credential } = options;
  const settings = (call: CallOptions) => ({ deadlineMs: options.deadlineMs, requestId: call.requestId, credential });

  return {
    async create(draft, call) {
      const request = { name: draft.name, policy: draft.policy && toProtoPolicy(draft.policy), expiresAt: draft.expiresAt };
      const response = await callUnary(client.createToken.bind(client), request, settings(call));
      return { token: toTokenRecord(response.token), secret: response.secret };
    },
    async list(call) {
      return (await callUnary(client.listTokens.bind(client), {}, settings(call))).tokens.map(toTokenRecord);
    },
    async get(id, call) {
      return toTokenRecord((await callUnary(client.getToken.bind(client), { id }, settings(call))).token);
    },
    async update(id, change, call) {
      const request = {
        id,
        name: change.name,
        policy: change.policy && toProtoPolicy(change.policy),
        expiresAt: change.expiresAt ?? undefined,
        clearExpiresAt: change.expiresAt === null,
      };
      return toTokenRecord((await callUnary(client.updateToken.bind(client), request, settings(call))).token);
    },
    async revoke(id, call) {
      return toTokenRecord((await callUnary(client.revokeToken.bind(client), { id }, settings(call))).token);
    },
    async getRequireToken(call) {
      return (await callUnary(client.getAuthSettings.bind(client), {}, settings(call))).settings?.requireToken ?? true;
    },
    async setRequireToken(requireToken, call) {
      const response = await callUnary(client.updateAuthSettings.bind(client), { settings: { requireToken } }, settings(call));
      return response.settings?.requireToken ?? true;
    },
    async sync(knownVersion, usedIds, deadlineMs) {
      const response = await callUnary(client.syncTokens.bind(client), { knownVersion, usedTokenIds: usedIds }, { deadlineMs, credential });
      return response.changed ? toTokenState(response) : undefined;
    },
    close: () => client.close(),
  };
}
