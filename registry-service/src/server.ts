import {
  addReflection,
  createGrpcServer,
  REGISTRY_PROTO,
  TOKENS_PROTO,
  WEBHOOKS_PROTO,
  type GrpcServer,
} from '@dynamic-events/proto/runtime';
import {
  createOccurredAtRule,
  LIMITS,
  registry,
  REGISTRY_MAX_MESSAGE_BYTES,
  REGISTRY_MAX_REQUEST_BYTES,
} from '@dynamic-events/proto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createIdempotentRecorder, findRequestKeys } from './ingest/idempotency.js';
import { createKeyPurger, type KeyPurger } from './jobs/idempotency-purge.js';
import { createKnownEntities } from './ingest/known-entities.js';
import { createTokenPolicies } from './tokens/token-policies.js';
import { createPolicyCheck, createPolicyRecorder } from './tokens/token-policy-check.js';
import { createLister } from './reads/lists.js';
import { createReader } from './reads/reads.js';
import { createRetention, type Retention } from './jobs/retention.js';
import { createCounter } from './counts/counts.js';
import { createRollup, type Rollup } from './counts/rollup.js';
import { createAuthSettings } from './tokens/token-sync.js';
import { createTokens } from './tokens/tokens.js';
import { capWatches } from './watch/watch-cap.js';
import { createWatching, type Watching } from './watch/watching.js';
import type { CommitHorizon } from './watch/commit-horizon.js';
import { createEventRecorder } from './ingest/record-events.js';
import { createWriteEvents } from './ingest/write-events.js';
import { createDatabaseHealth, type DatabaseHealth } from './health.js';
import type { ServerRuns } from './db/server-runs.js';
import { createEntityLocks } from './locks/entity-locks.js';
import type { Locker } from './locks/locker.js';
import { registerWriteQueueMetrics, writeTiming, type Metrics } from './metrics.js';
import { createRegistryHandlers } from './rpc/registry.js';
import { createInternalCredentialCheck, requireCredential } from './rpc/internal-credential.js';
import { createTokenHandlers } from './rpc/tokens.js';
import { createWatchEncoding } from './rpc/watch-encoding.js';
import { createWebhookHandlers } from './rpc/webhooks.js';
import type { WebhookConfig } from './config.js';
import type { Resolver } from './webhooks/address-guard.js';
import { createWebhookParts, type WebhookParts } from './webhooks/webhook-service.js';
import { Registry as PromRegistry } from 'prom-client';

interface ServerDeps {
  logger: Logger;
  pool: pg.Pool;
  locker: Locker;
  metrics: Metrics;
  /** Where the grpc_server_* metrics go (the registry the metrics server exposes); omitted: not measured. */
  metricsRegistry?: Registry;
  /** REGISTRY_INTERNAL_TOKEN: every TokenService call must present it. */
  internalToken: string;
  /** LOCK_WAIT_MS: how long one call may wait for other creators' locks. */
  lockWaitMs: number;
  /** WRITE_CONCURRENCY: statements writing events at once (group commit merges what arrives meanwhile). */
  writeConcurrency: number;
  /** WRITE_QUEUE_MAX_EVENTS: events waiting for a statement before calls are refused with UNAVAILABLE. */
  writeQueueMaxEvents: number;
  /** IDEMPOTENCY_KEY_TTL_SECONDS: how long an Idempotency-Key is honoured before it is purged. */
  idempotencyKeyTtlSeconds: number;
  /** How often the database is checked for the health status. */
  healthIntervalMs?: number;
  /**
   * A separate one-connection pool for the health check, so a pool saturated by real traffic does
   * not read as "database down" (defaults to `pool`).
   */
  healthPool?: pg.Pool;
  /** The server runs `pool`'s connections reached: the pool was created with it (createPool's `connections`). */
  serverRuns: ServerRuns;
  /** A watch sends a keep-alive after this long without a message (default 10 s). */
  watchKeepAliveMs?: number;
  /** Polls the commit horizon at least this often while someone watches (default 500 ms; NOTIFY wakes it sooner). */
  watchFallbackPollMs?: number;
  /** A watcher whose client reads nothing for this long is ended with RESOURCE_EXHAUSTED (default 30 s). */
  watchMaxStallMs?: number;
  /** EVENT_RETENTION in seconds; undefined keeps every event. */
  eventRetentionSeconds?: number;
  /** WATCH_RETENTION in seconds (default one day). */
  watchRetentionSeconds?: number;
  /** Estimated bytes a ListEvents page holds at most (default LIST_PAGE_MAX_BYTES); tests make it small. */
  listPageMaxBytes?: number;
  /** Bytes Watch streams may hold for their clients, all together (default PROCESS_HELD_BYTES); tests make it small. */
  watchHeldBytes?: number;
  webhooks: WebhookConfig;
  /** Stands in for DNS in the webhook sender (tests). */
  webhookResolver?: Resolver;
  /** How often the webhook sender looks again without a wake-up (default 1 s). */
  webhookPollMs?: number;
  /** MAX_WATCHES: Watch streams served at once (watch-cap.ts). */
  maxWatches: number;
  /** OCCURRED_AT_MAX_SKEW in seconds (default 300). */
  occurredAtMaxSkewSeconds?: number;
  /** How often the counts' pass runs (counts/rollup.ts; default 5 s); tests make it short. */
  countsIntervalMs?: number;
}

/** Event data in one statement's parameters: large enough to never be the limit for ordinary events. */
const WRITE_BATCH_MAX_BYTES = 8 * 1024 * 1024;

export interface RegistryServer {
  grpc: GrpcServer;
  /** Drives SERVING/NOT_SERVING from the database; start it once the server listens. */
  health: DatabaseHealth;
  /** Deletes expired Idempotency-Keys in the background; start it once the server listens. */
  purger: KeyPurger;
  /** Watch streams; close at shutdown so open watches end and their clients move to another replica. */
  watching: Watching;
  /** EVENT_RETENTION and WATCH_RETENTION in the background; start it once the server listens. */
  retention: Retention;
  /** Webhook management and this replica's delivery (start its runner once the server listens; close at shutdown). */
  webhooks: WebhookParts;
  /** Keeps the counts and last_seen_at from the commit log; start it once the server listens. */
  rollup: Rollup;
}

/** Wires the registry: RegistryService and TokenService handlers, reflection and database-driven health on a gRPC server that does not listen yet. */
export function createServer(deps: ServerDeps): RegistryServer {
  const { logger, pool, metrics } = deps;
  // Replies carry each event back: receive less than may be sent, so an accepted call can always be answered.
  const grpc = createGrpcServer({
    logger,
    metricsRegistry: deps.metricsRegistry,
    maxMessageBytes: REGISTRY_MAX_REQUEST_BYTES,
    maxSendMessageBytes: REGISTRY_MAX_MESSAGE_BYTES,
    maxStreamStallMs: deps.watchMaxStallMs ?? 30_000,
    processHeldBytes: deps.watchHeldBytes,
  });
  const watching = createWatching({ pool, logger, metrics, keepAliveMs: deps.watchKeepAliveMs ?? 10_000, fallbackPollMs: deps.watchFallbackPollMs });
  const locks = createEntityLocks({ locker: deps.locker, waitMs: deps.lockWaitMs, metrics, logger });
  // One cache of seen entities: the write path skips their locks, the policy check their lookups.
  const known = createKnownEntities();
  const policies = createTokenPolicies({ pool, logger });
  const write = createWriteEvents({ pool, locks, known, metrics, onCommit: watching.committed });
  const groupCommit = createEventRecorder(write, {
    maxConcurrentWrites: deps.writeConcurrency,
    maxBatchEvents: LIMITS.batchMaxEvents,
    maxBatchBytes: WRITE_BATCH_MAX_BYTES,
    maxQueuedEvents: deps.writeQueueMaxEvents,
    timing: writeTiming(metrics),
  });
  if (deps.metricsRegistry) registerWriteQueueMetrics(deps.metricsRegistry, groupCommit, deps.writeQueueMaxEvents);
  // A token's may_create is applied before keys are claimed or anything is written.
  const policyCheck = createPolicyCheck({ pool, policies, known });
  const recorder = createPolicyRecorder(createIdempotentRecorder(groupCommit, { pool, metrics }), policyCheck);
  const watchEncoding = createWatchEncoding();
  const watchMethod = { ...registry.RegistryServiceService.watch, responseSerialize: watchEncoding.serialize, responseBytes: watchEncoding.sizeOf };
  const definition = { ...registry.RegistryServiceService, watch: watchMethod };
  grpc.addService<registry.RegistryServiceServer>(
    definition,
    createRegistryHandlers({
      watchEncoding,
      recorder,
      policyCheck,
      reader: createReader(pool),
      lister: createLister(pool, { pageMaxBytes: deps.listPageMaxBytes }),
      countEvents: createCounter(pool),
      watch: capWatches(watching.watch, deps.maxWatches),
      occurredAt: createOccurredAtRule(deps.occurredAtMaxSkewSeconds ?? 300),
      findRequestKeys: (tokenId, keys) => findRequestKeys(pool, tokenId, keys),
      logger,
    }),
  );
  const credential = createInternalCredentialCheck(deps.internalToken);
  // The settings module manages tokens and the gateways sync them on the registry's own port, with the internal credential.
  grpc.addService<registry.TokenServiceServer>(
    registry.TokenServiceService,
    requireCredential(createTokenHandlers({ tokens: createTokens(pool), settings: createAuthSettings(pool) }), credential),
  );
  const webhooks = createWebhookParts({
    pool,
    logger,
    horizon: watching.horizon,
    listen: watching.listen,
    config: deps.webhooks,
    metricsRegistry: deps.metricsRegistry ?? new PromRegistry(),
    resolver: deps.webhookResolver,
    pollMs: deps.webhookPollMs,
  });
  grpc.addService<registry.WebhookServiceServer>(registry.WebhookServiceService, requireCredential(createWebhookHandlers(webhooks), credential));
  addReflection(grpc.server, [REGISTRY_PROTO, TOKENS_PROTO, WEBHOOKS_PROTO]);
  const health = createDatabaseHealth({
    pool: deps.healthPool ?? pool,
    logger,
    intervalMs: deps.healthIntervalMs,
    onChange: (serving) => {
      metrics.databaseUp.set(serving ? 1 : 0);
      grpc.setServing(serving);
    },
    // A restarted database: the pool's connections to its previous run are cut, not handed out.
    onServer: (started) => deps.serverRuns.observed(started),
  });
  return { grpc, health, watching, webhooks, ...createJobs(deps, watching.horizon) };
}

/** The background jobs every replica runs: the idempotency key purge, retention and the counts' pass. */
function createJobs(deps: ServerDeps, horizon: CommitHorizon) {
  const { pool, logger, metrics } = deps;
  const purger = createKeyPurger({ pool, logger, metrics, ttlSeconds: deps.idempotencyKeyTtlSeconds });
  const retention = createRetention({
    pool, logger, metrics, horizon, countsKept: deps.countsIntervalMs !== 0,
    eventRetentionSeconds: deps.eventRetentionSeconds,
    watchRetentionSeconds: deps.watchRetentionSeconds ?? 86_400,
  });
  const rollup = createRollup({ pool, logger, metrics, horizon, intervalMs: deps.countsIntervalMs });
  return { purger, retention, rollup };
}
