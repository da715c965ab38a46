import { invalidArgument, registry } from '@dynamic-events/proto';
import { type AsyncServiceImpl } from '@dynamic-events/proto/runtime';
import type { AuthSettings } from '../tokens/token-sync.js';
import type { Tokens } from '../tokens/tokens.js';
import { toProtoCredential, toProtoToken, toTokenChange, toTokenDraft } from './token-mapping.js';

interface TokenHandlerDeps {
  tokens: Tokens;
  settings: AuthSettings;
}

/** TokenService handlers: requests to domain calls and back; the rules live in the domain. */
export function createTokenHandlers(deps: TokenHandlerDeps): AsyncServiceImpl<registry.TokenServiceServer> {
  const { tokens, settings } = deps;
  return {
    async createToken(request) {
      const { token, secret } = await tokens.create(toTokenDraft(request));
      return { token: toProtoToken(token), secret };
    },
    async listTokens() {
      return { tokens: (await tokens.list()).map(toProtoToken) };
    },
    async getToken(request) {
      return { token: toProtoToken(await tokens.get(request.id)) };
    },
    async updateToken(request) {
      return { token: toProtoToken(await tokens.update(request.id, toTokenChange(request))) };
    },
    async revokeToken(request) {
      return { token: toProtoToken(await tokens.revoke(request.id)) };
    },
    async getAuthSettings() {
      return { settings: { requireToken: await settings.requireToken() } };
    },
    async updateAuthSettings(request) {
      // An unset message would silently mean "off": the one value that opens the instance must be said.
      if (!request.settings) throw invalidArgument('settings', 'required', 'settings is required');
      return { settings: { requireToken: await settings.setRequireToken(request.settings.requireToken) } };
    },
    async syncTokens(request) {
      const snapshot = await settings.sync(request.knownVersion, request.usedTokenIds);
      if (!snapshot.changed) return { version: snapshot.version, changed: false, settings: undefined, tokens: [] };
      return {
        version: snapshot.version,
        changed: true,
        settings: { requireToken: snapshot.requireToken },
        tokens: snapshot.tokens.map(toProtoCredential),
      };
    },
  };
}
