import { AppError } from './app-error.js';

/**
 * Outages answered as outages: a peer, a database or a store that is down or too slow is not a bug
 * in the request (no 500) and not the caller's fault (no 4xx). UNAVAILABLE becomes 503 with
 * Retry-After at the HTTP edge, DEADLINE_EXCEEDED 504. Messages name the part, never its address.
 */
const OUTAGE_RULE = 'unavailable';

/** Node's error codes for a peer that refuses, resets, cannot be resolved or reached. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** `what` (e.g. "the event store") is down: retry later. */
export function unavailable(what: string, cause: unknown): AppError {
  return new AppError('UNAVAILABLE', `${what} is unavailable; retry later`, { rule: OUTAGE_RULE, retryAfterSeconds: 1 }, cause);
}

/** `what` did not answer in time. */
export function timedOut(what: string, cause: unknown): AppError {
  return new AppError('DEADLINE_EXCEEDED', `${what} did not answer in time; retry later`, { rule: 'timeout' }, cause);
}

/** True when `err`, one of its causes or one of an AggregateError's errors is a network failure. */
export function isNetworkFailure(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (Array.isArray(errors) && errors.some((e) => isNetworkFailure(e, depth + 1))) return true;
  return isNetworkFailure(cause, depth + 1);
}
