import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError, invalidArgument } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';
import type { Metrics } from '../metrics.js';

const BEARER = /^Bearer +(\S+) *$/i;
const CHALLENGE = 'Bearer realm="dynamic-events"';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Throws AppError UNAUTHENTICATED (with its WWW-Authenticate challenge) unless the request may pass. */
export type Authenticator = (req: IncomingMessage) => void;

/**
 * Bearer authentication with the configured token. Without a token every request passes and any
 * Authorization header is ignored. Both sides are hashed first, so the comparison is constant-time
 * whatever their lengths. Runs before the body is read: unauthenticated bodies are never parsed.
 * The challenge travels in the error's details; whoever answers the failure sends it.
 */
export function createAuthenticator(deps: { token: string | undefined; metrics: Metrics }): Authenticator {
  if (deps.token === undefined) return () => {};
  const expected = digest(deps.token);
  return (req) => {
    // Node keeps the first of two Authorization headers and drops the other: which credential
    // counts would be ambiguous (and a proxy may have read the other one), so refuse both.
    if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
      throw invalidArgument('Authorization', 'duplicate', 'Authorization must be sent once');
    }
    const header = req.headers.authorization ?? '';
    const match = BEARER.exec(header);
    if (!match?.[1]) {
      deps.metrics.authFailures.inc({ reason: 'missing' });
      const message = header === '' ? 'missing bearer token' : 'Authorization must be "Bearer <token>"';
      throw new AppError('UNAUTHENTICATED', message, { wwwAuthenticate: CHALLENGE });
    }
    if (!timingSafeEqual(digest(match[1]), expected)) {
      deps.metrics.authFailures.inc({ reason: 'invalid' });
      throw new AppError('UNAUTHENTICATED', 'invalid bearer token', { wwwAuthenticate: `${CHALLENGE}, error="invalid_token"` });
    }
  };
}

/** The authenticator as Koa middleware, for every route that needs it. */
export function bearerAuth(authenticate: Authenticator): GatewayMiddleware {
  return (ctx, next) => {
    authenticate(ctx.req);
    return next();
  };
}
