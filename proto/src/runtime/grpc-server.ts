import { setMaxListeners } from 'node:events';
import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { adaptHandlers, withSerializedStreams, type AsyncServiceImpl } from './grpc-handlers.js';
import { createLaneLimits, type LaneLimits } from './lane-limits.js';
import { createStreamBudget, type StreamBudget } from './stream-budget.js';
import { addServingHealth } from './grpc-health.js';
import { createServerMetricsInterceptor } from './grpc-metrics.js';
import { drainAndShutdown } from './grpc-shutdown.js';
import { registerReadinessMetric } from './readiness-metric.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../contract/limits.js';
import { widenServerWindows } from './http2-window.js';
import { serviceNameOf } from '../contract/service-names.js';
import { withStrictUtf8 } from '../contract/strict-utf8.js';

/** How long a client connection may live before the server asks the client to reconnect (grpc-js adds ±10% jitter). */
const MAX_CONNECTION_AGE_MS = 60_000;

interface GrpcServerOptions {
  logger: Logger;
  /** Largest message accepted or sent (grpc-js defaults to 4 MiB receive). */
  maxMessageBytes?: number;
  /** Largest message sent, when replies may be larger than requests; defaults to maxMessageBytes. */
  maxSendMessageBytes?: number;
  /** Where the grpc_server_* metrics (go-grpc-prometheus family) and service_ready are registered; omitted: not measured. */
  metricsRegistry?: Registry;
  /** Defaults to MAX_CONNECTION_AGE_MS; tests shorten it. */
  maxConnectionAgeMs?: number;
  /**
   * A server stream whose client takes nothing for this long ends with RESOURCE_EXHAUSTED, so a
   * reader that stopped reading costs neither memory nor a stream forever; omitted: no limit.
   */
  maxStreamStallMs?: number;
  /** Bytes one server stream may hold for its client (default STREAM_HELD_BYTES). */
  streamHeldBytes?: number;
  /** Bytes all server streams together may hold for their clients (default PROCESS_HELD_BYTES). */
  processHeldBytes?: number;
  /** Messages a lane, and a connection's lanes together, handle at once (defaults in lane-limits.ts). */
  laneMessages?: number;
  connectionMessages?: number;
}

/** A grpc-js server with health checking, error mapping, request ids and graceful shutdown. */
export interface GrpcServer {
  readonly server: Server;
  /** What server streams hold for their clients, in bytes. */
  readonly streamBudget: StreamBudget;
  /** Messages in flight on lanes, per connection. */
  readonly laneLimits: LaneLimits;
  /** Registers a generated service under its own name; its health status follows `setServing`. */
  addService<S>(definition: ServiceDefinition<S & UntypedServiceImplementation>, impl: AsyncServiceImpl<S>): void;
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

/** Wires the concerns together: handler adaptation (grpc-handlers), health (grpc-health), shutdown (grpc-shutdown). */
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
  const health = addServingHealth(server);
  if (options.metricsRegistry) registerReadinessMetric(options.metricsRegistry, health.serving);
  // Lanes (long-lived streams of request/response messages) end once the server stops taking calls.
  const closing = new AbortController();
  // One listener per open lane (as many as callers keep batches or images in flight): not a leak.
  setMaxListeners(0, closing.signal);
  const streamBudget = createStreamBudget({ streamBytes: options.streamHeldBytes, totalBytes: options.processHeldBytes });
  const laneLimits = createLaneLimits({ laneMessages: options.laneMessages, connectionMessages: options.connectionMessages });
  const handlerOptions = { maxStreamStallMs: options.maxStreamStallMs, closing: closing.signal, streamBudget, laneLimits };
  return {
    server,
    streamBudget,
    laneLimits,
    addService(definition, impl) {
      const name = serviceNameOf(definition);
      server.addService(withSerializedStreams(withStrictUtf8(definition)), adaptHandlers(logger, name, definition, impl as Record<string, unknown>, handlerOptions));
      health.add(name);
    },
    listen(address) {
      return new Promise((resolve, reject) => {
        server.bindAsync(address, ServerCredentials.createInsecure(), (err, port) => {
          if (err) return reject(err);
          try {
            widenServerWindows(server);
          } catch (widenErr) {
            server.forceShutdown();
            return reject(widenErr as Error);
          }
          resolve(port);
        });
      });
    },
    setServing: (serving) => health.set(serving),
    async shutdown(timeoutMs, drainDelayMs = 0) {
      health.set(false);
      await drainAndShutdown(server, logger, timeoutMs, drainDelayMs, () => closing.abort());
    },
  };
}
