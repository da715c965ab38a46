import type { ServerResponse } from 'node:http';
import type { GatewayMiddleware } from '../context.js';

/**
 * While shutting down, every response closes its keep-alive connection so the server can stop
 * (closeGracefully, http-server.ts). The one rule for both HTTP paths: the POST fast path applies it
 * just before it writes its answer, the Koa chain through `closeWhenDraining`. It costs a header
 * only once shutdown started.
 */
export function closeIfDraining(res: ServerResponse, draining: AbortSignal): void {
  if (draining.aborted && !res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * closeIfDraining as Koa middleware. Applied after the handler: a request that was in flight when
 * shutdown began is answered after it, and its connection must not stay open waiting for a next
 * request.
 */
export function closeWhenDraining(draining: AbortSignal): GatewayMiddleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      closeIfDraining(ctx.res, draining);
    }
  };
}
