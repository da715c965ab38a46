import { fileURLToPath } from 'node:url';
import { parseAllowedHosts, type AllowedHosts } from './http/allowed-hosts.js';
import {
  ALLOWED_HOSTS,
  connectable,
  defineEnv,
  DRAIN_DELAY_MS,
  DYNAMIC_EVENTS_TOKEN,
  type Environment,
  HOST,
  integer,
  LOG_LEVEL,
  MAX_IMAGE_BYTES,
  MEDIA_ADDR,
  MEDIA_GRPC_PORT,
  METRICS_HOST,
  metricsPort,
  OCCURRED_AT_MAX_SKEW,
  durationSeconds,
  PLATFORM_SEGMENT,
  PORT,
  PUBLIC_BASE_URL,
  REDIS_URL,
  REGISTRY_ADDR,
  REGISTRY_GRPC_PORT,
  REGISTRY_INTERNAL_TOKEN,
  required,
  SHUTDOWN_TIMEOUT_MS,
  text,
} from '@dynamic-events/proto/runtime';

/** The gateway's validated, frozen configuration. */
export interface GatewayConfig {
  logLevel: string;
  port: number;
  host: string;
  /** The path segment carrying the platform's name: /api/{platformSegment}/dh/... */
  platformSegment: string;
  /** Base of public URLs (no trailing slash): the gateway builds every public URL, image URLs included. */
  publicBaseUrl: string;
  /** ALLOWED_HOSTS: the Host names served (421 otherwise); undefined: any. */
  allowedHosts: AllowedHosts;
  /** The bootstrap token: when set, POST and the read endpoints need `Authorization: Bearer <token>`. */
  dynamicEventsToken: string | undefined;
  /** The admin API's credential; undefined: the admin API and the settings console are off (404). */
  adminToken: string | undefined;
  /** The settings console's build (index.html, assets/): this package's console/dist, wherever the package is installed. */
  consoleDir: string;
  /** REGISTRY_INTERNAL_TOKEN: presented with every TokenService call. Never logged. */
  registryInternalToken: string;
  /** How often the token snapshot is refreshed from the registry. */
  tokenSyncIntervalMs: number;
  /** Redis shared by every gateway for the tokens' rate limits; undefined: limits per gateway. */
  redisUrl: string | undefined;
  registryAddr: string;
  mediaAddr: string;
  maxBodyBytes: number;
  /** Events in one POST …/dynamic-events/batch at most. */
  batchMaxEvents: number;
  /** OCCURRED_AT_MAX_SKEW: how far in the future an event's occurred_at may lie. */
  occurredAtMaxSkewSeconds: number;
  maxImageBytes: number;
  /** Request bodies being handled at once, all connections together; beyond it POSTs get 503. */
  maxInflightBodyBytes: number;
  /** Whole request (headers and body) must arrive within this; slow senders get 408. */
  requestTimeoutMs: number;
  /** Headers must arrive within this. */
  headersTimeoutMs: number;
  grpcDeadlineMs: number;
  /** RecordEvents batches outstanding at once (one per open lane); events arriving meanwhile are coalesced into the next batch. */
  recordConcurrency: number;
  /** Events, and their encoded bytes, waiting for a RecordEvents batch; beyond either, POSTs get 503. */
  ingestQueueMaxEvents: number;
  ingestQueueMaxBytes: number;
  shutdownTimeoutMs: number;
  /** After SIGTERM: how long /readyz answers 503 while requests are still served (endpoints update meanwhile). */
  drainDelayMs: number;
  /** SSE streams open at once: in all (503 beyond), per token and per client address (429 beyond; 0: no cap per address). */
  maxStreams: number;
  maxStreamsPerToken: number;
  maxStreamsPerClient: number;
  /** Idle keep-alive sockets live this long; must exceed the ingress/load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** Prometheus /metrics listens here, never on the public port. */
  metricsPort: number;
  metricsHost: string;
}

const MIB = 1024 * 1024;

/** console/dist beside this file's folder: src/ under vitest, dist/ once compiled, the same in the image. */
const CONSOLE_DIR = fileURLToPath(new URL('../console/dist', import.meta.url));

/** Every variable the gateway reads, in the order the configuration table lists them. */
export const GATEWAY_ENV = defineEnv(
  {
    PORT,
    HOST,
    PLATFORM_SEGMENT,
    PUBLIC_BASE_URL,
    ALLOWED_HOSTS,
    DYNAMIC_EVENTS_TOKEN,
    ADMIN_TOKEN: text({
      // At least 32 characters: it manages every token, so it must not be guessable.
      pattern: '^[\\x21-\\x7E]{32,}$',
      hint: 'must be at least 32 visible ASCII characters (no spaces)',
      defaultText: 'unset',
      description:
        'Credential of the token admin API and the settings console (`Authorization: Bearer <ADMIN_TOKEN>` on `…/dh/settings/dynamic-events/…`), also taken by the read routes as a reader of everything. Unset: the API and the console answer 404. See [Tokens](../README.md#tokens).',
    }),
    REGISTRY_INTERNAL_TOKEN: required(REGISTRY_INTERNAL_TOKEN, 'the credential the registry\'s TokenService requires; npm start generates one'),
    TOKEN_SYNC_INTERVAL_MS: integer({
      minimum: 100,
      maximum: 4000,
      default: 1000,
      description: 'How often each gateway refreshes its copy of the tokens from the registry: a revoked or expired token is refused within this plus one call (well under 5 s).',
    }),
    REDIS_URL,
    MAX_BODY_BYTES: integer({ minimum: 1, maximum: 256 * MIB, default: 16 * MIB, description: 'Largest request body (413 above).' }),
    BATCH_MAX_EVENTS: integer({
      minimum: 1,
      maximum: 1000,
      default: 1000,
      description: 'Most events in one `POST …/dynamic-events/batch` (400 above); the body stays within `MAX_BODY_BYTES`.',
    }),
    OCCURRED_AT_MAX_SKEW,
    MAX_INFLIGHT_BODY_BYTES: integer({
      minimum: 1,
      maximum: 4096 * MIB,
      default: 32 * MIB,
      description:
        'Request bodies handled at once, all connections together (declared `Content-Length`; a chunked or compressed body counts as `MAX_BODY_BYTES`, since it may grow to that); beyond it a POST gets 503 with `Retry-After`. At least `MAX_BODY_BYTES`.',
    }),
    // An ingest client sends one JSON body: 60 s is 16 MiB at 2.2 Mbit/s, not Node's 5 minutes.
    HTTP_REQUEST_TIMEOUT_MS: integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 60_000,
      description: 'A whole request must arrive within this (16 MiB at 2.2 Mbit/s), else 408 and the connection closes.',
    }),
    HTTP_HEADERS_TIMEOUT_MS: integer({ minimum: 1, maximum: 600_000, default: 10_000, description: 'The request headers must arrive within this, else 408.' }),
    MAX_IMAGE_BYTES,
    REGISTRY_GRPC_PORT: connectable(REGISTRY_GRPC_PORT),
    MEDIA_GRPC_PORT: connectable(MEDIA_GRPC_PORT),
    REGISTRY_ADDR,
    MEDIA_ADDR,
    GRPC_DEADLINE_MS: integer({ minimum: 1, maximum: 600_000, default: 10_000, description: 'Deadline of each gRPC call.' }),
    RECORD_CONCURRENCY: integer({
      minimum: 1,
      maximum: 1000,
      default: 8,
      description:
        '`RecordEvents` batches to the registry outstanding at once, each a message on its own open `RecordEventsStream` stream. Events of requests arriving meanwhile wait and leave together in the next batch (see Performance).',
    }),
    INGEST_QUEUE_MAX_EVENTS: integer({
      minimum: 1,
      maximum: 10_000_000,
      default: 10_000,
      description: 'Events waiting for a `RecordEvents` batch; beyond it a POST gets 503 with `Retry-After` at once instead of growing memory or timing out.',
    }),
    INGEST_QUEUE_MAX_BYTES: integer({ minimum: 1, maximum: 4096 * MIB, default: 64 * MIB, description: 'The same bound in encoded bytes (64 MiB).' }),
    // About 55 KB in the gateway and 30 KB in the registry per stream of a filter of its own: 1,000
    // keep both well under the chart's limits (512 and 256 MiB) beside the ingest buffers.
    MAX_STREAMS: integer({
      minimum: 1,
      maximum: 100_000,
      default: 1000,
      description: 'Event streams (`…/dynamic-events/stream`) open at once on this gateway; beyond it a stream gets 503 with `Retry-After`. Sized to the chart\'s memory limits: see [Limits](../ingest-gateway/README.md#limits).',
    }),
    MAX_STREAMS_PER_TOKEN: integer({ minimum: 1, maximum: 100_000, default: 200, description: 'Event streams one token may hold open on this gateway; beyond it 429 with `Retry-After`.' }),
    MAX_STREAMS_PER_CLIENT: integer({
      minimum: 0,
      maximum: 100_000,
      default: 100,
      description:
        'Event streams one client address (IPv6: its /64) may hold open on this gateway, with or without a token; beyond it 429 with `Retry-After`. `0`: no cap per address (behind a proxy every client has its address; the chart sets `0`).',
    }),
    SHUTDOWN_TIMEOUT_MS,
    DRAIN_DELAY_MS,
    METRICS_PORT: metricsPort(9464),
    METRICS_HOST,
    // Above the 60 s idle timeout of the common load balancers (AWS ALB, GCP, ingress-nginx upstreams).
    HTTP_KEEP_ALIVE_TIMEOUT_MS: integer({
      minimum: 1,
      maximum: 600_000,
      default: 65_000,
      description:
        'How long idle keep-alive connections stay open. Keep it above the ingress or load balancer idle timeout (often 60 s), or the proxy may reuse a connection the gateway is closing and answer 502.',
    }),
    LOG_LEVEL,
  },
  (v) => [
    v.MAX_INFLIGHT_BODY_BYTES < v.MAX_BODY_BYTES ? 'MAX_INFLIGHT_BODY_BYTES must be at least MAX_BODY_BYTES (a largest body must be able to pass)' : undefined,
    v.HTTP_HEADERS_TIMEOUT_MS > v.HTTP_REQUEST_TIMEOUT_MS ? 'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS' : undefined,
  ],
);

/** Validates the environment (main.ts passes process.env) and returns the frozen config; throws naming every bad variable. */
export function loadConfig(env: Environment): Readonly<GatewayConfig> {
  const v = GATEWAY_ENV.load(env);
  return Object.freeze({
    logLevel: v.LOG_LEVEL,
    port: v.PORT,
    host: v.HOST,
    platformSegment: v.PLATFORM_SEGMENT,
    publicBaseUrl: (v.PUBLIC_BASE_URL ?? `http://localhost:${v.PORT}`).replace(/\/+$/, ''),
    allowedHosts: parseAllowedHosts(v.ALLOWED_HOSTS),
    dynamicEventsToken: v.DYNAMIC_EVENTS_TOKEN,
    adminToken: v.ADMIN_TOKEN,
    consoleDir: CONSOLE_DIR,
    registryInternalToken: v.REGISTRY_INTERNAL_TOKEN,
    tokenSyncIntervalMs: v.TOKEN_SYNC_INTERVAL_MS,
    redisUrl: v.REDIS_URL,
    registryAddr: v.REGISTRY_ADDR ?? `127.0.0.1:${v.REGISTRY_GRPC_PORT}`,
    mediaAddr: v.MEDIA_ADDR ?? `127.0.0.1:${v.MEDIA_GRPC_PORT}`,
    maxBodyBytes: v.MAX_BODY_BYTES,
    batchMaxEvents: v.BATCH_MAX_EVENTS,
    occurredAtMaxSkewSeconds: durationSeconds(v.OCCURRED_AT_MAX_SKEW),
    maxImageBytes: v.MAX_IMAGE_BYTES,
    maxInflightBodyBytes: v.MAX_INFLIGHT_BODY_BYTES,
    requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
    grpcDeadlineMs: v.GRPC_DEADLINE_MS,
    recordConcurrency: v.RECORD_CONCURRENCY,
    ingestQueueMaxEvents: v.INGEST_QUEUE_MAX_EVENTS,
    ingestQueueMaxBytes: v.INGEST_QUEUE_MAX_BYTES,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    drainDelayMs: v.DRAIN_DELAY_MS,
    maxStreams: v.MAX_STREAMS,
    maxStreamsPerToken: v.MAX_STREAMS_PER_TOKEN,
    maxStreamsPerClient: v.MAX_STREAMS_PER_CLIENT,
    keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    metricsPort: v.METRICS_PORT,
    metricsHost: v.METRICS_HOST,
  });
}
