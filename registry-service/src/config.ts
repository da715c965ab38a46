import {
  DATABASE_URL,
  defineEnv,
  DRAIN_DELAY_MS,
  DURATION,
  durationSeconds,
  DYNAMIC_EVENTS_TOKEN,
  type Environment,
  GRPC_HOST,
  integer,
  LOG_LEVEL,
  METRICS_HOST,
  metricsPort,
  OCCURRED_AT_MAX_SKEW,
  oneOf,
  REDIS_URL,
  REGISTRY_GRPC_PORT,
  REGISTRY_INTERNAL_TOKEN,
  required,
  SHUTDOWN_TIMEOUT_MS,
  text,
} from '@dynamic-events/proto/runtime';
import { parseNetworks } from './webhooks/address-guard.js';

/** Validated, frozen configuration; only main.ts builds it (from process.env). */
interface Config {
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  grpcHost: string;
  grpcPort: number;
  shutdownTimeoutMs: number;
  /** After SIGTERM: NOT_SERVING but still answering this long, so callers and endpoints move away first. */
  drainDelayMs: number;
  metricsHost: string;
  /** Prometheus /metrics listens here. */
  metricsPort: number;
  /** Required: `npm start` hands the registry its embedded Postgres' URL like any other. */
  databaseUrl: string;
  databasePoolSize: number;
  /** Unset: in-process lock (one replica). */
  redisUrl: string | undefined;
  lockTtlMs: number;
  lockWaitMs: number;
  /** Statements writing events at once; concurrent calls' events are merged into them (group commit). */
  writeConcurrency: number;
  /** Events waiting for a statement; beyond it calls are refused with UNAVAILABLE. */
  writeQueueMaxEvents: number;
  /** auto: apply at start-up; skip: a separate job owns them. */
  migrations: 'auto' | 'skip';
  /** How long an Idempotency-Key is honoured before the background purge may delete it. */
  idempotencyKeyTtlSeconds: number;
  /** EVENT_RETENTION: events older than this are deleted in the background; undefined keeps them all. */
  eventRetentionSeconds: number | undefined;
  /** WATCH_RETENTION: how long the watch history is kept (how old a cursor may be to resume). */
  watchRetentionSeconds: number;
  /** MAX_WATCHES: Watch streams served at once; beyond it UNAVAILABLE. */
  maxWatches: number;
  /** OCCURRED_AT_MAX_SKEW: how far in the future an event's occurred_at may lie. */
  occurredAtMaxSkewSeconds: number;
  /** COUNTS_INTERVAL_MS: how often the counts' pass runs; 0 keeps no counts. */
  countsIntervalMs: number;
  /** COUNTS_PASS: whether this replica runs the counts' pass (off on webhook-delivery replicas). */
  countsPass: boolean;
  /** DYNAMIC_EVENTS_TOKEN: applied to the bootstrap token row at start-up; unset revokes that row. Never logged. */
  bootstrapToken: string | undefined;
  /** REGISTRY_INTERNAL_TOKEN: what every TokenService call must present (required to serve). Never logged. */
  internalToken: string | undefined;
  webhooks: WebhookConfig;
}

/** How this replica delivers webhooks. */
export interface WebhookConfig {
  /** WEBHOOK_SECRET_KEY's 32 bytes: seals the signing secrets. Undefined: webhooks cannot be created. Never logged. */
  secretKey: Buffer | undefined;
  timeoutMs: number;
  /** The wait after each failed attempt, in seconds; past the last one the delivery has failed. */
  retryScheduleSeconds: number[];
  disableAfterSeconds: number;
  allowedNetworks: string[];
  maxInFlight: number;
  /** WEBHOOK_DELIVERY: whether this replica sends webhooks (every replica manages them). */
  deliver: boolean;
}

/** A comma-separated list of DURATION values. */
const DURATIONS = '^[1-9][0-9]{0,8}[smhd](,[1-9][0-9]{0,8}[smhd]){0,49}$';
/** 32 bytes in base64 (44 characters with its padding). */
const KEY_BASE64 = '^[A-Za-z0-9+/]{43}=$';

/** Every variable the registry reads, in the order the configuration table lists them. */
export const REGISTRY_ENV = defineEnv({
  DATABASE_URL: required(DATABASE_URL, 'a postgres:// URL; npm start provides an embedded Postgres'),
  DATABASE_POOL_SIZE: integer({ minimum: 1, maximum: 1000, default: 10, description: 'Connections per registry instance.' }),
  MIGRATIONS: oneOf(['auto', 'skip'], {
    default: 'auto',
    description: '`auto` applies pending migrations at start-up (under an advisory lock, safe with many replicas); `skip` leaves them to a separate job and refuses to start while the database lacks one.',
  }),
  REDIS_URL,
  LOCK_TTL_MS: integer({ minimum: 100, maximum: 600_000, default: 10_000, description: 'Lifetime of a creation lock (a crashed holder blocks nobody for longer).' }),
  LOCK_WAIT_MS: integer({
    minimum: 0,
    maximum: 600_000,
    default: 3000,
    description: 'How long a contended first creation waits before relying on the database constraints alone.',
  }),
  REGISTRY_GRPC_PORT,
  GRPC_HOST,
  WRITE_CONCURRENCY: integer({
    minimum: 1,
    maximum: 1000,
    default: 8,
    description:
      'SQL statements writing events at once (keep it below `DATABASE_POOL_SIZE`); events of calls arriving meanwhile are merged into the next statement (group commit).',
  }),
  WRITE_QUEUE_MAX_EVENTS: integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 50_000,
    description: 'Events waiting for a statement; beyond it calls are refused with `UNAVAILABLE` (the gateway answers 503).',
  }),
  // A minute at least (the purge runs every minute), a year at most.
  IDEMPOTENCY_KEY_TTL_SECONDS: integer({
    minimum: 60,
    maximum: 31_536_000,
    default: 86_400,
    description:
      'How long an `Idempotency-Key` is honoured (60 s to one year). A background purge (every minute, in batches of 1,000, on every replica) then deletes it.',
  }),
  EVENT_RETENTION: text({
    ...DURATION,
    defaultText: 'unset',
    description: 'Events older than this (`30d`, `12h`, `90m`, `3600s`) are deleted in the background; unset keeps everything. See [Retention](../README.md#retention).',
  }),
  WATCH_RETENTION: text({
    ...DURATION,
    default: '1d',
    description: 'How long the watch history is kept: how old a Watch or stream cursor may be and still resume (never longer than `EVENT_RETENTION`).',
  }),
  // About 30 KB per Watch of a filter of its own: 4,000 stay well under the chart's 256 MiB.
  MAX_WATCHES: integer({
    minimum: 1,
    maximum: 100_000,
    default: 4000,
    description:
      '`Watch` streams (each gateway\'s event streams: one per filter, and one per client reading history) this registry serves at once; beyond it a `Watch` ends with `UNAVAILABLE` and the gateway answers the stream 503 with `Retry-After`. Sized to the chart\'s memory limit: see [Limits](../ingest-gateway/README.md#limits).',
  }),
  OCCURRED_AT_MAX_SKEW,
  COUNTS_INTERVAL_MS: integer({
    minimum: 0,
    maximum: 30_000,
    default: 5000,
    description:
      'How often (ms) the background pass adds new events to the counts (`GET …/dynamic-events/counts`) and moves `last_seen_at` of devices and objects: they trail the events by about this. `0` keeps neither (a benchmark\'s baseline).',
  }),
  COUNTS_PASS: oneOf(['on', 'off'], {
    default: 'on',
    description:
      '`off`: this replica runs no counts pass (its retention still keeps the commits the pass has not counted). The webhook-delivery replicas have it off (the chart\'s delivery Deployment, `npm start`\'s delivery process): the pass runs on the replicas ingest calls, never where a lower CPU priority or limit would hold everyone\'s counts back.',
  }),
  DYNAMIC_EVENTS_TOKEN,
  WEBHOOK_SECRET_KEY: text({
    pattern: KEY_BASE64,
    hint: 'must be 32 bytes in base64 (44 characters, e.g. `openssl rand -base64 32`)',
    defaultText: 'unset (`npm start`: one per `DATA_DIR`)',
    description:
      'Seals the webhooks\' signing secrets (AES-256-GCM) so the database alone holds none; without it webhooks cannot be created. Keep it with the database\'s backups: a database restored without its key cannot sign. See [Webhooks](../README.md#webhooks).',
  }),
  WEBHOOK_TIMEOUT_MS: integer({ minimum: 1000, maximum: 120_000, default: 15_000, description: 'A receiver must answer 2xx within this long (connection to answer), else the attempt failed.' }),
  WEBHOOK_RETRY_SCHEDULE: text({
    pattern: DURATIONS,
    hint: 'must be durations such as 5s,5m,30m,2h separated by commas',
    default: '5s,5m,30m,2h,5h,10h,10h',
    description: 'The wait after each failed attempt (±20 % jitter); when it runs out the delivery is `failed`. A 429 or 503 with `Retry-After` waits at least that long, capped by the longest step.',
  }),
  WEBHOOK_DISABLE_AFTER: text({
    ...DURATION,
    default: '5d',
    description: 'A webhook whose every attempt failed for this long is disabled (its deliveries are kept pending until it is enabled again).',
  }),
  WEBHOOK_ALLOWED_NETWORKS: text({
    pattern: '^[0-9A-Fa-f:./]+(,[0-9A-Fa-f:./]+)*$',
    hint: 'must be CIDRs such as 10.20.0.0/16,fd00::/8 separated by commas',
    check: (value) => {
      try {
        parseNetworks(value.split(','));
        return true;
      } catch {
        return false;
      }
    },
    defaultText: 'none (`npm start`: loopback, `127.0.0.0/8,::1/128`)',
    description: 'Networks webhooks may reach although they are internal (loopback, private, link-local …): an in-cluster receiver, say. Every other internal address is refused at create and at each connection.',
  }),
  WEBHOOK_DELIVERY: oneOf(['on', 'off'], {
    default: 'on',
    description:
      '`off`: this replica manages webhooks and records events but sends none, leaving delivery to replicas with `on` (the chart runs them as a Deployment of their own, `npm start` as a process at a lower CPU priority), so deliveries never take CPU from ingest.',
  }),
  WEBHOOK_MAX_IN_FLIGHT: integer({ minimum: 1, maximum: 256, default: 16, description: 'Attempts in flight per webhook on each registry replica (also its connections to that receiver).' }),
  // Unset only for --migrate-only: main.ts refuses to serve TokenService without it.
  REGISTRY_INTERNAL_TOKEN: { ...REGISTRY_INTERNAL_TOKEN, defaultText: 'required' },
  SHUTDOWN_TIMEOUT_MS,
  DRAIN_DELAY_MS,
  METRICS_PORT: metricsPort(9465),
  METRICS_HOST,
  LOG_LEVEL,
});

/** Validates the environment (main.ts passes process.env) and returns the frozen config; throws naming every bad variable. */
export function loadConfig(env: Environment): Readonly<Config> {
  const v = REGISTRY_ENV.load(env);
  return Object.freeze({
    logLevel: v.LOG_LEVEL,
    grpcHost: v.GRPC_HOST,
    grpcPort: v.REGISTRY_GRPC_PORT,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    drainDelayMs: v.DRAIN_DELAY_MS,
    metricsHost: v.METRICS_HOST,
    metricsPort: v.METRICS_PORT,
    databaseUrl: v.DATABASE_URL,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    redisUrl: v.REDIS_URL,
    lockTtlMs: v.LOCK_TTL_MS,
    lockWaitMs: v.LOCK_WAIT_MS,
    writeConcurrency: v.WRITE_CONCURRENCY,
    writeQueueMaxEvents: v.WRITE_QUEUE_MAX_EVENTS,
    migrations: v.MIGRATIONS,
    idempotencyKeyTtlSeconds: v.IDEMPOTENCY_KEY_TTL_SECONDS,
    eventRetentionSeconds: v.EVENT_RETENTION === undefined ? undefined : durationSeconds(v.EVENT_RETENTION),
    watchRetentionSeconds: durationSeconds(v.WATCH_RETENTION),
    maxWatches: v.MAX_WATCHES,
    occurredAtMaxSkewSeconds: durationSeconds(v.OCCURRED_AT_MAX_SKEW),
    countsIntervalMs: v.COUNTS_INTERVAL_MS,
    countsPass: v.COUNTS_PASS === 'on',
    bootstrapToken: v.DYNAMIC_EVENTS_TOKEN,
    internalToken: v.REGISTRY_INTERNAL_TOKEN,
    webhooks: {
      secretKey: v.WEBHOOK_SECRET_KEY === undefined ? undefined : Buffer.from(v.WEBHOOK_SECRET_KEY, 'base64'),
      timeoutMs: v.WEBHOOK_TIMEOUT_MS,
      retryScheduleSeconds: v.WEBHOOK_RETRY_SCHEDULE.split(',').map(durationSeconds),
      disableAfterSeconds: durationSeconds(v.WEBHOOK_DISABLE_AFTER),
      allowedNetworks: v.WEBHOOK_ALLOWED_NETWORKS === undefined ? [] : v.WEBHOOK_ALLOWED_NETWORKS.split(','),
      maxInFlight: v.WEBHOOK_MAX_IN_FLIGHT,
      deliver: v.WEBHOOK_DELIVERY === 'on',
    },
  });
}
