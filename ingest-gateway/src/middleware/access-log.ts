import type { Logger } from '@dynamic-events/proto';
import { onResponseDone, type GatewayMiddleware } from '../context.js';

/** Probes and scrapes arrive every few seconds: their lines go to debug. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz']);

/** One log line per request once its response is done: id, method, route (never the path), status, duration. */
export function accessLog(deps: { logger: Logger }): GatewayMiddleware {
  return (ctx, next) => {
    onResponseDone(ctx, ({ route, status, seconds }) => {
      const line = { requestId: ctx.state.requestId, method: ctx.method, route, status, durationMs: Math.round(seconds * 1e6) / 1e3 };
      if (QUIET_ROUTES.has(route)) deps.logger.debug(line, 'request');
      else deps.logger.info(line, 'request');
    });
    return next();
  };
}
