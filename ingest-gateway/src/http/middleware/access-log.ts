import type { Logger } from '@dynamic-events/proto/runtime';
import { onResponseDone, type GatewayMiddleware, type ResponseOutcome } from '../context.js';

/** Probes and scrapes arrive every few seconds: their lines go to debug. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz']);

/** A finished request as its log line and metrics see it. */
export interface RequestOutcome extends ResponseOutcome {
  requestId: string | undefined;
  method: string;
}

/** Writes one log line per request: id, method, route (never the path), status, duration. */
export function createAccessLogger(deps: { logger: Logger }): (outcome: RequestOutcome) => void {
  return ({ requestId, method, route, status, seconds }) => {
    const line = { requestId, method, route, status, durationMs: Math.round(seconds * 1e6) / 1e3 };
    if (QUIET_ROUTES.has(route)) deps.logger.debug(line, 'request');
    else deps.logger.info(line, 'request');
  };
}

/** The access log line of every request the Koa chain answers, once its response is done. */
export function accessLog(deps: { logger: Logger }): GatewayMiddleware {
  const write = createAccessLogger(deps);
  return (ctx, next) => {
    onResponseDone(ctx, (outcome) => write({ ...outcome, requestId: ctx.state.requestId, method: ctx.method }));
    return next();
  };
}
