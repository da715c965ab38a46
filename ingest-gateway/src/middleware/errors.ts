import { AppError, httpStatusOf, INTERNAL_MESSAGE, type Logger } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';
import type { Metrics } from '../metrics.js';

/** How a failure is answered: status, the message shown, the rule (for metrics) and what to log. */
export interface HttpFailure {
  status: number;
  message: string;
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
    return { status, message: err.message, rule: err.details.rule, cause: err.cause ?? err };
  }
  const candidate = err as { status?: unknown; expose?: unknown; message?: unknown } | null;
  if (
    typeof candidate?.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status < 500 &&
    candidate.expose === true &&
    typeof candidate.message === 'string'
  ) {
    return { status: candidate.status, message: candidate.message, rule: undefined, cause: err };
  }
  return { status: 500, message: INTERNAL_MESSAGE, rule: undefined, cause: err };
}

/**
 * Registered first: every failure below it becomes `{"error": "<message>"}` with the right status.
 * 5xx bodies never carry internal text; their cause is logged with the request id.
 */
export function errors(deps: { logger: Logger; metrics: Metrics }): GatewayMiddleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const failure = toHttpFailure(err);
      if (failure.status >= 500) {
        deps.logger.error({ err: failure.cause, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
      } else if (failure.rule !== undefined && failure.status !== 401 && failure.status !== 404) {
        deps.metrics.validationFailures.inc({ rule: failure.rule });
      }
      if (ctx.headerSent) return;
      // A 503 is an overload or an outage, never the caller's fault: always say when to try again.
      if (failure.status === 503) ctx.set('Retry-After', String((err instanceof AppError && err.details.retryAfterSeconds) || 1));
      ctx.status = failure.status;
      ctx.body = { error: failure.message };
    }
  };
}
