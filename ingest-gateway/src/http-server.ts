import type { Server } from 'node:http';
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
