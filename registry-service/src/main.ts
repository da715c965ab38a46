import { createLogger, createMetricsServer, hostPort, LogSafeError, onShutdownSignal, runMain } from '@dynamic-events/proto/runtime';
import type pg from 'pg';
import type { Logger } from 'pino';
import { loadConfig } from './config.js';
import { pendingMigrations, runMigrations } from './db/migrate.js';
import { applyBootstrapToken } from './tokens/bootstrap-token.js';
import { createPool } from './db/pool.js';
import { createServerRuns } from './db/server-runs.js';
import { createMemoryLocker } from './locks/memory-locker.js';
import { createRedisClient, createRedisLocker, waitForRedis } from './locks/redis-locker.js';
import { createMetrics } from './metrics.js';
import { createServer, type RegistryServer } from './server.js';

// The level is applied once the configuration is validated (a bad LOG_LEVEL must not crash the logger).
const logger = createLogger('registry-service');

runMain(logger, async () => {
  const config = loadConfig(process.env);
  logger.level = config.logLevel;
  // `node dist/main.js --migrate-only`: the migration job (MIGRATIONS=skip on the service itself).
  const migrateOnly = process.argv.includes('--migrate-only');
  const internalToken = migrateOnly ? '' : requireInternalToken(config.internalToken);

  // Closed in reverse order on shutdown or on a failed start: server first, database pools last.
  const closers: Array<{ name: string; close: () => Promise<void> }> = [];
  const closeAll = async (): Promise<void> => {
    for (const { name, close } of closers.splice(0).reverse()) {
      await close().catch((err: unknown) => logger.error({ err }, `closing ${name} failed`));
    }
  };
  onShutdownSignal(logger, closeAll);

  try {
    const { pool, healthPool, serverRuns } = openPools(config, logger);
    closers.push({ name: 'database pool', close: () => pool.end() }, { name: 'health pool', close: () => healthPool.end() });

    await migrate(pool, config.migrations === 'auto' || migrateOnly);
    if (migrateOnly) {
      await closeAll();
      process.exit(0);
    }
    // Before serving: ListTokens and the gateways' snapshot must reflect the setting from the first call.
    const bootstrap = await applyBootstrapToken(pool, config.bootstrapToken);
    logger.info({ bootstrap }, 'bootstrap token (DYNAMIC_EVENTS_TOKEN) applied');

    const locker = config.redisUrl ? await redisLocker(config.redisUrl, config.lockTtlMs) : createMemoryLocker({ ttlMs: config.lockTtlMs });
    closers.push({ name: 'lock store', close: () => locker.close() });

    // Closed after the gRPC server, so a scrape during the drain still answers.
    const metricsServer = createMetricsServer(logger);
    closers.push({ name: 'metrics server', close: () => metricsServer.close() });
    const metricsPort = await metricsServer.listen(config.metricsPort, config.metricsHost);
    const metrics = createMetrics(metricsServer.registry);
    const server = createServer({
      logger,
      pool,
      healthPool,
      serverRuns,
      locker,
      metrics,
      metricsRegistry: metricsServer.registry,
      internalToken,
      ...serverSettings(config),
    });
    const { grpc, health, watching, webhooks } = server;
    // Open watches never finish on their own: end them first (UNAVAILABLE), their clients resume on another replica.
    closers.push({
      name: 'gRPC server',
      close: async () => {
        // Attempts in flight finish and their outcomes are written before the pool closes.
        await webhooks.close();
        await watching.close();
        await grpc.shutdown(config.shutdownTimeoutMs, config.drainDelayMs);
      },
    });
    const port = await grpc.listen(hostPort(config.grpcHost, config.grpcPort));
    closers.push({ name: 'health checks', close: async () => health.stop() });
    const serving = await health.start();
    startBackground(server, closers, logger, { deliver: config.webhooks.deliver, counts: config.countsIntervalMs > 0 && config.countsPass });
    logger.info(
      { port, host: config.grpcHost, metricsPort, serving, locks: config.redisUrl ? 'redis' : 'in-process' },
      'registry-service listening',
    );
    // Under `npm start` the launcher waits for this message, never for whatever answers on the port.
    process.send?.({ listening: { port, metricsPort } });
  } catch (err) {
    await closeAll();
    throw err;
  }
});

/** The server's settings that come straight from the configuration. */
function serverSettings(config: ReturnType<typeof loadConfig>) {
  const { lockWaitMs, writeConcurrency, writeQueueMaxEvents, idempotencyKeyTtlSeconds, eventRetentionSeconds, watchRetentionSeconds, webhooks, maxWatches, occurredAtMaxSkewSeconds, countsIntervalMs } = config;
  return { lockWaitMs, writeConcurrency, writeQueueMaxEvents, idempotencyKeyTtlSeconds, eventRetentionSeconds, watchRetentionSeconds, webhooks, maxWatches, occurredAtMaxSkewSeconds, countsIntervalMs };
}

/** What every replica runs in the background once it listens: the key purge, retention, the counts' pass, webhook delivery. */
function startBackground(server: RegistryServer, closers: Array<{ name: string; close: () => Promise<void> }>, logger: Logger, on: { deliver: boolean; counts: boolean }): void {
  closers.push({ name: 'idempotency key purge', close: async () => server.purger.stop() });
  server.purger.start();
  closers.push({ name: 'retention', close: async () => server.retention.stop() });
  server.retention.start();
  closers.push({ name: 'counts pass', close: async () => server.rollup.stop() });
  if (on.counts) server.rollup.start();
  else logger.info('this replica runs no counts pass (COUNTS_PASS=off or COUNTS_INTERVAL_MS=0)');
  if (server.webhooks.runner) server.webhooks.runner.start();
  else if (!on.deliver) logger.info('WEBHOOK_DELIVERY=off: this replica sends no webhooks (replicas with WEBHOOK_DELIVERY=on do)');
  else logger.info('WEBHOOK_SECRET_KEY is not set: webhooks cannot be created and none are delivered');
}

/**
 * The request pool, with its connections tagged by server run from the first one on (migrations'
 * included), and the health check's own one-connection pool.
 */
function openPools(config: { databaseUrl: string; databasePoolSize: number }, logger: Logger) {
  const serverRuns = createServerRuns(logger);
  const pool = createPool({ connectionString: config.databaseUrl, max: config.databasePoolSize, logger, connections: serverRuns });
  const healthPool = createPool({ connectionString: config.databaseUrl, max: 1, logger, connectionTimeoutMs: 2000 });
  return { pool, healthPool, serverRuns };
}

/**
 * Applies the migrations, or (MIGRATIONS=skip) refuses to start while the database lacks one: the
 * start-up itself reads the schema (the bootstrap token's table), and every call would fail on it
 * anyway, so the operator gets one clear line instead of a missing-relation error. Under Helm the
 * migration Job is a pre-install/pre-upgrade hook and has finished before registry pods start;
 * elsewhere the orchestrator restarts the pod until the job is done.
 */
async function migrate(pool: pg.Pool, apply: boolean): Promise<void> {
  if (apply) {
    const applied = await runMigrations(pool, logger);
    logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
    return;
  }
  const pending = await pendingMigrations(pool);
  if (pending.length > 0) {
    // Names of this build's migration files only: safe to log whole.
    throw new LogSafeError(`MIGRATIONS=skip but the database lacks migrations ${pending.join(', ')}: run the migration job (node registry-service/dist/main.js --migrate-only) first`);
  }
}

/** TokenService administers every token: it is never served without its credential (the migration job needs none). */
function requireInternalToken(token: string | undefined): string {
  if (token !== undefined) return token;
  // Names the variable only: safe to log whole.
  throw new LogSafeError('invalid configuration: REGISTRY_INTERNAL_TOKEN is required (the credential TokenService callers present; npm start generates one)');
}

/** Locks fall back to the database constraints while Redis is unreachable; give it a moment to connect first. */
async function redisLocker(url: string, ttlMs: number) {
  const redis = createRedisClient(url, logger);
  if (!(await waitForRedis(redis, 2000))) logger.warn('redis not ready yet: entity locks fall back to the database constraints until it is');
  return createRedisLocker({ redis, ttlMs });
}
