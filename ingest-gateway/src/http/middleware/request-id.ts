import { randomUUID } from 'node:crypto';
import type { GatewayMiddleware } from '../context.js';

/** Printable ASCII without spaces, at most 128 characters: anything else is replaced, never logged. */
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The caller's X-Request-Id if sane, else a fresh UUID. */
export function requestIdOf(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** Sets the request id on ctx.state and the response. */
export function requestId(): GatewayMiddleware {
  return (ctx, next) => {
    ctx.state.requestId = requestIdOf(ctx.req.headers['x-request-id']);
    ctx.set('X-Request-Id', ctx.state.requestId);
    return next();
  };
}
