import type { IncomingMessage } from 'node:http';
import { invalidArgument } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';
import { checkAllowedHost, type AllowedHosts } from '../allowed-hosts.js';

/**
 * HTTP/1.1 requires a Host header (RFC 9112 3.2). Node can refuse a request without one itself,
 * but its answer is a bare 400 without the API's `{"error"}` body and without a log line, so the
 * server lets it through (requireHostHeader: false, http-server.ts) and this answers it, logged.
 * With ALLOWED_HOSTS, a Host not among them is 421 (allowed-hosts.ts).
 */
export function checkHost(req: IncomingMessage, allowed: AllowedHosts): void {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    throw invalidArgument('Host', 'required', 'Host header is required (HTTP/1.1)');
  }
  checkAllowedHost(req, allowed);
}

/** The probes carry nothing to read or post, and the kubelet names them by the pod's address. */
const PROBES = new Set(['/healthz', '/readyz']);

/** checkHost as Koa middleware; the probes skip the ALLOWED_HOSTS check. */
export function requireHost(allowed: AllowedHosts): GatewayMiddleware {
  return (ctx, next) => {
    checkHost(ctx.req, PROBES.has(ctx.path) ? undefined : allowed);
    return next();
  };
}
