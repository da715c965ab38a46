import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError, invalidArgument } from '@dynamic-events/proto';
import type { Metrics } from '../metrics.js';
import type { TokenCredential } from './token-model.js';
import type { TokenSource } from './token-sync.js';

const BEARER = /^Bearer +(\S+) *$/i;
const CHALLENGE = 'Bearer realm="dynamic-events"';

/**
 * SHA-256 in base64, in one native call: a Hash object per request (createHash) cost the gateway
 * about 12 µs per event, several times the hashing itself.
 */
export const digest = (value: string): string => hash('sha256', value, 'base64');

/**
 * Throws AppError UNAUTHENTICATED (with its WWW-Authenticate challenge) unless the request may pass;
 * answers the registry token that authenticated it (undefined: no token needed, or the bootstrap
 * token before the registry knows it), whose policy then applies.
 */
export type Authenticator = (req: IncomingMessage) => TokenCredential | undefined;

/** What the authenticator checks against. */
interface AuthenticatorDeps {
  /** DYNAMIC_EVENTS_TOKEN: accepted without the registry (also before its first answer). */
  token: string | undefined;
  /** The registry's tokens (token-sync.ts); undefined: only the bootstrap token exists (tests, tools). */
  tokens?: TokenSource;
  metrics: Metrics;
}

/**
 * Bearer authentication. A token is needed when DYNAMIC_EVENTS_TOKEN is set or the registry says
 * the instance requires one (it does from the first token created until an admin turns it off);
 * otherwise every request passes and any Authorization header is ignored. A presented secret is
 * hashed (SHA-256) and looked up by its hash: the lookup's timing can only reveal something about
 * the hash, which does not help forge a secret; the bootstrap token is compared constant-time.
 * Expiry is checked here, at each request, against the gateway's clock. Until the registry first
 * answered, only the bootstrap token can be checked: other requests get 503 rather than a guess
 * (readiness waits for that answer too). Runs before the body is read: unauthenticated bodies are
 * never parsed. The challenge travels in the error's details; whoever answers the failure sends it.
 */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const { tokens, metrics } = deps;
  if (deps.token === undefined && tokens === undefined) return () => undefined;
  const bootstrap = deps.token === undefined ? undefined : Buffer.from(digest(deps.token), 'base64');
  return (req) => {
    const state = tokens?.current();
    if (bootstrap === undefined) {
      // Whether a token is needed at all is the registry's answer: until it came, nobody can tell.
      if (state === undefined) throw new AppError('UNAVAILABLE', 'tokens are not loaded yet: retry shortly', { retryAfterSeconds: 1, rule: 'tokens-loading' });
      if (!state.requireToken) return undefined;
    }
    const presented = digest(bearerOf(req, metrics));
    // The registry's copy first: it knows the bootstrap token too (with its id, for the records).
    const credential = state?.byHash.get(presented);
    if (credential !== undefined && (credential.expiresAtMs === undefined || credential.expiresAtMs > Date.now())) {
      tokens?.used(credential.id);
      return credential;
    }
    if (bootstrap !== undefined && timingSafeEqual(Buffer.from(presented, 'base64'), bootstrap)) return undefined;
    throw invalidToken(metrics);
  };
}

/**
 * The `Authorization: Bearer <token>` of a request, or undefined when the header is missing or of
 * another shape; 400 for two Authorization headers. Shared with the admin API's credential.
 */
export function bearerTokenOf(req: IncomingMessage): string | undefined {
  // Node keeps the first of two Authorization headers and drops the other: which credential
  // counts would be ambiguous (and a proxy may have read the other one), so refuse both.
  if (sentTwice(req.rawHeaders)) {
    throw invalidArgument('Authorization', 'duplicate', 'Authorization must be sent once');
  }
  return BEARER.exec(req.headers.authorization ?? '')?.[1] || undefined;
}

/** The bearer token of a request; 401 when there is none. */
function bearerOf(req: IncomingMessage, metrics: Metrics): string {
  const token = bearerTokenOf(req);
  if (token === undefined) {
    metrics.authFailures.inc({ reason: 'missing' });
    const message = req.headers.authorization ? 'Authorization must be "Bearer <token>"' : 'missing bearer token';
    throw new AppError('UNAUTHENTICATED', message, { wwwAuthenticate: CHALLENGE });
  }
  return token;
}

/**
 * True when the request carries Authorization more than once. A scan of the raw header list:
 * `req.headersDistinct` builds an object and an array per header on every request, which with a
 * token on every request is a visible share of the gateway's allocations.
 */
function sentTwice(raw: string[]): boolean {
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++seen > 1) return true;
  }
  return false;
}

/** Wrong, revoked and expired tokens get the same answer: the body never says which. */
export function invalidToken(metrics: Metrics): AppError {
  metrics.authFailures.inc({ reason: 'invalid' });
  return new AppError('UNAUTHENTICATED', 'invalid bearer token', { wwwAuthenticate: `${CHALLENGE}, error="invalid_token"` });
}
