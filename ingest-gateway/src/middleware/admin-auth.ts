import { timingSafeEqual } from 'node:crypto';
import { AppError } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';
import type { Metrics } from '../metrics.js';
import { bearerTokenOf, digest } from './auth.js';

const CHALLENGE = 'Bearer realm="dynamic-events-admin"';

const digestBytes = (value: string): Buffer => Buffer.from(digest(value), 'base64');

/**
 * The admin API's own credential (ADMIN_TOKEN), separate from every ingest token: an integrator's
 * token never manages tokens. Compared constant-time on hashes, like the bootstrap token.
 */
export function adminAuth(adminToken: string, metrics: Metrics): GatewayMiddleware {
  const expected = digestBytes(adminToken);
  return (ctx, next) => {
    const presented = bearerTokenOf(ctx.req);
    if (presented === undefined) {
      metrics.authFailures.inc({ reason: 'admin-missing' });
      throw new AppError('UNAUTHENTICATED', 'missing admin bearer token', { wwwAuthenticate: CHALLENGE });
    }
    if (!timingSafeEqual(digestBytes(presented), expected)) {
      metrics.authFailures.inc({ reason: 'admin-invalid' });
      throw new AppError('UNAUTHENTICATED', 'invalid admin bearer token', { wwwAuthenticate: `${CHALLENGE}, error="invalid_token"` });
    }
    return next();
  };
}
