import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '@dynamic-events/proto';
import type { Metrics } from '../metrics.js';
import { bearerTokenOf, digest, invalidToken, type Authenticator } from './authenticator.js';

const CHALLENGE = 'Bearer realm="dynamic-events-admin"';

const digestBytes = (value: string): Buffer => Buffer.from(digest(value), 'base64');

/** Throws UNAUTHENTICATED unless the request presents the admin credential. */
type AdminCheck = (req: IncomingMessage) => void;

/**
 * Whether a presented bearer secret is the admin credential: compared constant-time on SHA-256
 * digests (equal lengths whatever was presented), like the bootstrap token.
 */
export function createAdminMatch(adminToken: string): (presented: string) => boolean {
  const expected = digestBytes(adminToken);
  return (presented) => timingSafeEqual(digestBytes(presented), expected);
}

/**
 * The admin API's own credential (ADMIN_TOKEN), separate from every ingest token: an integrator's
 * token never manages tokens.
 */
export function createAdminCheck(adminToken: string, metrics: Metrics): AdminCheck {
  const matches = createAdminMatch(adminToken);
  return (req) => {
    const presented = bearerTokenOf(req);
    if (presented === undefined) {
      metrics.authFailures.inc({ reason: 'admin-missing' });
      throw new AppError('UNAUTHENTICATED', 'missing admin bearer token', { wwwAuthenticate: CHALLENGE });
    }
    if (!matches(presented)) {
      metrics.authFailures.inc({ reason: 'admin-invalid' });
      throw new AppError('UNAUTHENTICATED', 'invalid admin bearer token', { wwwAuthenticate: `${CHALLENGE}, error="invalid_token"` });
    }
  };
}

/**
 * The POST's authenticator, refusing the admin credential before anything else: it reads and
 * manages, it never posts events, whether or not the instance requires a token (an open instance
 * would otherwise record what it sends). Answered and counted as any wrong token. Requests without
 * Authorization (an open instance's usual POST) cost nothing more.
 */
export function refuseAdminOnPost(authenticate: Authenticator, adminToken: string | undefined, metrics: Metrics): Authenticator {
  if (adminToken === undefined) return authenticate;
  const isAdmin = createAdminMatch(adminToken);
  return (req) => {
    const presented = req.headers.authorization === undefined ? undefined : bearerTokenOf(req);
    if (presented !== undefined && isAdmin(presented)) throw invalidToken(metrics);
    return authenticate(req);
  };
}
