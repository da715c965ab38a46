import { callUnary, createGrpcClient } from '@dynamic-events/proto/runtime';
import { registry, toProtoPolicy } from '@dynamic-events/proto';
import type { Command } from './args.js';
import type { WebhookCommand } from './webhook-args.js';
import { settingsJson, tokenJson } from './token-json.js';

/** An operator waits this long at most; the registry answers these calls in milliseconds. */
const DEADLINE_MS = 10_000;

/** The tokens and auth commands (webhook-client.ts runs the webhooks ones). */
type RunnableCommand = Exclude<Command, WebhookCommand | { kind: 'help' }>;

/**
 * Runs one command against TokenService at `address`, presenting `credential` (REGISTRY_INTERNAL_TOKEN;
 * undefined: none, and the registry refuses), and resolves with the JSON to print; a failed call
 * rejects with the registry's AppError (its message is safe to show).
 */
export async function runCommand(address: string, command: RunnableCommand, credential: string | undefined): Promise<unknown> {
  const client = createGrpcClient(registry.TokenServiceClient, address);
  const settings = { deadlineMs: DEADLINE_MS, credential };
  const call = <Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[0], request: Req) => callUnary(method.bind(client), request, settings);
  try {
    switch (command.kind) {
      case 'tokens create': {
        const policy = command.policy && toProtoPolicy(command.policy);
        const { token, secret } = await call(client.createToken, { name: command.name, policy, expiresAt: command.expiresAt });
        // As the admin API's POST answers: the token, and its secret under `token`, this once. The
        // secret comes first, so `… | head -3` still shows it.
        return { token: secret, ...tokenJson(token) };
      }
      case 'tokens list':
        return { tokens: (await call(client.listTokens, {})).tokens.map(tokenJson) };
      case 'tokens get':
        return tokenJson((await call(client.getToken, { id: command.id })).token);
      case 'tokens update': {
        const policy = command.policy && toProtoPolicy(command.policy);
        const request = { id: command.id, name: command.name, policy, expiresAt: command.expiresAt, clearExpiresAt: command.clearExpiry };
        return tokenJson((await call(client.updateToken, request)).token);
      }
      case 'tokens revoke':
        return tokenJson((await call(client.revokeToken, { id: command.id })).token);
      case 'auth show':
        return settingsJson((await call(client.getAuthSettings, {})).settings);
      case 'auth set':
        return settingsJson((await call(client.updateAuthSettings, { settings: { requireToken: command.requireToken } })).settings);
    }
  } finally {
    client.close();
  }
}
