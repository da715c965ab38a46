import { Ajv } from 'ajv';
import { LogSafeError } from '@dynamic-events/proto';

/** Validated, frozen configuration; only main.ts builds it (from process.env). */
export interface Config {
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
}

const port = { type: 'integer', minimum: 0, maximum: 65535 } as const;
const millis = (min: number, max: number, fallback: number) => ({ type: 'integer', minimum: min, maximum: max, default: fallback }) as const;

const schema = {
  type: 'object',
  required: ['DATABASE_URL'],
  properties: {
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    GRPC_HOST: { type: 'string', minLength: 1, default: '0.0.0.0' },
    REGISTRY_GRPC_PORT: { ...port, default: 50051 },
    SHUTDOWN_TIMEOUT_MS: millis(0, 600_000, 8000),
    DRAIN_DELAY_MS: millis(0, 600_000, 0),
    METRICS_HOST: { type: 'string', minLength: 1, default: '0.0.0.0' },
    METRICS_PORT: { ...port, default: 9465 },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_POOL_SIZE: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
    REDIS_URL: { type: 'string', pattern: '^rediss?://' },
    LOCK_TTL_MS: millis(100, 600_000, 10_000),
    LOCK_WAIT_MS: millis(0, 600_000, 3000),
    WRITE_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 1000, default: 4 },
    WRITE_QUEUE_MAX_EVENTS: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 50_000 },
    MIGRATIONS: { type: 'string', enum: ['auto', 'skip'], default: 'auto' },
    // A minute at least (the purge runs every minute), a year at most.
    IDEMPOTENCY_KEY_TTL_SECONDS: { type: 'integer', minimum: 60, maximum: 31_536_000, default: 86_400 },
  },
} as const;

const validate = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true }).compile(schema);

/**
 * Builds the configuration from environment variables. Empty values count as unset. Throws one
 * Error naming every bad variable, so an operator fixes them all in one go.
 */
export function loadConfig(env: Record<string, string | undefined>): Readonly<Config> {
  const input: Record<string, string> = {};
  for (const name of Object.keys(schema.properties)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') input[name] = value.trim();
  }
  if (!validate(input)) {
    const problems = (validate.errors ?? []).map((e) => {
      const name = e.keyword === 'required' ? String((e.params as { missingProperty: string }).missingProperty) : e.instancePath.replace(/^\//, '');
      if (e.keyword === 'required') return `${name} is required (a postgres:// URL; npm start provides an embedded Postgres)`;
      const allowed = e.keyword === 'enum' ? ` (${(e.params as { allowedValues: string[] }).allowedValues.join(', ')})` : '';
      const hint = e.keyword === 'pattern' ? ` (${name === 'REDIS_URL' ? 'redis://…' : 'postgres://…'})` : '';
      // URLs may carry passwords: never echo them.
      const got = name.endsWith('_URL') ? '' : `, got ${JSON.stringify(input[name])}`;
      return `${name} ${e.message ?? 'is invalid'}${allowed}${hint}${got}`;
    });
    throw new LogSafeError(`invalid configuration: ${problems.join('; ')}`);
  }
  const v = input as unknown as Record<string, string | number | undefined>;
  return Object.freeze({
    logLevel: v.LOG_LEVEL as Config['logLevel'],
    grpcHost: String(v.GRPC_HOST),
    grpcPort: Number(v.REGISTRY_GRPC_PORT),
    shutdownTimeoutMs: Number(v.SHUTDOWN_TIMEOUT_MS),
    drainDelayMs: Number(v.DRAIN_DELAY_MS),
    metricsHost: String(v.METRICS_HOST),
    metricsPort: Number(v.METRICS_PORT),
    databaseUrl: String(v.DATABASE_URL),
    databasePoolSize: Number(v.DATABASE_POOL_SIZE),
    redisUrl: v.REDIS_URL === undefined ? undefined : String(v.REDIS_URL),
    lockTtlMs: Number(v.LOCK_TTL_MS),
    lockWaitMs: Number(v.LOCK_WAIT_MS),
    writeConcurrency: Number(v.WRITE_CONCURRENCY),
    writeQueueMaxEvents: Number(v.WRITE_QUEUE_MAX_EVENTS),
    migrations: v.MIGRATIONS as Config['migrations'],
    idempotencyKeyTtlSeconds: Number(v.IDEMPOTENCY_KEY_TTL_SECONDS),
  });
}
