import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

/** REGISTRY_INTERNAL_TOKEN is required: every environment below has it. */
const CREDENTIAL = 'config-test-internal-credential-0123456789';
const load = (env: Record<string, string>) => loadConfig({ REGISTRY_INTERNAL_TOKEN: CREDENTIAL, ...env });

describe('loadConfig', () => {
  it('applies the documented defaults and freezes the result', () => {
    const config = load({ DATABASE_URL: 'postgres://db/x' });
    expect(config).toEqual({
      logLevel: 'info',
      grpcHost: '0.0.0.0',
      grpcPort: 50051,
      shutdownTimeoutMs: 8000,
      drainDelayMs: 0,
      metricsHost: '0.0.0.0',
      metricsPort: 9465,
      databaseUrl: 'postgres://db/x',
      databasePoolSize: 10,
      redisUrl: undefined,
      lockTtlMs: 10_000,
      lockWaitMs: 3000,
      writeConcurrency: 8,
      writeQueueMaxEvents: 50_000,
      migrations: 'auto',
      idempotencyKeyTtlSeconds: 86_400,
      eventRetentionSeconds: undefined,
      watchRetentionSeconds: 86_400,
      maxWatches: 4000,
      occurredAtMaxSkewSeconds: 300,
      countsIntervalMs: 5000,
      countsPass: true,
      internalToken: CREDENTIAL,
      webhooks: { secretKey: undefined, timeoutMs: 15_000, retryScheduleSeconds: [5, 300, 1800, 7200, 18_000, 36_000, 36_000], disableAfterSeconds: 5 * 86_400, allowedNetworks: [], maxInFlight: 16, deliver: true },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable, treating empty values as unset', () => {
    const config = load({
      LOG_LEVEL: 'debug',
      GRPC_HOST: '127.0.0.1',
      REGISTRY_GRPC_PORT: '6000',
      SHUTDOWN_TIMEOUT_MS: '1000',
      DATABASE_URL: 'postgresql://u:p@db:5432/x',
      DATABASE_POOL_SIZE: '20',
      REDIS_URL: '',
      LOCK_TTL_MS: '5000',
      LOCK_WAIT_MS: '0',
      MIGRATIONS: 'skip',
      DRAIN_DELAY_MS: '5000',
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: '9100',
      IDEMPOTENCY_KEY_TTL_SECONDS: '3600',
      EVENT_RETENTION: '30d',
      WATCH_RETENTION: '90m',
      UNRELATED: 'ignored',
    });
    expect(config).toMatchObject({ eventRetentionSeconds: 30 * 86_400, watchRetentionSeconds: 90 * 60 });
    expect(config).toMatchObject({ logLevel: 'debug', grpcPort: 6000, databaseUrl: 'postgresql://u:p@db:5432/x', redisUrl: undefined, lockWaitMs: 0, migrations: 'skip' });
    expect(config).toMatchObject({ drainDelayMs: 5000, metricsHost: '127.0.0.1', metricsPort: 9100, idempotencyKeyTtlSeconds: 3600 });
  });

  it('requires DATABASE_URL (the registry knows no other database; npm start hands it an embedded one)', () => {
    expect(() => load({})).toThrow('invalid configuration: DATABASE_URL is required (a postgres:// URL; npm start provides an embedded Postgres)');
    expect(() => load({ DATABASE_URL: '  ' })).toThrow('DATABASE_URL is required');
  });

  it('names every bad variable in one error and never echoes URLs', () => {
    let message = '';
    try {
      load({ REGISTRY_GRPC_PORT: '70000', DATABASE_POOL_SIZE: 'ten', LOCK_TTL_MS: '1.5', REDIS_URL: 'http://u:secret@h', MIGRATIONS: 'later', METRICS_PORT: '-1', DRAIN_DELAY_MS: 'soon', IDEMPOTENCY_KEY_TTL_SECONDS: '59', EVENT_RETENTION: '30 days', WATCH_RETENTION: '0d' });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of ['REGISTRY_GRPC_PORT', 'DATABASE_POOL_SIZE', 'LOCK_TTL_MS', 'REDIS_URL', 'MIGRATIONS', 'METRICS_PORT', 'DRAIN_DELAY_MS', 'IDEMPOTENCY_KEY_TTL_SECONDS', 'EVENT_RETENTION', 'WATCH_RETENTION']) expect(message).toContain(name);
    expect(message).toContain('a duration such as 30d, 12h, 90m');
    expect(message).toContain('auto, skip');
    expect(message).not.toContain('secret');
  });
});

describe('REGISTRY_INTERNAL_TOKEN', () => {
  it('is at least 32 visible ASCII characters and never echoed; unset only for --migrate-only (main.ts refuses to serve without it)', () => {
    const other = { DATABASE_URL: 'postgres://db/x' };
    expect(loadConfig(other).internalToken).toBeUndefined();
    for (const bad of ['short-0123456789', `${CREDENTIAL} with spaces`]) {
      let message = '';
      try {
        loadConfig({ ...other, REGISTRY_INTERNAL_TOKEN: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain('REGISTRY_INTERNAL_TOKEN must be at least 32 visible ASCII characters');
      expect(message).not.toContain(bad);
    }
    expect(loadConfig({ ...other, REGISTRY_INTERNAL_TOKEN: CREDENTIAL }).internalToken).toBe(CREDENTIAL);
  });
});
