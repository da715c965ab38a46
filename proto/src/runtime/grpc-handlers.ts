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
import { constants } from 'node:http2';
import { laneHandler } from './grpc-lanes-server.js';
import { createLaneLimits, type LaneLimits } from './lane-limits.js';
import { http2StreamOf } from './grpc-http2-listeners.js';
import { createStreamBudget, type StreamBudget, type StreamShare } from './stream-budget.js';
import { holdUntilTaken, roomFor, type StreamEnd } from './stream-room.js';
import { untilDrained } from './until-drained.js';
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

/** Ends a stream whose client read nothing for `maxStallMs`: it resumes from the last message it got. */
function stalled(maxStallMs: number): AppError {
  return new AppError('RESOURCE_EXHAUSTED', `the client read nothing for ${Math.round(maxStallMs / 1000)} s: resume from the last message received`, { rule: 'stalled' });
}

/** Settings of the adapted handlers. */
interface HandlerOptions {
  /** A server stream whose client takes nothing for this long ends with RESOURCE_EXHAUSTED; omitted: no limit. */
  maxStreamStallMs?: number;
  /** Aborted when the server shuts down: lanes end once what they took is answered. */
  closing?: AbortSignal;
  /** Bytes server streams hold for their clients (per stream and per process); omitted: a budget of the defaults. */
  streamBudget?: StreamBudget;
  /** Messages a lane, and a connection's lanes together, handle at once (grpc-lanes-server.ts). */
  laneLimits?: LaneLimits;
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

/**
 * A server-streaming method may carry `responseBytes`: the size its serializer will give a message,
 * found without building it, so a stream waiting for room holds no serialized copy meanwhile.
 */
type SizedMethod = MethodDefinition<unknown, unknown> & { responseBytes?: (message: unknown) => number };

/** How long the status of a stream ended while its client holds data back may wait for it to read. */
const CUT_GRACE_MS = 30_000;

/**
 * The HTTP/2 stream under a call that ended in error while its client holds data back (its status
 * waits behind that data, for ever if the client stopped reading): holdUntilTaken resets it with
 * ENHANCE_YOUR_CALM, which grpc-js clients read as RESOURCE_EXHAUSTED. Undefined when nothing is
 * held or the stream is gone (the share can close).
 */
function http2End(call: ServerWritableStream<unknown, unknown>, share: StreamShare): StreamEnd | undefined {
  const stream = share.held > 0 ? http2StreamOf(call) : undefined;
  if (!stream || stream.closed) return undefined;
  return {
    reset: () => {
      if (!stream.closed) stream.close(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    },
    onClose: (listener) => void stream.once('close', listener),
  };
}

function serverStreaming(logger: Logger, service: string, method: MethodDefinition<unknown, unknown>, handler: Handler, options: HandlerOptions & { streamBudget: StreamBudget }): handleServerStreamingCall<unknown, unknown> {
  const name = method.path.split('/').pop() ?? method.path;
  return (call) => {
    const { ctx, settled } = contextOf(call);
    const entry: CallLogEntry = { service, method: name, started: process.hrtime.bigint(), requestId: ctx.requestId };
    const share = options.streamBudget.open();
    let kept = false;
    void (async () => {
      try {
        assertUtf8Request(call.request);
        for await (const message of handler(call.request, ctx) as AsyncIterable<unknown>) {
          if (ctx.signal.aborted) return;
          // Serialized here (the served definition passes the bytes through) to count what the stream holds by its size;
          // a stream that must wait for room lets its bytes go meanwhile and serializes again.
          // A method that can tell a message's size without serializing it (responseBytes) is counted first.
          const known = (method as SizedMethod).responseBytes?.(message);
          let bytes: Buffer | undefined = known === undefined ? method.responseSerialize(message) : undefined;
          const size = known ?? bytes!.length;
          if (share.take(size) !== 'take') {
            bytes = undefined;
            // A client that left while this stream waited gets nothing serialized for it.
            const room = await roomFor(share, size, { signal: ctx.signal, maxWaitMs: options.maxStreamStallMs });
            if (room === 'gone') return;
            if (room === 'stalled') throw stalled(options.maxStreamStallMs ?? 0);
            if (room === 'cut') throw new AppError('RESOURCE_EXHAUSTED', 'the server holds too much for clients that read slowly: resume from the last message received', { rule: 'held_bytes' });
          }
          bytes ??= method.responseSerialize(message);
          if (ctx.signal.aborted) return;
          // Held until HTTP/2 took the message, which a client that stopped reading never lets happen.
          if (call.write(bytes, () => share.release(size))) continue;
          const drained = await untilDrained(call, ctx.signal, options.maxStreamStallMs);
          if (drained === 'gone') return;
          if (drained === 'stalled') throw stalled(options.maxStreamStallMs ?? 0);
        }
        settled();
        logCall(logger, entry, undefined);
        call.end();
      } catch (err) {
        settled();
        logCall(logger, entry, err);
        // grpc-js sends a status (not a bare stream reset) when 'error' is emitted with a status object.
        call.emit('error', toStatusObject(err));
        holdUntilTaken(share, http2End(call, share), CUT_GRACE_MS);
        kept = true;
      } finally {
        if (!kept) share.close();
      }
    })();
  };
}

/**
 * The definition grpc-js serves: server-streaming methods take the bytes their handler adapter
 * serialized (serverStreaming), so each message is serialized once.
 */
export function withSerializedStreams<D extends ServiceDefinition>(definition: D): D {
  const served: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const [name, method] of Object.entries(definition) as Array<[string, MethodDefinition<unknown, unknown>]>) {
    const serialize = method.responseSerialize;
    served[name] = method.responseStream && !method.requestStream ? { ...method, responseSerialize: (value: unknown) => (Buffer.isBuffer(value) ? value : serialize(value)) } : method;
  }
  return served as unknown as D;
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
  const streamBudget = options.streamBudget ?? createStreamBudget();
  const laneLimits = options.laneLimits ?? createLaneLimits();
  for (const [name, method] of Object.entries(definition) as Array<[string, MethodDefinition<unknown, unknown>]>) {
    const handler = impl[name];
    if (typeof handler !== 'function') throw new Error(`${service}: no handler for ${name}`);
    const methodName = method.path.split('/').pop() ?? name;
    if (method.requestStream && !method.responseStream) throw new Error(`${service}: client-streaming ${name} is not supported`);
    handlers[name] = method.requestStream
      ? laneHandler(logger, service, methodName, handler as (request: unknown, ctx: CallContext) => Promise<unknown>, { closing: options.closing, limits: laneLimits })
      : method.responseStream
        ? serverStreaming(logger, service, method, handler as Handler, { ...options, streamBudget })
        : unary(logger, service, methodName, handler as Handler);
  }
  return handlers;
}
