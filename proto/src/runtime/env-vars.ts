import { integer, oneOf, text, type EnvVar } from './env-config.js';
import { MAX_IMAGE_BYTES_DEFAULT, MAX_IMAGE_BYTES_LIMIT } from '../contract/limits.js';

/**
 * The variables more than one program reads (two services, or a service and the `npm start`
 * launcher), defined once so that every reader checks them alike and the README documents them
 * once. A variable only one service reads lives in that service's config.ts.
 */

/** A duration such as `30d`, `12h`, `90m` or `3600s` (a text variable's pattern and hint). */
export const DURATION = Object.freeze({ pattern: '^[1-9][0-9]{0,8}[smhd]$', hint: 'must be a duration such as 30d, 12h, 90m or 3600s' });
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds of a DURATION value. */
export function durationSeconds(value: string): number {
  return Number(value.slice(0, -1)) * (UNIT_SECONDS[value.slice(-1)] ?? Number.NaN);
}

/** Host names and addresses: anything without whitespace (IPv6 literals included). */
const HOST_PATTERN = '^\\S+$';
const HOST_HINT = 'must be a host name or address without spaces';

export const LOG_LEVEL = oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', description: 'pino level.' });

export const SHUTDOWN_TIMEOUT_MS = integer({
  minimum: 0,
  maximum: 600_000,
  default: 8000,
  description: 'How long in-flight requests may take to finish after SIGTERM.',
});

export const DRAIN_DELAY_MS = integer({
  minimum: 0,
  maximum: 600_000,
  default: 0,
  description:
    'After SIGTERM, how long the service reports not-ready but keeps serving before it stops accepting, so endpoints, the ingress and gRPC callers move away first. Set it to about 5000 in Kubernetes (the chart and manifests do).',
});

export const METRICS_HOST = text({ pattern: HOST_PATTERN, hint: HOST_HINT, default: '0.0.0.0', description: 'Bind address of the metrics port.' });

/** Each service has its own default metrics port, so three of them fit on one host. */
export function metricsPort(fallback: number): EnvVar<number, true> {
  return integer({
    minimum: 0,
    maximum: 65535,
    default: fallback,
    description: 'Port of `GET /metrics` (each service its own; in Kubernetes every pod uses its default).',
  });
}

export const GRPC_HOST = text({ pattern: HOST_PATTERN, hint: HOST_HINT, default: '0.0.0.0', description: 'gRPC bind address.' });

/** 0 lets the OS choose (tests); a caller (gateway, launcher) needs a real port: see `connectable`. */
export const REGISTRY_GRPC_PORT = integer({ minimum: 0, maximum: 65535, default: 50051, description: 'Registry gRPC port.' });
export const MEDIA_GRPC_PORT = integer({ minimum: 0, maximum: 65535, default: 50052, description: 'Media gRPC port.' });

/** The same port variable for a program that connects to it: 0 (any port) means nothing there. */
export function connectable(port: EnvVar<number, true>): EnvVar<number, true> {
  return { ...port, schema: { ...port.schema, minimum: 1 } };
}

export const MAX_IMAGE_BYTES = integer({
  minimum: 1,
  // gRPC message sizes are int32: the limit keeps image plus envelope far below that.
  maximum: MAX_IMAGE_BYTES_LIMIT,
  default: MAX_IMAGE_BYTES_DEFAULT,
  description: 'Largest decoded image (413 above).',
});

export const DATA_DIR = text({
  default: './.data',
  description:
    'Embedded Postgres data (`postgres/`, started by the launcher) and on-disk images (`media/`). Started as root, Postgres runs as the `postgres` system user; if that user cannot enter `DATA_DIR` (a checkout under `/root` or another 0700 directory), the cluster lives in `/var/tmp/dynamic-events-postgres/` and `DATA_DIR/postgres/data` links to it (the binaries are copied there once too).',
});

export const DATABASE_URL = text({
  pattern: '^postgres(ql)?://',
  hint: 'must be a postgres:// URL',
  description:
    'PostgreSQL connection string. Under `npm start`, unset: the launcher starts an embedded Postgres under `DATA_DIR` and hands the registry its URL (the registry itself knows only `DATABASE_URL`).',
});

export const PORT = integer({ minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port.' });

export const HOST = text({ pattern: HOST_PATTERN, hint: HOST_HINT, default: '0.0.0.0', description: 'HTTP bind address.' });

export const PLATFORM_SEGMENT = text({
  pattern: '^(?!\\.{1,2}$)[A-Za-z0-9._~-]+$',
  hint: 'must be one URL path segment (letters, digits, "-", "_", ".", "~"; not "." or "..")',
  default: 'platform',
  description: 'Brand segment of the path: `/api/{PLATFORM_SEGMENT}/dh/...`.',
});

export const PUBLIC_BASE_URL = text({
  pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$',
  hint: 'must be an http(s) URL without query or fragment, e.g. http://localhost:8080',
  defaultText: '`http://localhost:{PORT}`',
  description:
    'Public origin used in stored image URLs (the gateway builds every public URL; media returns only keys). Set it to the ingress URL in production.',
});

/** The gateway's Host check; the launcher gives it a default of its own. */
export const ALLOWED_HOSTS = text({
  pattern: '^(\\*|(\\*\\.)?[A-Za-z0-9._:\\[\\]-]+( *, *(\\*\\.)?[A-Za-z0-9._:\\[\\]-]+)*)$',
  hint: 'must be `*` or host names separated by commas, e.g. api.example.com,localhost',
  defaultText: 'unset: any Host',
  description:
    'Host names (without port, comma-separated; `*.example.com` for one label under it) the gateway answers; any other `Host` gets 421 (`/healthz` and `/readyz` answer any), which keeps a DNS-rebinding page from reading or posting through a browser. `*`: any. The chart sets its ingress hosts.',
});

const HOST_PORT = { pattern: '^[^\\s:]+(:[^\\s:]*)*:[0-9]{1,5}$', hint: 'must be host:port' };

export const REGISTRY_ADDR = text({
  ...HOST_PORT,
  defaultText: '`127.0.0.1:{REGISTRY_GRPC_PORT}`',
  description:
    'Registry address when the services run apart (`registry:50051`). In Kubernetes use `dns:///<headless service>:50051`: calls are balanced round-robin over every ready pod.',
});

export const MEDIA_ADDR = text({ ...HOST_PORT, defaultText: '`127.0.0.1:{MEDIA_GRPC_PORT}`', description: 'Media address when the services run apart.' });


/**
 * The bootstrap token. The gateway accepts it without asking the registry; the registry lists it
 * (read-only) among the tokens and, like any token, it makes the instance require one.
 */
export const DYNAMIC_EVENTS_TOKEN = text({
  // Visible ASCII only: anything else cannot travel in an HTTP header as a bearer token.
  pattern: '^[\\x21-\\x7E]+$',
  hint: 'must contain only visible ASCII characters (no spaces)',
  defaultText: 'unset',
  description:
    'Bootstrap token: requests need `Authorization: Bearer <token>` when it is set or once a token was created (see [Tokens](../README.md#tokens)). Set it on the registry too, so that ListTokens shows it.',
});

/**
 * The internal credential of the registry's TokenService (it administers every token, and SyncTokens
 * answers every secret's hash): the registry requires it of every TokenService call, the gateways
 * and the operator CLI present it. Never logged.
 */
export const REGISTRY_INTERNAL_TOKEN = text({
  // At least 32 characters: it administers every token, so it must not be guessable.
  pattern: '^[\\x21-\\x7E]{32,}$',
  hint: 'must be at least 32 visible ASCII characters (no spaces)',
  description:
    'Credential the gateways and the operator CLI present to the registry\'s `TokenService` (`authorization: Bearer …` gRPC metadata); the registry refuses every `TokenService` call without it (`UNAUTHENTICATED`). The same value on the registry and every gateway (`--migrate-only` runs without it). `npm start` generates one per stack when unset. See [Tokens](../README.md#tokens).',
});

/** Redis: the registry's creation locks and the gateways' shared token rate limits. */
export const REDIS_URL = text({
  pattern: '^rediss?://',
  hint: 'must be a redis:// or rediss:// URL',
  defaultText: 'unset',
  description:
    'Redis for the registry\'s creation locks and the gateways\' token rate limits. Unset: an in-process lock (fine for one registry instance) and per-gateway rate limits (exact with one gateway; see [Rate limits](../ingest-gateway/README.md#rate-limits)).',
});

/** How far ahead of the receiving service's clock an event's occurred_at may lie (gateway and registry refuse it alike). */
export const OCCURRED_AT_MAX_SKEW = text({
  ...DURATION,
  default: '5m',
  description:
    'How far into the future (by this service\'s clock) an event\'s `occurred_at` may lie (`5m`, `30s`, `1h`); beyond it the event is refused with 400 naming `event.occurred_at`. Set the same value on the gateway and the registry.',
});
