import type { Http2Server, ServerHttp2Stream } from 'node:http2';
import { Server as NetServer } from 'node:net';
import type { Server } from '@grpc/grpc-js';

/**
 * The one place that reads grpc-js internals: the node:http2 servers a bound grpc-js Server listens
 * with, which it keeps in its private `http2Servers` map (keyed by each listener) and offers no
 * accessor for, and the HTTP/2 stream under a server call (http2StreamOf). Our servers' HTTP/2 windows are set on them (http2-window.ts). @grpc/grpc-js is
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

// node:http2 does not export its stream class: know one by what a reset needs.
const isHttp2Stream = (value: unknown): value is ServerHttp2Stream =>
  typeof value === 'object' && value !== null && 'rstCode' in value && 'session' in value && typeof (value as { close?: unknown }).close === 'function';

/**
 * The HTTP/2 stream under a grpc-js server call: the call object's `call`, through each
 * interceptor's `nextCall`, down to the base call's `stream`. grpc-js offers no way to reset a call
 * whose client stopped reading (its status waits behind the unsent data forever); undefined when
 * the installed grpc-js keeps it elsewhere (a test checks it does not).
 */
export function http2StreamOf(call: object): ServerHttp2Stream | undefined {
  let at: unknown = (call as { call?: unknown }).call;
  for (let depth = 0; depth < 8 && typeof at === 'object' && at !== null; depth++) {
    const stream: unknown = (at as { stream?: unknown }).stream;
    if (isHttp2Stream(stream)) return stream;
    at = (at as { nextCall?: unknown }).nextCall;
  }
  return undefined;
}
