import { randomUUID } from 'node:crypto';
import {
  Server,
  ServerCredentials,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { toAppError } from './app-error.js';
import { requestIdFrom, type CallContext } from './call-context.js';
import { statusName, toStatusObject } from './grpc-errors.js';
import { createServerMetricsInterceptor } from './grpc-metrics.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './limits.js';
import { assertUtf8Request, withStrictUtf8 } from './strict-utf8.js';
import { widenServerWindows } from './http2-window.js';

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

/**
 * The health service name a liveness probe asks for: SERVING for as long as the process answers,
 * whatever its dependencies do, so a database outage makes pods unready but never restarts them.
 */
export const LIVENESS_SERVICE = 'liveness';

/** How long a client connection may live before the server asks the client to reconnect (grpc-js adds ±10% jitter). */
export const MAX_CONNECTION_AGE_MS = 60_000;

export interface GrpcServerOptions {
  logger: Logger;
  /** Largest message accepted or sent (grpc-js defaults to 4 MiB receive). */
  maxMessageBytes?: number;
  /** Largest message sent, when replies may be larger than requests; defaults to maxMessageBytes. */
  maxSendMessageBytes?: number;
  /** Where the grpc_server_* metrics (go-grpc-prometheus family) are registered; omitted: not measured. */
  metricsRegistry?: Registry;
  /** Defaults to MAX_CONNECTION_AGE_MS; tests shorten it. */
  maxConnectionAgeMs?: number;
}

/** A grpc-js server with health checking, error mapping, request ids and graceful shutdown. */
export interface GrpcServer {
  readonly server: Server;
  /** Registers a service; its health status starts NOT_SERVING until `setServing(true)`. */
  addService<S>(name: string, definition: ServiceDefinition<S & UntypedServiceImplementation>, impl: AsyncServiceImpl<S>): void;
  /** Binds and returns the bound port (pass 0 for an ephemeral one). */
  listen(address: string): Promise<number>;
  /** Flips every registered service (and the overall "" entry) between SERVING and NOT_SERVING. */
  setServing(serving: boolean): void;
  /**
   * NOT_SERVING at once; keeps answering for `drainDelayMs` (callers and endpoint lists notice the
   * state before the listener goes away), then lets in-flight calls finish for up to `timeoutMs`,
   * then cancels the rest.
   */
  shutdown(timeoutMs: number, drainDelayMs?: number): Promise<void>;
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

export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  const { logger } = options;
  const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const server = new Server({
    'grpc.max_receive_message_length': max,
    'grpc.max_send_message_length': options.maxSendMessageBytes ?? max,
    // grpc-js asks for SO_REUSEPORT by default; on runtimes that honour it (Node >= 22.12) a second
    // instance on a busy port would bind silently and share traffic. Fail loudly instead.
    'grpc.so_reuseport': 0,
    // Clients learn about new replicas only when they re-resolve DNS, which grpc-js does when a
    // connection ends. Ending each connection after a minute (GOAWAY; calls in flight continue)
    // lets callers of a headless Service spread onto pods added by a scale-out or a rollout.
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS,
    ...(options.metricsRegistry ? { interceptors: [createServerMetricsInterceptor(options.metricsRegistry)] } : {}),
  });
  const serviceNames: string[] = [''];
  const health = new HealthImplementation({ '': 'NOT_SERVING', [LIVENESS_SERVICE]: 'SERVING' });
  health.addToServer(server);

  function contextOf(call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>): CallContext {
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    return { requestId: requestIdFrom(call.metadata, randomUUID), metadata: call.metadata, signal: controller.signal };
  }

  /** One log line per call: debug when it succeeded or was refused, error when it failed inside. */
  function finish(service: string, method: string, started: bigint, err: unknown, requestId: string): void {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (err === undefined) {
      logger.debug({ requestId, grpcService: service, method, code: 'OK', durationMs }, 'grpc call');
      return;
    }
    const appError = toAppError(err);
    const log = { requestId, grpcService: service, method, code: statusName(toStatusObject(err).code ?? 2), durationMs, err: appError.cause ?? appError };
    if (appError.code === 'INTERNAL') logger.error(log, 'grpc call failed');
    else logger.debug(log, 'grpc call rejected');
  }

  function wrap(service: string, definition: ServiceDefinition, impl: Record<string, unknown>): UntypedServiceImplementation {
    const handlers: UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(definition)) {
      const handler = impl[name] as ((req: unknown, ctx: CallContext) => unknown) | undefined;
      if (typeof handler !== 'function') throw new Error(`${service}: no handler for ${name}`);
      const methodName = method.path.split('/').pop() ?? name;
      if (!method.responseStream) {
        const unary: handleUnaryCall<unknown, unknown> = (call, callback) => {
          const started = process.hrtime.bigint();
          const ctx = contextOf(call);
          Promise.resolve()
            .then(() => {
              assertUtf8Request(call.request);
              return handler(call.request, ctx);
            })
            .then(
              (response) => {
                finish(service, methodName, started, undefined, ctx.requestId);
                callback(null, response);
              },
              (err: unknown) => {
                finish(service, methodName, started, err, ctx.requestId);
                callback(toStatusObject(err));
              },
            );
        };
        handlers[name] = unary;
      } else {
        const streaming: handleServerStreamingCall<unknown, unknown> = (call) => {
          const started = process.hrtime.bigint();
          const ctx = contextOf(call);
          void (async () => {
            try {
              assertUtf8Request(call.request);
              for await (const message of handler(call.request, ctx) as AsyncIterable<unknown>) {
                if (ctx.signal.aborted) return;
                // Respect back-pressure so a slow reader does not make us buffer a whole file.
                if (!call.write(message)) await drainedOrAborted(call, ctx.signal);
              }
              finish(service, methodName, started, undefined, ctx.requestId);
              call.end();
            } catch (err) {
              finish(service, methodName, started, err, ctx.requestId);
              // grpc-js sends a status (not a bare stream reset) when 'error' is emitted with a status object.
              call.emit('error', toStatusObject(err));
            }
          })();
        };
        handlers[name] = streaming;
      }
    }
    return handlers;
  }

  let serving = false;
  return {
    server,
    addService(name, definition, impl) {
      server.addService(withStrictUtf8(definition), wrap(name, definition, impl as Record<string, unknown>));
      serviceNames.push(name);
      health.setStatus(name, serving ? 'SERVING' : 'NOT_SERVING');
    },
    listen(address) {
      return new Promise((resolve, reject) => {
        server.bindAsync(address, ServerCredentials.createInsecure(), (err, port) => {
          if (err) return reject(err);
          widenServerWindows(server);
          resolve(port);
        });
      });
    },
    setServing(value) {
      serving = value;
      for (const name of serviceNames) health.setStatus(name, value ? 'SERVING' : 'NOT_SERVING');
    },
    async shutdown(timeoutMs, drainDelayMs = 0) {
      this.setServing(false);
      if (drainDelayMs > 0) {
        logger.info({ drainDelayMs }, 'NOT_SERVING: still answering while callers move away');
        await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
      }
      // tryShutdown waits for in-flight calls but can hang on stuck ones: bound it, then force.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          logger.warn({ timeoutMs }, 'grpc shutdown timed out, cancelling remaining calls');
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
