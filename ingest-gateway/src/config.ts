import { Ajv, type ErrorObject } from 'ajv';
import { MAX_IMAGE_BYTES_DEFAULT, MAX_IMAGE_BYTES_LIMIT } from '@dynamic-events/proto';
import { LogSafeError } from '@dynamic-events/proto';

/** The gateway's validated, frozen configuration. */
export interface GatewayConfig {
  logLevel: string;
  port: number;
  host: string;
  /** The path segment carrying the platform's name: /api/{platformSegment}/dh/... */
  platformSegment: string;
  /** Base of public URLs (no trailing slash); logged at start-up, used by the media service for image URLs. */
  publicBaseUrl: string;
  /** When set, POST and the read endpoints need `Authorization: Bearer <token>`. */
  dynamicEventsToken: string | undefined;
  registryAddr: string;
  mediaAddr: string;
  maxBodyBytes: number;
  maxImageBytes: number;
  /** Request bodies being handled at once, all connections together; beyond it POSTs get 503. */
  maxInflightBodyBytes: number;
  /** Whole request (headers and body) must arrive within this; slow senders get 408. */
  requestTimeoutMs: number;
  /** Headers must arrive within this. */
  headersTimeoutMs: number;
  grpcDeadlineMs: number;
  /** RecordEvents calls outstanding at once; events arriving meanwhile are coalesced into the next call. */
  recordConcurrency: number;
  /** Events, and their encoded bytes, waiting for a RecordEvents call; beyond either, POSTs get 503. */
  ingestQueueMaxEvents: number;
  ingestQueueMaxBytes: number;
  shutdownTimeoutMs: number;
  /** After SIGTERM: how long /readyz answers 503 while requests are still served (endpoints update meanwhile). */
  drainDelayMs: number;
  /** Idle keep-alive sockets live this long; must exceed the ingress/load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** Prometheus /metrics listens here, never on the public port. */
  metricsPort: number;
  metricsHost: string;
}

const MIB = 1024 * 1024;
const positive = (maximum: number) => ({ type: 'integer', minimum: 1, maximum });
const hostPort = { type: 'string', pattern: '^[^\\s:]+(:[^\\s:]*)*:[0-9]{1,5}$' };

/** Every variable the gateway reads; values arrive as strings and ajv coerces the numeric ones. */
const ENV_SCHEMA = {
  type: 'object',
  properties: {
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    HOST: { type: 'string', pattern: '^\\S+$' },
    PLATFORM_SEGMENT: { type: 'string', pattern: '^[A-Za-z0-9._~-]+$', not: { enum: ['.', '..'] } },
    PUBLIC_BASE_URL: { type: 'string', pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' },
    // Visible ASCII only: anything else cannot travel in an HTTP header as a bearer token.
    DYNAMIC_EVENTS_TOKEN: { type: 'string', pattern: '^[\\x21-\\x7E]+$' },
    REGISTRY_GRPC_PORT: positive(65535),
    MEDIA_GRPC_PORT: positive(65535),
    REGISTRY_ADDR: hostPort,
    MEDIA_ADDR: hostPort,
    MAX_BODY_BYTES: positive(256 * MIB),
    MAX_IMAGE_BYTES: positive(MAX_IMAGE_BYTES_LIMIT),
    MAX_INFLIGHT_BODY_BYTES: positive(4096 * MIB),
    HTTP_REQUEST_TIMEOUT_MS: positive(3_600_000),
    HTTP_HEADERS_TIMEOUT_MS: positive(600_000),
    GRPC_DEADLINE_MS: positive(600_000),
    RECORD_CONCURRENCY: positive(1000),
    INGEST_QUEUE_MAX_EVENTS: positive(10_000_000),
    INGEST_QUEUE_MAX_BYTES: positive(4096 * MIB),
    SHUTDOWN_TIMEOUT_MS: positive(600_000),
    DRAIN_DELAY_MS: { type: 'integer', minimum: 0, maximum: 600_000 },
    HTTP_KEEP_ALIVE_TIMEOUT_MS: positive(600_000),
    METRICS_PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    METRICS_HOST: { type: 'string', pattern: '^\\S+$' },
  },
} as const;

type EnvName = keyof typeof ENV_SCHEMA.properties;

const validateEnv = new Ajv({ allErrors: true, coerceTypes: true, strict: true }).compile(ENV_SCHEMA);

/**
 * Validates the environment (empty values count as unset) and returns the frozen config.
 * Throws one Error naming every bad variable, so an operator fixes them all in one go.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Readonly<GatewayConfig> {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(ENV_SCHEMA.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') values[name] = value;
  }
  if (!validateEnv(values)) {
    const problems = (validateEnv.errors ?? []).map(describe);
    throw new LogSafeError(`invalid configuration: ${[...new Set(problems)].join('; ')}`);
  }
  const get = <T>(name: EnvName, fallback: T): T => (values[name] as T | undefined) ?? fallback;
  const port = get('PORT', 8080);
  const maxBodyBytes = get('MAX_BODY_BYTES', 16 * MIB);
  const maxInflightBodyBytes = get('MAX_INFLIGHT_BODY_BYTES', 32 * MIB);
  const requestTimeoutMs = get('HTTP_REQUEST_TIMEOUT_MS', 60_000);
  const headersTimeoutMs = get('HTTP_HEADERS_TIMEOUT_MS', 10_000);
  const conflicts = [
    maxInflightBodyBytes < maxBodyBytes ? 'MAX_INFLIGHT_BODY_BYTES must be at least MAX_BODY_BYTES (a largest body must be able to pass)' : undefined,
    headersTimeoutMs > requestTimeoutMs ? 'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS' : undefined,
  ].filter((problem) => problem !== undefined);
  if (conflicts.length > 0) throw new Error(`invalid configuration: ${conflicts.join('; ')}`);
  return Object.freeze({
    logLevel: get('LOG_LEVEL', 'info'),
    port,
    host: get('HOST', '0.0.0.0'),
    platformSegment: get('PLATFORM_SEGMENT', 'platform'),
    publicBaseUrl: get('PUBLIC_BASE_URL', `http://localhost:${port}`).replace(/\/+$/, ''),
    dynamicEventsToken: get<string | undefined>('DYNAMIC_EVENTS_TOKEN', undefined),
    registryAddr: get('REGISTRY_ADDR', `127.0.0.1:${get('REGISTRY_GRPC_PORT', 50051)}`),
    mediaAddr: get('MEDIA_ADDR', `127.0.0.1:${get('MEDIA_GRPC_PORT', 50052)}`),
    maxBodyBytes,
    maxImageBytes: get('MAX_IMAGE_BYTES', MAX_IMAGE_BYTES_DEFAULT),
    maxInflightBodyBytes,
    // An ingest client sends one JSON body: 60 s is 16 MiB at 2.2 Mbit/s, not Node's 5 minutes.
    requestTimeoutMs,
    headersTimeoutMs,
    grpcDeadlineMs: get('GRPC_DEADLINE_MS', 10_000),
    recordConcurrency: get('RECORD_CONCURRENCY', 4),
    ingestQueueMaxEvents: get('INGEST_QUEUE_MAX_EVENTS', 10_000),
    ingestQueueMaxBytes: get('INGEST_QUEUE_MAX_BYTES', 64 * MIB),
    shutdownTimeoutMs: get('SHUTDOWN_TIMEOUT_MS', 8000),
    drainDelayMs: get('DRAIN_DELAY_MS', 0),
    // Above the 60 s idle timeout of the common load balancers (AWS ALB, GCP, ingress-nginx upstreams).
    keepAliveTimeoutMs: get('HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000),
    metricsPort: get('METRICS_PORT', 9464),
    metricsHost: get('METRICS_HOST', '0.0.0.0'),
  });
}

/** One readable line per bad variable; the token's value is never echoed. */
function describe(error: ErrorObject): string {
  const name = error.instancePath.slice(1);
  switch (error.keyword) {
    case 'type':
      return `${name} must be an integer`;
    case 'minimum':
    case 'maximum': {
      const range = (ENV_SCHEMA.properties as Record<string, { minimum?: number; maximum?: number }>)[name];
      return `${name} must be an integer from ${range?.minimum} to ${range?.maximum}`;
    }
    case 'enum':
      return `${name} must be one of ${(error.params as { allowedValues: string[] }).allowedValues.join(', ')}`;
    default:
      return `${name} ${HINTS[name] ?? 'is invalid'}`;
  }
}

const HINTS: Record<string, string> = {
  HOST: 'must be a host name or address without spaces',
  METRICS_HOST: 'must be a host name or address without spaces',
  PLATFORM_SEGMENT: 'must be one URL path segment (letters, digits, "-", "_", ".", "~")',
  PUBLIC_BASE_URL: 'must be an http(s) URL without query or fragment, e.g. http://localhost:8080',
  DYNAMIC_EVENTS_TOKEN: 'must contain only visible ASCII characters (no spaces)',
  REGISTRY_ADDR: 'must be host:port',
  MEDIA_ADDR: 'must be host:port',
};
