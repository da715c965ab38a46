import { randomUUID } from 'node:crypto';
import type { GatewayMiddleware } from '../context.js';

/** Printable ASCII without spaces, at most 128 characters: anything else is replaced, never logged. */
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** Sets the request id (the caller's X-Request-Id if sane, else a UUID) on ctx.state and the response. */
export function requestId(): GatewayMiddleware {
  return (ctx, next) => {
    const sent = ctx.get('X-Request-Id');
    ctx.state.requestId = SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    return next();
  };
}
