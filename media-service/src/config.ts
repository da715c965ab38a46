import { join } from 'node:path';
import {
  DATA_DIR,
  defineEnv,
  DRAIN_DELAY_MS,
  type Environment,
  GRPC_HOST,
  integer,
  LOG_LEVEL,
  MAX_IMAGE_BYTES,
  MEDIA_GRPC_PORT,
  METRICS_HOST,
  metricsPort,
  SHUTDOWN_TIMEOUT_MS,
  text,
} from '@dynamic-events/proto/runtime';
import {
  IMAGE_ENVELOPE_BYTES,
} from '@dynamic-events/proto';

/** Where images live: an S3 bucket (MinIO, AWS) or a directory on local disk (the embedded default). */
type StorageConfig =
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
  storage: StorageConfig;
  maxImageBytes: number;
  maxImagePixels: number;
  /** Largest gRPC message: an image at the limit plus room for framing. */
  grpcMaxMessageBytes: number;
}

/** The URL parser refuses a few strings the pattern admits (a port above 65535, say). */
function parsesAsUrl(value: string): boolean {
  return URL.canParse(value);
}

/** Every variable the media service reads, in the order the configuration table lists them. */
export const MEDIA_ENV = defineEnv({
  MAX_IMAGE_PIXELS: integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    default: 100_000_000,
    description: 'Largest width × height accepted (pixel-bomb guard).',
  }),
  DATA_DIR,
  S3_ENDPOINT: text({
    pattern: '^https?://[^/?#]+/?$',
    check: parsesAsUrl,
    hint: 'must be the http(s) URL of the S3 server without a path, e.g. http://minio:9000',
    requires: ['S3_ACCESS_KEY', 'S3_SECRET_KEY'],
    defaultText: 'unset',
    description: 'S3 / MinIO endpoint URL, e.g. `http://minio:9000`. Unset: images on disk under `DATA_DIR/media`.',
  }),
  S3_ACCESS_KEY: text({ defaultText: 'unset', description: 'Access key (required with `S3_ENDPOINT`).' }),
  S3_SECRET_KEY: text({ defaultText: 'unset', description: 'Secret key (required with `S3_ENDPOINT`).' }),
  // S3 bucket naming rules: 3-63 lowercase letters, digits, dots and hyphens.
  S3_BUCKET: text({
    pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$',
    hint: 'must be a valid S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)',
    default: 'dynamic-events',
    description: 'Bucket, created at start-up if missing.',
  }),
  S3_REGION: text({ pattern: '^[a-z0-9-]+$', hint: 'must be a region name such as us-east-1', default: 'us-east-1', description: 'Region.' }),
  MAX_IMAGE_BYTES,
  MEDIA_GRPC_PORT,
  GRPC_HOST,
  SHUTDOWN_TIMEOUT_MS,
  DRAIN_DELAY_MS,
  METRICS_PORT: metricsPort(9466),
  METRICS_HOST,
  LOG_LEVEL,
});

type MediaEnv = ReturnType<typeof MEDIA_ENV.load>;

/** Validates the environment (main.ts passes process.env) and returns the frozen config; throws naming every bad variable. */
export function loadConfig(env: Environment): Readonly<MediaConfig> {
  const v = MEDIA_ENV.load(env);
  return Object.freeze({
    logLevel: v.LOG_LEVEL,
    grpcHost: v.GRPC_HOST,
    grpcPort: v.MEDIA_GRPC_PORT,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    drainDelayMs: v.DRAIN_DELAY_MS,
    metricsHost: v.METRICS_HOST,
    metricsPort: v.METRICS_PORT,
    storage: Object.freeze(storageOf(v)),
    maxImageBytes: v.MAX_IMAGE_BYTES,
    maxImagePixels: v.MAX_IMAGE_PIXELS,
    grpcMaxMessageBytes: v.MAX_IMAGE_BYTES + IMAGE_ENVELOPE_BYTES,
  });
}

function storageOf(env: MediaEnv): StorageConfig {
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
