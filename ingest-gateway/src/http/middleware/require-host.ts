import type { IncomingMessage } from 'node:http';
import { invalidArgument } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';

/**
 * HTTP/1.1 requires a Host header (RFC 9112 3.2). Node can refuse a request without one itself,
 * but its answer is a bare 400 without the API's `{"error"}` body and without a log line, so the
 * server lets it through (requireHostHeader: false, http-server.ts) and this answers it, logged.
 */
export function checkHost(req: IncomingMessage): void {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    throw invalidArgument('Host', 'required', 'Host header is required (HTTP/1.1)');
  }
}

/** checkHost as Koa middleware. */
export function requireHost(): GatewayMiddleware {
  return (ctx, next) => {
    checkHost(ctx.req);
    return next();
  };
}
