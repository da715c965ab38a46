import { randomUUID } from 'node:crypto';
import type { Logger } from '@dynamic-events/proto';
import { routeOf, type GatewayMiddleware } from '../context.js';
import type { Metrics } from '../metrics.js';

/** Printable ASCII without spaces, at most 128 characters: anything else is replaced, never logged. */
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Probes and scrapes arrive every few seconds: their lines go to debug. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * Sets the request id (caller's X-Request-Id if sane, else a UUID) on ctx.state and the response,
 * then, when the response is done, writes one log line and the HTTP metrics. It hooks the
 * response's `close` event so it sees the final status the errors middleware wrote.
 */
export function requestId(deps: { logger: Logger; metrics: Metrics }): GatewayMiddleware {
  return (ctx, next) => {
    const started = process.hrtime.bigint();
    const sent = ctx.get('X-Request-Id');
    ctx.state.requestId = SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);

    ctx.res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(ctx);
      const method = KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER';
      const status = ctx.res.writableFinished ? ctx.status : 499;
      deps.metrics.httpRequests.inc({ method, route, status_class: `${Math.floor(status / 100)}xx` });
      deps.metrics.httpDuration.observe({ method, route }, seconds);
      const line = {
        requestId: ctx.state.requestId,
        method: ctx.method,
        route,
        status,
        durationMs: Math.round(seconds * 1e6) / 1e3,
      };
      if (QUIET_ROUTES.has(route)) deps.logger.debug(line, 'request');
      else deps.logger.info(line, 'request');
    });
    return next();
  };
}
