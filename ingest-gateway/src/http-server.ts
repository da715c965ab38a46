import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@dynamic-events/proto';
import { clientErrorAnswer } from './client-faults.js';

/** Sockets with a request in progress: its own log line will report how it ended. */
const busy = new WeakSet<Duplex>();

/**
 * Node's parser refuses malformed HTTP (a broken chunk, an oversized header, a client gone
 * mid-body) with an error carrying every raw byte it read (`rawPacket`: the Authorization header
 * and the body). It is answered here as JSON, never logged as is: one short info line with the
 * parser's code when no request was in progress; otherwise the request's own line (499 or its
 * status) is the only one.
 */
export function handleClientErrors(server: Server, logger: Logger): void {
  server.on('request', (req, res) => {
    const socket = req.socket;
    busy.add(socket);
    res.once('close', () => busy.delete(socket));
  });
  server.on('clientError', (err: Error & { code?: unknown }, socket: Duplex) => {
    if (!busy.has(socket)) logger.info({ code: typeof err.code === 'string' ? err.code : undefined }, 'malformed HTTP request refused');
    if (socket.writable && !busy.has(socket) && (socket as Duplex & { bytesWritten?: number }).bytesWritten === 0) {
      const { status, message } = clientErrorAnswer(err);
      const body = JSON.stringify({ error: message });
      socket.write(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  });
}

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
