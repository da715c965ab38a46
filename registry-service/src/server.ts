import { addReflection, createGrpcServer, LIMITS, registry, REGISTRY_PROTO, type GrpcServer } from '@dynamic-events/proto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createCommitFeed, type CommitFeed } from './domain/commit-feed.js';
import { createKnownEntities } from './domain/known-entities.js';
import { createLister } from './domain/lists.js';
import { createReader } from './domain/reads.js';
import { createWatch } from './domain/watch.js';
import { createEventRecorder } from './domain/record-events.js';
import { createWriteEvents } from './domain/write-events.js';
import { createDatabaseHealth, type DatabaseHealth } from './health.js';
import { createEntityLocks } from './locks/entity-locks.js';
import type { Locker } from './locks/locker.js';
import type { Metrics } from './metrics.js';
import { createRegistryHandlers, REGISTRY_SERVICE_NAME } from './rpc/registry.js';

export interface ServerDeps {
  logger: Logger;
  pool: pg.Pool;
  locker: Locker;
  metrics: Metrics;
  /** Where the grpc_server_* metrics go (the registry the metrics server exposes); omitted: not measured. */
  metricsRegistry?: Registry;
  /** LOCK_WAIT_MS: how long one call may wait for other creators' locks. */
  lockWaitMs: number;
  /** WRITE_CONCURRENCY: statements writing events at once (group commit merges what arrives meanwhile). */
  writeConcurrency: number;
  /** WRITE_QUEUE_MAX_EVENTS: events waiting for a statement before calls are refused with UNAVAILABLE. */
  writeQueueMaxEvents: number;
  /** How often the database is checked for the health status. */
  healthIntervalMs?: number;
  /**
   * A separate one-connection pool for the health check, so a pool saturated by real traffic does
   * not read as "database down" (defaults to `pool`).
   */
  healthPool?: pg.Pool;
  /** How often watchers' shared poll reads the commit head (default 50 ms: "typically under 100 ms"). */
  watchPollMs?: number;
  /** A watch sends a keep-alive after this long without a message (default 10 s). */
  watchKeepAliveMs?: number;
}

/** Event data in one statement's parameters: large enough to never be the limit for ordinary events. */
const WRITE_BATCH_MAX_BYTES = 8 * 1024 * 1024;

export interface RegistryServer {
  grpc: GrpcServer;
  /** Drives SERVING/NOT_SERVING from the database; start it once the server listens. */
  health: DatabaseHealth;
  /** The watchers' shared commit feed; close it at shutdown so open watches end and their clients move. */
  feed: CommitFeed;
}

/** Wires the registry: handlers, reflection and database-driven health on a gRPC server that does not listen yet. */
export function createServer(deps: ServerDeps): RegistryServer {
  const { logger, pool, metrics } = deps;
  const grpc = createGrpcServer({ logger, metricsRegistry: deps.metricsRegistry });
  const locks = createEntityLocks({ locker: deps.locker, waitMs: deps.lockWaitMs, metrics, logger });
  const write = createWriteEvents({ pool, locks, known: createKnownEntities(), metrics });
  const recorder = createEventRecorder(write, {
    maxConcurrentWrites: deps.writeConcurrency,
    maxBatchEvents: LIMITS.batchMaxEvents,
    maxBatchBytes: WRITE_BATCH_MAX_BYTES,
    maxQueuedEvents: deps.writeQueueMaxEvents,
  });
  const feed = createCommitFeed({ pool, logger, pollMs: deps.watchPollMs ?? 50 });
  grpc.addService<registry.RegistryServiceServer>(
    REGISTRY_SERVICE_NAME,
    registry.RegistryServiceService,
    createRegistryHandlers({
      recorder,
      reader: createReader(pool),
      lister: createLister(pool),
      watch: createWatch(feed, { keepAliveMs: deps.watchKeepAliveMs ?? 10_000 }),
      logger,
    }),
  );
  addReflection(grpc.server, REGISTRY_PROTO);
  const health = createDatabaseHealth({
    pool: deps.healthPool ?? pool,
    logger,
    intervalMs: deps.healthIntervalMs,
    onChange: (serving) => grpc.setServing(serving),
  });
  return { grpc, health, feed };
}
