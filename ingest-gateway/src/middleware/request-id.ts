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
  // Bound children per label set: prom-client hashes a labels object on every call otherwise, a
  // measurable share of a request's cost at thousands per second. Label values are low-cardinality.
  const counters = new Map<string, { inc(): void }>();
  const histograms = new Map<string, { observe(value: number): void }>();
  const counter = (method: string, route: string, statusClass: string) => {
    const key = `${method} ${route} ${statusClass}`;
    let child = counters.get(key);
    if (!child) counters.set(key, (child = deps.metrics.httpRequests.labels({ method, route, status_class: statusClass })));
    return child;
  };
  const histogram = (method: string, route: string) => {
    const key = `${method} ${route}`;
    let child = histograms.get(key);
    if (!child) histograms.set(key, (child = deps.metrics.httpDuration.labels({ method, route })));
    return child;
  };
  return (ctx, next) => {
    const started = performance.now();
    const sent = ctx.get('X-Request-Id');
    ctx.state.requestId = SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);

    ctx.res.once('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const route = routeOf(ctx);
      const method = KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER';
      const status = ctx.res.writableFinished ? ctx.status : 499;
      counter(method, route, `${Math.floor(status / 100)}xx`).inc();
      histogram(method, route).observe(seconds);
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
