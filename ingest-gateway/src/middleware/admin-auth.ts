import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, invalidArgument } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';
import type { Metrics } from '../metrics.js';

const BEARER = /^Bearer +(\S+) *$/i;
const CHALLENGE = 'Bearer realm="dynamic-events-admin"';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * The admin API's own credential (ADMIN_TOKEN), separate from every ingest token: an integrator's
 * token never manages tokens. Compared constant-time on hashes, like the bootstrap token.
 */
export function adminAuth(adminToken: string, metrics: Metrics): GatewayMiddleware {
  const expected = digest(adminToken);
  return (ctx, next) => {
    if ((ctx.req.headersDistinct.authorization?.length ?? 0) > 1) {
      throw invalidArgument('Authorization', 'duplicate', 'Authorization must be sent once');
    }
    const match = BEARER.exec(ctx.get('Authorization'));
    if (!match?.[1]) {
      metrics.authFailures.inc({ reason: 'admin-missing' });
      throw new AppError('UNAUTHENTICATED', 'missing admin bearer token', { wwwAuthenticate: CHALLENGE });
    }
    if (!timingSafeEqual(digest(match[1]), expected)) {
      metrics.authFailures.inc({ reason: 'admin-invalid' });
      throw new AppError('UNAUTHENTICATED', 'invalid admin bearer token', { wwwAuthenticate: `${CHALLENGE}, error="invalid_token"` });
    }
    return next();
  };
}
