import type {
  handleBidiStreamingCall,
  handleServerStreamingCall,
  handleUnaryCall,
  MethodDefinition,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { AppError } from '../contract/app-error.js';
import { contextOf, type CallContext } from './call-context.js';
import { laneHandler } from './grpc-lanes-server.js';
import { logCall, type CallLogEntry } from './grpc-call-log.js';
import { toStatusObject } from '../contract/grpc-errors.js';
import { assertUtf8Request } from '../contract/strict-utf8.js';

type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

/**
 * A service implementation in async style: unary handlers return a promise, server-streaming
 * handlers return an async iterable, and a bidirectional-streaming method is a lane
 * (grpc-lanes-server.ts): its handler answers one request message with a promise, as a unary one.
 * Derived from the ts-proto `XServiceServer` interface.
 */
export type AsyncServiceImpl<S> = {
  [K in KnownKeys<S>]: S[K] extends handleUnaryCall<infer Req, infer Res>
    ? (request: Req, ctx: CallContext) => Promise<Res>
    : S[K] extends handleServerStreamingCall<infer Req, infer Res>
      ? (request: Req, ctx: CallContext) => AsyncIterable<Res>
      : S[K] extends handleBidiStreamingCall<infer Req, infer Res>
        ? (request: Req, ctx: CallContext) => Promise<Res>
        : never;
};

type Handler = (request: unknown, ctx: CallContext) => unknown;

/**
 * Resolves when the stream can take more data, or when the caller went away (no drain will come);
 * rejects with RESOURCE_EXHAUSTED when no drain came within `maxStallMs`.
 */
function drainedOrAborted(call: ServerWritableStream<unknown, unknown>, signal: AbortSignal, maxStallMs: number | undefined): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stalled = () => {
      done();
      const seconds = Math.round((maxStallMs ?? 0) / 1000);
      reject(new AppError('RESOURCE_EXHAUSTED', `the client read nothing for ${seconds} s: resume from the last message received`, { rule: 'stalled' }));
    };
    const timer = maxStallMs === undefined ? undefined : setTimeout(stalled, maxStallMs);
    const done = () => {
      clearTimeout(timer);
      call.off('drain', finished);
      signal.removeEventListener('abort', finished);
    };
    const finished = () => {
      done();
      resolve();
    };
    call.once('drain', finished);
    signal.addEventListener('abort', finished, { once: true });
  });
}

/** Settings of the adapted handlers. */
interface HandlerOptions {
  /** A server stream whose client takes nothing for this long ends with RESOURCE_EXHAUSTED; omitted: no limit. */
  maxStreamStallMs?: number;
  /** Aborted when the server shuts down: lanes end once what they took is answered. */
  closing?: AbortSignal;
}

function unary(logger: Logger, service: string, method: string, handler: Handler): handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const { ctx, settled } = contextOf(call);
    const entry: CallLogEntry = { service, method, started: process.hrtime.bigint(), requestId: ctx.requestId };
    Promise.resolve()
      .then(() => {
        assertUtf8Request(call.request);
        return handler(call.request, ctx);
      })
      .then(
        (response) => {
          settled();
          logCall(logger, entry, undefined);
          callback(null, response);
        },
        (err: unknown) => {
          settled();
          logCall(logger, entry, err);
          callback(toStatusObject(err));
        },
      );
  };
}

function serverStreaming(logger: Logger, service: string, method: string, handler: Handler, options: HandlerOptions): handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const { ctx, settled } = contextOf(call);
    const entry: CallLogEntry = { service, method, started: process.hrtime.bigint(), requestId: ctx.requestId };
    void (async () => {
      try {
        assertUtf8Request(call.request);
        for await (const message of handler(call.request, ctx) as AsyncIterable<unknown>) {
          if (ctx.signal.aborted) return;
          // Respect back-pressure so a slow reader does not make us buffer a whole file.
          if (!call.write(message)) await drainedOrAborted(call, ctx.signal, options.maxStreamStallMs);
        }
        settled();
        logCall(logger, entry, undefined);
        call.end();
      } catch (err) {
        settled();
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
 * every call (every request message of a lane) is logged once.
 */
export function adaptHandlers(
  logger: Logger,
  service: string,
  definition: ServiceDefinition,
  impl: Record<string, unknown>,
  options: HandlerOptions = {},
): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition) as Array<[string, MethodDefinition<unknown, unknown>]>) {
    const handler = impl[name];
    if (typeof handler !== 'function') throw new Error(`${service}: no handler for ${name}`);
    const methodName = method.path.split('/').pop() ?? name;
    if (method.requestStream && !method.responseStream) throw new Error(`${service}: client-streaming ${name} is not supported`);
    handlers[name] = method.requestStream
      ? laneHandler(logger, service, methodName, handler as (request: unknown, ctx: CallContext) => Promise<unknown>, options.closing)
      : method.responseStream
        ? serverStreaming(logger, service, methodName, handler as Handler, options)
        : unary(logger, service, methodName, handler as Handler);
  }
  return handlers;
}
