/** Shared set-up for the registry tests: a real gRPC server on 127.0.0.1:0 with the generated client. */
import { callUnary, createGrpcClient } from '@dynamic-events/proto/runtime';
import { registry } from '@dynamic-events/proto';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, TEST_INTERNAL_TOKEN } from '../../test/support/servers.js';
export { TEST_INTERNAL_TOKEN, testPool } from '../../test/support/servers.js';
import pg from 'pg';
import type { WebhookConfig } from '../src/config.js';
import { TEST_WEBHOOK_CONFIG } from './webhook-config.js';
import type { Resolver } from '../src/webhooks/address-guard.js';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { runMigrations } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { createServerRuns } from '../src/db/server-runs.js';
import type { Locker } from '../src/locks/locker.js';
import { createMemoryLocker } from '../src/locks/memory-locker.js';
import { createMetrics, type Metrics } from '../src/metrics.js';
import { createServer, type RegistryServer } from '../src/server.js';
import { REGISTRY_ENV } from '../src/config.js';

export const silent = pino({ level: 'silent' });

export interface TestRegistry {
  address: string;
  client: registry.RegistryServiceClient;
  server: RegistryServer;
  pool: pg.Pool;
  metrics: Metrics;
  promRegistry: Registry;
  /** The RPCs as a caller sees them: failures reject with an AppError. */
  api: RegistryApi;
  close(): Promise<void>;
}

export interface StartOptions {
  databaseUrl: string;
  locker?: Locker;
  lockWaitMs?: number;
  poolSize?: number;
  migrate?: boolean;
  /** WRITE_CONCURRENCY (default 8, as in production). */
  writeConcurrency?: number;
  /** WRITE_QUEUE_MAX_EVENTS (default 50,000). */
  writeQueueMaxEvents?: number;
  /** IDEMPOTENCY_KEY_TTL_SECONDS (default 86,400). */
  idempotencyKeyTtlSeconds?: number;
  /** Watch keep-alive interval (default 10 s). */
  watchKeepAliveMs?: number;
  /** Watch stall limit (default 30 s). */
  watchMaxStallMs?: number;
  /** EVENT_RETENTION in seconds (default: keep everything). */
  eventRetentionSeconds?: number;
  /** WATCH_RETENTION in seconds (default 7 days). */
  watchRetentionSeconds?: number;
  /** Estimated bytes a ListEvents page holds at most (default LIST_PAGE_MAX_BYTES). */
  listPageMaxBytes?: number;
  /** Bytes Watch streams may hold for their clients together (default 64 MiB). */
  watchHeldBytes?: number;
  /** Webhook settings over TEST_WEBHOOK_CONFIG (a fresh key, loopback allowed, a short schedule). */
  webhooks?: Partial<WebhookConfig>;
  /** Stands in for DNS in the webhook sender. */
  webhookResolver?: Resolver;
  /** MAX_WATCHES (default: config.ts's default). */
  maxWatches?: number;
}

/** Starts the registry as main.ts wires it (minus env and signals), listening on an ephemeral port. */
export async function startRegistry(options: StartOptions): Promise<TestRegistry> {
  const serverRuns = createServerRuns(silent);
  const pool = createPool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, logger: silent, connectionTimeoutMs: 2000, connections: serverRuns });
  if (options.migrate !== false) await runMigrations(pool, silent);
  const locker = options.locker ?? createMemoryLocker({ ttlMs: 10_000 });
  const promRegistry = new Registry();
  const metrics = createMetrics(promRegistry);
  const server = createServer({
    logger: silent,
    pool,
    serverRuns,
    locker,
    metrics,
    metricsRegistry: promRegistry,
    lockWaitMs: options.lockWaitMs ?? 3000,
    internalToken: TEST_INTERNAL_TOKEN,
    writeConcurrency: options.writeConcurrency ?? 8,
    writeQueueMaxEvents: options.writeQueueMaxEvents ?? 50_000,
    idempotencyKeyTtlSeconds: options.idempotencyKeyTtlSeconds ?? 86_400,
    watchKeepAliveMs: options.watchKeepAliveMs,
    watchMaxStallMs: options.watchMaxStallMs,
    eventRetentionSeconds: options.eventRetentionSeconds,
    watchRetentionSeconds: options.watchRetentionSeconds,
    listPageMaxBytes: options.listPageMaxBytes,
    watchHeldBytes: options.watchHeldBytes,
    webhooks: { ...TEST_WEBHOOK_CONFIG, ...options.webhooks },
    webhookResolver: options.webhookResolver,
    webhookPollMs: 200,
    maxWatches: options.maxWatches ?? (REGISTRY_ENV.vars.MAX_WATCHES.schema.default as number),
  });
  const port = await server.grpc.listen('127.0.0.1:0');
  await server.health.start();
  // Delivery runs only where a test asks for webhooks: the other tests' pools stay theirs alone.
  if (options.webhooks !== undefined) server.webhooks.runner?.start();
  const address = `127.0.0.1:${port}`;
  const client = createGrpcClient(registry.RegistryServiceClient, address);
  return {
    address,
    client,
    server,
    pool,
    metrics,
    promRegistry,
    api: registryApi(client),
    async close() {
      client.close();
      server.health.stop();
      await server.webhooks.close();
      await server.watching.close();
      await server.grpc.shutdown(2000);
      await locker.close();
      await pool.end();
    },
  };
}

/** A valid event; `overrides` replace whole sub-objects or fields. */
export function sampleEvent(
  overrides: { source?: Partial<registry.Source>; eventType?: Partial<registry.EventTypeSpec> } & Partial<Omit<registry.NewEvent, 'source' | 'eventType'>> = {},
): registry.NewEvent {
  const { source, eventType, ...rest } = overrides;
  return {
    source: {
      deviceName: 'camera-01',
      objectId: 'channel-1',
      objectDomain: 'acme.camera.lpr',
      objectName: 'Gate camera',
      objectType: 'video_channel',
      ...source,
    },
    eventType: { eventType: 'plate_detected', displayName: 'Plate detected', displayDescription: 'A licence plate was read', ...eventType },
    additionalProperties: [{ key: 'plate', value: 'AB-123-CD' }],
    images: ['https://example.com/a.jpg'],
    videoClips: [],
    idempotencyKey: '',
    requestHash: '',
    tokenId: '',
    occurredAt: undefined,
    ...rest,
  };
}

/** A per-test unique suffix so tests sharing a database never share entities. */
export function unique(label: string): string {
  return `${label}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Counts rows in a table matching a where clause (test-only SQL). */
export async function countRows(pool: pg.Pool, table: string, where: string, values: unknown[]): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, values);
  return Number(rows[0]?.n ?? 0);
}

/** Reads one labelled counter value from the metrics. */
export async function counterValue(metrics: Metrics, outcome: string): Promise<number> {
  const data = await metrics.lockOutcomes.get();
  return data.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

/** Promise-returning wrappers over the generated client, with a deadline. */
export function registryApi(client: registry.RegistryServiceClient) {
  const settings = { deadlineMs: 15_000 };
  return {
    recordEvent: (event: registry.NewEvent | undefined) => callUnary(client.recordEvent.bind(client), { event }, settings),
    checkEvent: (event: registry.NewEvent | undefined) => callUnary(client.checkEvent.bind(client), { event }, settings),
    recordEvents: async (events: registry.NewEvent[]) => {
      const { results } = await callUnary(client.recordEvents.bind(client), { events, requestIds: [] }, settings);
      // The recorded events and outcomes in request order (undefined where an event was refused).
      return { results, events: results.map((r) => r.recorded?.event), outcomes: results.map((r) => r.recorded?.outcome) };
    },
    getEvent: (id: string) => callUnary(client.getEvent.bind(client), { id }, settings),
    getDevice: (deviceName: string) => callUnary(client.getDevice.bind(client), { deviceName }, settings),
    getObject: (id: string) => callUnary(client.getObject.bind(client), { id }, settings),
    getEventType: (domain: string, eventType: string) => callUnary(client.getEventType.bind(client), { domain, eventType }, settings),
    listEvents: (request: Partial<registry.ListEventsRequest>) =>
      callUnary(client.listEvents.bind(client), { filter: undefined, pageSize: 0, pageToken: '', order: 0, orderBy: 0, ...request }, settings),
    listDevices: (request: Partial<registry.ListDevicesRequest>) =>
      callUnary(client.listDevices.bind(client), { pageSize: 0, pageToken: '', createdByTokenId: '', q: '', ...request }, settings),
    listObjects: (request: Partial<registry.ListObjectsRequest>) =>
      callUnary(client.listObjects.bind(client), { deviceName: '', domain: '', pageSize: 0, pageToken: '', domainPatterns: undefined, q: '', ...request }, settings),
    listEventTypes: (request: Partial<registry.ListEventTypesRequest>) =>
      callUnary(client.listEventTypes.bind(client), { domain: '', pageSize: 0, pageToken: '', domainPatterns: undefined, q: '', ...request }, settings),
  };
}
export type RegistryApi = ReturnType<typeof registryApi>;

/**
 * Fires `count` concurrent first sightings of one new device/object/event type, spread over the
 * given registries (replicas sharing one database), and checks what callers and the database see:
 * every call succeeds, exactly one call reports each entity as created, one row each, `count` events.
 */
export async function expectSingleCreation(replicas: RegistryApi[], pool: pg.Pool, count = 100): Promise<void> {
  const device = unique('race-device');
  const domain = unique('race.domain');
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      replicas[i % replicas.length]!.recordEvent(
        sampleEvent({ source: { deviceName: device, objectDomain: domain, objectId: 'obj' }, additionalProperties: [{ key: 'n', value: String(i) }] }),
      ),
    ),
  );
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length > 0) throw new Error(`${failed.length} calls failed, first: ${String((failed[0] as PromiseRejectedResult).reason)}`);
  const outcomes = results.map((r) => (r as PromiseFulfilledResult<registry.RecordEventResponse>).value.outcome!);
  const created = (flag: keyof registry.Outcome) => outcomes.filter((o) => o[flag]).length;
  if (created('deviceCreated') !== 1 || created('objectCreated') !== 1 || created('eventTypeCreated') !== 1) {
    throw new Error(`created outcomes: device ${created('deviceCreated')}, object ${created('objectCreated')}, type ${created('eventTypeCreated')}`);
  }
  const rows = {
    devices: await countRows(pool, 'devices', 'device_name = $1', [device]),
    objects: await countRows(pool, 'objects', 'id = $1', [`${domain}.obj`]),
    eventTypes: await countRows(pool, 'event_types', 'domain = $1', [domain]),
    events: await countRows(pool, 'events', 'device_name = $1', [device]),
  };
  const expected = { devices: 1, objects: 1, eventTypes: 1, events: count };
  if (JSON.stringify(rows) !== JSON.stringify(expected)) throw new Error(`rows ${JSON.stringify(rows)}, expected ${JSON.stringify(expected)}`);
}

/**
 * For the enclosing describe: a fresh database and a registry on it, started in beforeAll and
 * closed (database dropped) in afterAll. `ready` receives the registry and the database URL.
 */
export function useFreshRegistry(ready: (started: TestRegistry, databaseUrl: string) => void, options: Omit<StartOptions, 'databaseUrl'> = {}): void {
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let started: TestRegistry | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    started = await startRegistry({ ...options, databaseUrl: db.url });
    ready(started, db.url);
  });
  afterAll(async () => {
    await started?.close();
    await db?.drop();
  });
}
