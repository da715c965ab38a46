import type { Http2Server } from 'node:http2';
import { Server as NetServer } from 'node:net';
import type { Server } from '@grpc/grpc-js';

/**
 * The one place that reads grpc-js internals: the node:http2 servers a bound grpc-js Server listens
 * with, which it keeps in its private `http2Servers` map (keyed by each listener) and offers no
 * accessor for. Our servers' HTTP/2 windows are set on them (http2-window.ts). @grpc/grpc-js is
 * pinned to an exact version in proto/package.json, and the shape is checked on every call (each
 * server start): a grpc-js that keeps its listeners elsewhere fails the start with this module's
 * name rather than serving with Node's default windows unnoticed.
 */

/** Thrown when the installed grpc-js keeps its listeners somewhere other than where http2ListenersOf reads them. */
export class GrpcInternalsChanged extends Error {
  override readonly name = 'GrpcInternalsChanged';
}

const isListener = (value: unknown): value is Http2Server => value instanceof NetServer && typeof value.listeners === 'function';

/** The HTTP/2 listeners of `server`, which bindAsync has bound: at least one, each a node:http2 server. */
export function http2ListenersOf(server: Server): Http2Server[] {
  const map: unknown = (server as unknown as { http2Servers?: unknown }).http2Servers;
  const listeners = map instanceof Map ? [...(map as Map<unknown, unknown>).keys()] : [];
  if (listeners.length === 0 || !listeners.every(isListener)) {
    throw new GrpcInternalsChanged(
      '@grpc/grpc-js does not keep a bound server\'s HTTP/2 listeners in its http2Servers map, so the server\'s flow-control windows cannot be set: ' +
        'pin @grpc/grpc-js back, or find the listeners where the new version keeps them (proto/src/runtime/grpc-http2-listeners.ts)',
    );
  }
  return listeners;
}
