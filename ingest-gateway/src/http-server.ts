import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from '@dynamic-events/proto';

/**
 * Idle keep-alive sockets live `timeoutMs`. It must exceed the idle timeout of whatever proxies to us
 * (ingress, cloud load balancer): otherwise we close a socket the proxy is reusing at that instant
 * and it answers its client 502.
 */
export function configureKeepAlive(server: Server, timeoutMs: number): void {
  server.keepAliveTimeout = timeoutMs;
}

/**
 * The HTTP server, with bounds on how long a request may take to arrive (Node's default holds a slow
 * body for 5 minutes): a sender that stalls gets 408 and its connection closes, freeing what its body
 * held. Node checks these every `connectionsCheckingInterval` (30 s by default, which would stretch
 * a 10 s header timeout to 40 s): once a second keeps them close to what they say.
 */
export function createHttpServer(handler: RequestListener, options: { requestTimeoutMs: number; headersTimeoutMs: number }): Server {
  return createServer(
    { requestTimeout: options.requestTimeoutMs, headersTimeout: options.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs) },
    handler,
  );
}

/**
 * Stops accepting, lets in-flight requests finish and closes keep-alive sockets as soon as they
 * are idle; after `timeoutMs` the remaining connections are cut so shutdown always ends.
 */
export function closeGracefully(server: Server, timeoutMs: number, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      logger.warn({ timeoutMs }, 'http shutdown timed out, closing remaining connections');
      server.closeAllConnections();
    }, timeoutMs);
    // A streamed response may end after the Connection: close header could be set: sweep idle sockets.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
