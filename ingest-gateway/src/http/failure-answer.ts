import { AppError, httpStatusOf, INTERNAL_MESSAGE } from '@dynamic-events/proto';
import { type Logger } from '@dynamic-events/proto/runtime';
import type { Metrics } from '../metrics.js';

/** How a failure is answered: status, the message shown, the field and rule it names, and what to log. */
interface HttpFailure {
  status: number;
  message: string;
  field: string | undefined;
  rule: string | undefined;
  cause: unknown;
}

/**
 * AppError → its HTTP status and safe message; http-errors below 500 (koa-body, router) → their
 * status and exposed message; anything else → 500 "internal error", whose cause is only logged.
 */
export function toHttpFailure(err: unknown): HttpFailure {
  if (err instanceof AppError) {
    const status = httpStatusOf(err);
    return { status, message: err.message, field: err.details.field, rule: err.details.rule, cause: err.cause ?? err };
  }
  const candidate = err as { status?: unknown; expose?: unknown; message?: unknown } | null;
  if (
    typeof candidate?.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status < 500 &&
    candidate.expose === true &&
    typeof candidate.message === 'string'
  ) {
    return { status: candidate.status, message: candidate.message, field: undefined, rule: undefined, cause: err };
  }
  return { status: 500, message: INTERNAL_MESSAGE, field: undefined, rule: undefined, cause: err };
}

/**
 * The body of a refusal: the message, and the field and rule it is about. A 400 always names both
 * (`body` and `invalid` when the rule that refused names no field); other 4xx name them when known;
 * a 5xx never does.
 */
interface FailureBody {
  error: string;
  field?: string;
  rule?: string;
}

/** What a failed request is answered: status, extra headers and the body. */
interface FailureAnswer {
  status: number;
  headers: Record<string, string>;
  body: FailureBody;
}

/** The body for a failure: see FailureBody. */
function bodyOf(failure: HttpFailure): FailureBody {
  if (failure.status >= 500) return { error: failure.message };
  if (failure.status === 400) return { error: failure.message, field: failure.field ?? 'body', rule: failure.rule ?? 'invalid' };
  return {
    error: failure.message,
    ...(failure.field === undefined ? {} : { field: failure.field }),
    ...(failure.rule === undefined ? {} : { rule: failure.rule }),
  };
}

/** The request a failure belongs to, for its log line. */
interface FailedRequest {
  requestId: string | undefined;
  method: string;
  path: string;
}

/**
 * Turns any failure into its answer, and logs or counts it: 5xx causes are logged with the request
 * id (their bodies never carry internal text), caller errors counted by rule. A 503 always says when
 * to retry; a 401 carries its challenge. Every HTTP path (the Koa chain and the POST fast path)
 * answers failures through this one function.
 */
export function createFailureAnswer(deps: { logger: Logger; metrics: Metrics }): (err: unknown, request: FailedRequest) => FailureAnswer {
  return (err, request) => {
    const failure = toHttpFailure(err);
    if (failure.status >= 500) {
      deps.logger.error({ err: failure.cause, ...request }, 'request failed');
    } else if (failure.rule !== undefined && failure.status !== 401 && failure.status !== 404) {
      deps.metrics.validationFailures.inc({ rule: failure.rule });
    }
    const headers: Record<string, string> = {};
    const details = err instanceof AppError ? err.details : undefined;
    // A 503 is an overload or an outage, never the caller's fault, and a 429 a rate: always say when to try again.
    if (failure.status === 503 || failure.status === 429) headers['Retry-After'] = String(details?.retryAfterSeconds || 1);
    if (failure.status === 401 && details?.wwwAuthenticate !== undefined) headers['WWW-Authenticate'] = details.wwwAuthenticate;
    return { status: failure.status, headers, body: bodyOf(failure) };
  };
}
