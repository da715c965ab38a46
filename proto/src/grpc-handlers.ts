import { randomUUID } from 'node:crypto';
import type {
  handleServerStreamingCall,
  handleUnaryCall,
  MethodDefinition,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { requestIdFrom, type CallContext } from './call-context.js';
import { logCall, type CallLogEntry } from './grpc-call-log.js';
import { toStatusObject } from './grpc-errors.js';
import { assertUtf8Request } from './strict-utf8.js';

type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

/**
 * A service implementation in async style: unary handlers return a promise, server-streaming
 * handlers return an async iterable. Derived from the ts-proto `XServiceServer` interface.
 */
export type AsyncServiceImpl<S> = {
  [K in KnownKeys<S>]: S[K] extends handleUnaryCall<infer Req, infer Res>
    ? (request: Req, ctx: CallContext) => Promise<Res>
    : S[K] extends handleServerStreamingCall<infer Req, infer Res>
      ? (request: Req, ctx: CallContext) => AsyncIterable<Res>
      : never;
};

type Handler = (request: unknown, ctx: CallContext) => unknown;

function contextOf(call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>): CallContext {
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort());
  return { requestId: requestIdFrom(call.metadata, randomUUID), metadata: call.metadata, signal: controller.signal };
}

/** Resolves when the stream can take more data, or when the caller went away (no drain will come). */
function drainedOrAborted(call: ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

function unary(logger: Logger, service: string, method: string, handler: Handler): handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const ctx = contextOf(call);
    const entry: CallLogEntry = { service, method, started: process.hrtime.bigint(), requestId: ctx.requestId };
    Promise.resolve()
      .then(() => {
        assertUtf8Request(call.request);
        return handler(call.request, ctx);
      })
      .then(
        (response) => {
          logCall(logger, entry, undefined);
          callback(null, response);
        },
        (err: unknown) => {
          logCall(logger, entry, err);
          callback(toStatusObject(err));
        },
      );
  };
}

function serverStreaming(logger: Logger, service: string, method: string, handler: Handler): handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const ctx = contextOf(call);
    const entry: CallLogEntry = { service, method, started: process.hrtime.bigint(), requestId: ctx.requestId };
    void (async () => {
      try {
        assertUtf8Request(call.request);
        for await (const message of handler(call.request, ctx) as AsyncIterable<unknown>) {
          if (ctx.signal.aborted) return;
          // Respect back-pressure so a slow reader does not make us buffer a whole file.
          if (!call.write(message)) await drainedOrAborted(call, ctx.signal);
        }
        logCall(logger, entry, undefined);
        call.end();
      } catch (err) {
        logCall(logger, entry, err);
        // grpc-js sends a status (not a bare stream reset) when 'error' is emitted with a status object.
        call.emit('error', toStatusObject(err));
      }
    })();
  };
}

/**
 * grpc-js handlers for an async implementation: each call gets a CallContext (request id, metadata,
 * cancellation), its request's strings are checked as UTF-8, failures become safe statuses and
 * every call is logged once.
 */
export function adaptHandlers(logger: Logger, service: string, definition: ServiceDefinition, impl: Record<string, unknown>): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition) as Array<[string, MethodDefinition<unknown, unknown>]>) {
    const handler = impl[name];
    if (typeof handler !== 'function') throw new Error(`${service}: no handler for ${name}`);
    const methodName = method.path.split('/').pop() ?? name;
    handlers[name] = method.responseStream
      ? serverStreaming(logger, service, methodName, handler as Handler)
      : unary(logger, service, methodName, handler as Handler);
  }
  return handlers;
}
