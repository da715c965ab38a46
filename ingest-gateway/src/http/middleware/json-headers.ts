import type { GatewayMiddleware } from '../context.js';

/**
 * What every JSON answer carries, on the Koa chain and the POST's fast path alike: never kept in a
 * browser's cache (token lists, settings and events would outlive a sign-out on disk), never sniffed
 * as another type (a 404 echoes its path), never framed.
 */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/**
 * JSON_HEADERS on every response before its route runs: a route answering something else (a stored
 * image, a console file, the SSE stream) sets its own Cache-Control over this one.
 */
export function jsonHeaders(): GatewayMiddleware {
  return (ctx, next) => {
    ctx.set(JSON_HEADERS);
    return next();
  };
}
