import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, invalidArgument } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';
import type { Metrics } from '../metrics.js';

const BEARER = /^Bearer +(\S+) *$/i;
const CHALLENGE = 'Bearer realm="dynamic-events"';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Bearer authentication with the configured token. Without a token every request passes and any
 * Authorization header is ignored. Both sides are hashed first, so the comparison is constant-time
 * whatever their lengths. Runs before the body is read: unauthenticated bodies are never parsed.
 */
export function bearerAuth(deps: { token: string | undefined; metrics: Metrics }): GatewayMiddleware {
  if (deps.token === undefined) return (_ctx, next) => next();
  const expected = digest(deps.token);
  return (ctx, next) => {
    // Node keeps the first of two Authorization headers and drops the other: which credential
    // counts would be ambiguous (and a proxy may have read the other one), so refuse both.
    if ((ctx.req.headersDistinct.authorization?.length ?? 0) > 1) {
      throw invalidArgument('Authorization', 'duplicate', 'Authorization must be sent once');
    }
    const header = ctx.get('Authorization');
    const match = BEARER.exec(header);
    if (!match?.[1]) {
      deps.metrics.authFailures.inc({ reason: 'missing' });
      ctx.set('WWW-Authenticate', CHALLENGE);
      throw new AppError('UNAUTHENTICATED', header === '' ? 'missing bearer token' : 'Authorization must be "Bearer <token>"');
    }
    if (!timingSafeEqual(digest(match[1]), expected)) {
      deps.metrics.authFailures.inc({ reason: 'invalid' });
      ctx.set('WWW-Authenticate', `${CHALLENGE}, error="invalid_token"`);
      throw new AppError('UNAUTHENTICATED', 'invalid bearer token');
    }
    return next();
  };
}
