import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@dynamic-events/proto/runtime';
import { clientErrorAnswer, markAnsweredOnSocket } from './client-faults.js';

/** Sockets with a request in progress, and its response: its own log line will report how it ended. */
const busy = new WeakMap<Duplex, ServerResponse>();

/**
 * Node's parser refuses malformed HTTP (a broken chunk, an oversized header, a client gone
 * mid-body) with an error carrying every raw byte it read (`rawPacket`: the Authorization header
 * and the body). It is answered here as JSON, never logged as is: one short info line with the
 * parser's code when no request was in progress; otherwise the request's own line is the only one,
 * and it reports what the client got: this JSON answer's status when it went out (it does whenever
 * the current response has not started and the socket is still writable), else 499 or the status
 * the response had already started with.
 */
export function handleClientErrors(server: Server, logger: Logger): void {
  server.on('request', (req, res) => {
    const socket = req.socket;
    busy.set(socket, res);
    res.once('close', () => busy.delete(socket));
  });
  server.on('clientError', (err: Error & { code?: unknown }, socket: Duplex) => {
    if (!busy.has(socket)) logger.info({ code: typeof err.code === 'string' ? err.code : undefined }, 'malformed HTTP request refused');
    // Answered in JSON even mid-request (a broken chunk after the headers), unless its response started.
    const res = busy.get(socket);
    // A client that ended its side mid-request (an abort: the parser sees EOF) reads no answer; its
    // request line says 499. A broken chunk from a client still there is answered, and logged so.
    const gone = res !== undefined && socket.readableEnded;
    if (!gone && socket.writable && !res?.headersSent) {
      const { status, message } = clientErrorAnswer(err);
      const body = JSON.stringify({ error: message });
      socket.write(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      if (res) markAnsweredOnSocket(res, status);
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
 * The HTTP server, with bounds on how long a request may take to arrive (Node's default holds a slow
 * body for 5 minutes): a sender that stalls gets 408 and its connection closes, freeing what its body
 * held. Node checks these every `connectionsCheckingInterval` (30 s by default, which would stretch
 * a 10 s header timeout to 40 s): once a second keeps them close to what they say.
 */
export function createHttpServer(handler: RequestListener, options: { requestTimeoutMs: number; headersTimeoutMs: number }): Server {
  return createServer(
    {
      requestTimeout: options.requestTimeoutMs,
      headersTimeout: options.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs),
      // Answered by the app as JSON, and logged (middleware/require-host.ts).
      requireHostHeader: false,
    },
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
