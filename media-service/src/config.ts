import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { IMAGE_ENVELOPE_BYTES, LogSafeError, MAX_IMAGE_BYTES_DEFAULT, MAX_IMAGE_BYTES_LIMIT } from '@dynamic-events/proto';

/** Where images live: an S3 bucket (MinIO, AWS) or a directory on local disk (the embedded default). */
export type StorageConfig =
  | { kind: 'filesystem'; dir: string }
  | { kind: 's3'; endPoint: string; port: number; useSSL: boolean; accessKey: string; secretKey: string; bucket: string; region: string };

/** The media service's validated, frozen configuration. */
export interface MediaConfig {
  logLevel: string;
  grpcHost: string;
  grpcPort: number;
  shutdownTimeoutMs: number;
  /** After SIGTERM: NOT_SERVING but still answering this long, so callers and endpoints move away first. */
  drainDelayMs: number;
  metricsHost: string;
  /** Prometheus /metrics listens here. */
  metricsPort: number;
  dataDir: string;
  storage: StorageConfig;
  maxImageBytes: number;
  maxImagePixels: number;
  /** Largest gRPC message: an image at the limit plus room for framing. */
  grpcMaxMessageBytes: number;
  /** Without a trailing slash. */
}

const schema = {
  type: 'object',
  properties: {
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    GRPC_HOST: { type: 'string', pattern: '^\\S+$', default: '0.0.0.0' },
    MEDIA_GRPC_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 50052 },
    SHUTDOWN_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: 600_000, default: 8000 },
    DRAIN_DELAY_MS: { type: 'integer', minimum: 0, maximum: 600_000, default: 0 },
    METRICS_HOST: { type: 'string', pattern: '^\\S+$', default: '0.0.0.0' },
    METRICS_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 9466 },
    DATA_DIR: { type: 'string', minLength: 1, default: './.data' },
    S3_ENDPOINT: { type: 'string', pattern: '^https?://[^/?#]+/?$' },
    S3_ACCESS_KEY: { type: 'string', minLength: 1 },
    S3_SECRET_KEY: { type: 'string', minLength: 1 },
    // S3 bucket naming rules: 3-63 lowercase letters, digits, dots and hyphens.
    S3_BUCKET: { type: 'string', pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$', default: 'dynamic-events' },
    S3_REGION: { type: 'string', pattern: '^[a-z0-9-]+$', default: 'us-east-1' },
    // gRPC message sizes are int32; 512 MiB keeps image + framing far below that.
    MAX_IMAGE_BYTES: { type: 'integer', minimum: 1, maximum: MAX_IMAGE_BYTES_LIMIT, default: MAX_IMAGE_BYTES_DEFAULT },
    MAX_IMAGE_PIXELS: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 100_000_000 },
  },
  dependencies: { S3_ENDPOINT: ['S3_ACCESS_KEY', 'S3_SECRET_KEY'] },
} as const;

interface Env {
  LOG_LEVEL: string;
  GRPC_HOST: string;
  MEDIA_GRPC_PORT: number;
  SHUTDOWN_TIMEOUT_MS: number;
  DRAIN_DELAY_MS: number;
  METRICS_HOST: string;
  METRICS_PORT: number;
  DATA_DIR: string;
  S3_ENDPOINT?: string;
  S3_ACCESS_KEY?: string;
  S3_SECRET_KEY?: string;
  S3_BUCKET: string;
  S3_REGION: string;
  MAX_IMAGE_BYTES: number;
  MAX_IMAGE_PIXELS: number;
}

const validate = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true }).compile<Env>(schema);

/** Readable reasons for the variables whose pattern alone would say little. */
const HINTS: Record<string, string> = {
  GRPC_HOST: 'must be a host name or address without spaces',
  METRICS_HOST: 'must be a host name or address without spaces',
  S3_ENDPOINT: 'must be the http(s) URL of the S3 server without a path, e.g. http://minio:9000',
  S3_BUCKET: 'must be a valid S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)',
  S3_REGION: 'must be a region name such as us-east-1',
};

/** The variable an ajv error is about, with a reason that never echoes the value (it may be a secret). */
function describe(error: ErrorObject): string {
  if (error.keyword === 'dependencies') {
    const params = error.params as { missingProperty: string; property: string };
    return `${params.missingProperty}: required when ${params.property} is set`;
  }
  const name = error.instancePath.replace(/^\//, '') || '(environment)';
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const reason = error.keyword === 'pattern' ? HINTS[name] : allowed ? `must be one of ${allowed.join(', ')}` : undefined;
  return `${name}: ${reason ?? error.message ?? 'invalid'}`;
}

function parsesAsUrl(value: unknown): boolean {
  if (typeof value !== 'string') return true;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates the service's environment variables (only ours are read; empty values count as unset)
 * and returns a frozen config. Throws one Error naming every bad variable.
 */
export function loadConfig(environment: Record<string, string | undefined>): MediaConfig {
  const env: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = environment[key];
    if (value !== undefined && value.trim() !== '') env[key] = value.trim();
  }
  const valid = validate(env);
  const problems = (validate.errors ?? []).map(describe);
  // The patterns admit a few strings URL still refuses (a port above 65535, say).
  for (const name of ['S3_ENDPOINT']) {
    if (!parsesAsUrl(env[name]) && !problems.some((p) => p.startsWith(`${name}:`))) problems.push(`${name}: ${HINTS[name]}`);
  }
  if (!valid || problems.length > 0) throw new LogSafeError(`invalid media-service configuration: ${problems.join('; ')}`);
  const config: MediaConfig = {
    logLevel: env.LOG_LEVEL,
    grpcHost: env.GRPC_HOST,
    grpcPort: env.MEDIA_GRPC_PORT,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    drainDelayMs: env.DRAIN_DELAY_MS,
    metricsHost: env.METRICS_HOST,
    metricsPort: env.METRICS_PORT,
    dataDir: env.DATA_DIR,
    storage: storageOf(env),
    maxImageBytes: env.MAX_IMAGE_BYTES,
    maxImagePixels: env.MAX_IMAGE_PIXELS,
    grpcMaxMessageBytes: env.MAX_IMAGE_BYTES + IMAGE_ENVELOPE_BYTES,
  };
  return deepFreeze(config);
}

function storageOf(env: Env): StorageConfig {
  if (env.S3_ENDPOINT === undefined) return { kind: 'filesystem', dir: join(env.DATA_DIR, 'media') };
  const url = new URL(env.S3_ENDPOINT);
  const useSSL = url.protocol === 'https:';
  return {
    kind: 's3',
    // URL keeps IPv6 hosts bracketed; the minio client wants the bare address.
    endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (useSSL ? 443 : 80) : Number(url.port),
    useSSL,
    accessKey: env.S3_ACCESS_KEY ?? '',
    secretKey: env.S3_SECRET_KEY ?? '',
    bucket: env.S3_BUCKET,
    region: env.S3_REGION,
  };
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) deepFreeze(child as object);
  return Object.freeze(value);
}
