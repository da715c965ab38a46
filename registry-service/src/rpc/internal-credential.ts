import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '@dynamic-events/proto';
import { AUTHORIZATION_KEY, type CallContext } from '@dynamic-events/proto/runtime';

type Handler = (request: never, ctx: CallContext) => Promise<unknown>;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * TokenService administers every token and SyncTokens answers every secret's hash, so each of its
 * calls must present REGISTRY_INTERNAL_TOKEN as `authorization: Bearer <credential>` metadata (the
 * gateways and the operator CLI do). The comparison is on SHA-256 digests, in constant time, so
 * neither the length nor a prefix of the credential shows in the timing. The credential is never
 * logged and never part of an answer.
 */
export function createInternalCredentialCheck(credential: string): (ctx: CallContext) => void {
  const expected = sha256(`Bearer ${credential}`);
  return (ctx) => {
    const presented = ctx.metadata.get(AUTHORIZATION_KEY)[0];
    const ok = typeof presented === 'string' && timingSafeEqual(sha256(presented), expected);
    if (!ok) throw new AppError('UNAUTHENTICATED', 'TokenService needs the internal credential (authorization: Bearer <REGISTRY_INTERNAL_TOKEN>)');
  };
}

/** Every handler of `impl`, run only after `check` admitted the call. */
export function requireCredential<T extends Record<string, Handler>>(impl: T, check: (ctx: CallContext) => void): T {
  const guarded: Record<string, Handler> = {};
  for (const [name, handler] of Object.entries(impl)) {
    guarded[name] = async (request, ctx) => {
      check(ctx);
      return handler(request, ctx);
    };
  }
  return guarded as T;
}
