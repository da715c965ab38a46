import { addReflection, createGrpcServer, registry, REGISTRY_PROTO, type GrpcServer } from '@dynamic-events/proto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createKnownEntities } from './domain/known-entities.js';
import { createReader } from './domain/reads.js';
import { createEventRecorder } from './domain/record-events.js';
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
  /** How often the database is checked for the health status. */
  healthIntervalMs?: number;
  /**
   * A separate one-connection pool for the health check, so a pool saturated by real traffic does
   * not read as "database down" (defaults to `pool`).
   */
  healthPool?: pg.Pool;
}

export interface RegistryServer {
  grpc: GrpcServer;
  /** Drives SERVING/NOT_SERVING from the database; start it once the server listens. */
  health: DatabaseHealth;
}

/** Wires the registry: handlers, reflection and database-driven health on a gRPC server that does not listen yet. */
export function createServer(deps: ServerDeps): RegistryServer {
  const { logger, pool, metrics } = deps;
  const grpc = createGrpcServer({ logger, metricsRegistry: deps.metricsRegistry });
  const locks = createEntityLocks({ locker: deps.locker, waitMs: deps.lockWaitMs, metrics, logger });
  const recorder = createEventRecorder({ pool, locks, known: createKnownEntities(), metrics });
  grpc.addService<registry.RegistryServiceServer>(
    REGISTRY_SERVICE_NAME,
    registry.RegistryServiceService,
    createRegistryHandlers({ recorder, reader: createReader(pool) }),
  );
  addReflection(grpc.server, REGISTRY_PROTO);
  const health = createDatabaseHealth({
    pool: deps.healthPool ?? pool,
    logger,
    intervalMs: deps.healthIntervalMs,
    onChange: (serving) => grpc.setServing(serving),
  });
  return { grpc, health };
}
