/**
 * SIGTERM under load, per service, each run as a container runs it (`node <svc>/dist/main.js`):
 * readiness goes false at once while calls are still served for DRAIN_DELAY_MS, every call that was
 * accepted completes OK (nothing fails mid-way, every OK is committed), keep-alive connections are
 * closed rather than waited out, the process exits 0 well before SHUTDOWN_TIMEOUT_MS, and a
 * second signal forces exit 1. Callers arriving after the listener closed are refused (connection
 * refused: in a cluster they go to another replica), never answered with an error.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import {
  createHealthChecker,
  LIVENESS_SERVICE,
} from '@dynamic-events/proto/runtime';
import {
  MEDIA_SERVICE_NAME as MEDIA,
  REGISTRY_SERVICE_NAME as REGISTRY,
  statusName,
} from '@dynamic-events/proto';
import { createTestDatabase, freePort, postgresAvailable, tempDir } from './servers.js';
import { closedLoop, killAllServices, spawnService, waitFor, type CallResult, type ServiceProcess } from './service-process.js';

/** Long enough for the checks made during the drain to land in it on a busy machine. */
export const DRAIN_MS = 5000;
/** Far above what a clean drain takes: exiting well before it proves nothing was waited out. */
export const SHUTDOWN_TIMEOUT_MS = 20_000;

/**
 * The database and media directory of one test file (removed after it, with every service it
 * spawned), and starters for registry and media on them.
 */
export function useShutdownBackends(label: string) {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  const dir = tempDir(label);
  beforeAll(async () => {
    if (!(await postgresAvailable())) throw new Error('PostgreSQL is required for the shutdown tests');
    db = await createTestDatabase();
  });
  afterAll(async () => {
    killAllServices();
    await db?.drop();
    dir.remove();
  });
  const databaseUrl = (): string => {
    if (!db) throw new Error('the shutdown database is created in beforeAll');
    return db.url;
  };
  return {
    db: {
      get url() {
        return databaseUrl();
      },
    },
    startRegistry: (drainMs = DRAIN_MS) => startGrpcService('registry-service', REGISTRY, { DATABASE_URL: databaseUrl() }, drainMs),
    startMedia: (drainMs = DRAIN_MS) => startGrpcService('media-service', MEDIA, { DATA_DIR: dir.path }, drainMs),
  };
}

/** The gRPC status name a failed call carried (the client wraps unmarked statuses as INTERNAL with the cause). */
function grpcOutcome(err: unknown): string {
  const cause = (err as { cause?: { code?: number; details?: string } }).cause;
  if (typeof cause?.code !== 'number') return `threw ${String(err)}`;
  // grpc-js's words for a call it could not send: no connection could be made.
  if (String(cause.details).startsWith('No connection established')) return NOT_SENT;
  return statusName(cause.code);
}

/** A gRPC call the client never sent (no connection to the server): it cannot have been accepted. */
const NOT_SENT = 'UNAVAILABLE (not sent: no connection)';

export interface StartedGrpcService {
  service: ServiceProcess;
  addr: string;
  metrics: string;
}

/** Starts registry or media alone on free loopback ports and waits until its health says SERVING. */
async function startGrpcService(
  workspace: 'registry-service' | 'media-service',
  healthName: string,
  env: Record<string, string>,
  drainMs: number,
): Promise<StartedGrpcService> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const service = spawnService(workspace, {
    ...env,
    GRPC_HOST: '127.0.0.1',
    [workspace === 'registry-service' ? 'REGISTRY_GRPC_PORT' : 'MEDIA_GRPC_PORT']: String(port),
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
    DRAIN_DELAY_MS: String(drainMs),
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  const addr = `127.0.0.1:${port}`;
  const health = createHealthChecker(addr);
  await waitFor(`${workspace} SERVING`, () => health.isServing(healthName, 500), 30_000, service);
  health.close();
  return { service, addr, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

/**
 * Runs load until 50 calls were answered, sends SIGTERM, checks readiness during the drain, and
 * returns the results split at the moment the drain delay ended (calls started before it must all be OK).
 */
export async function sigtermUnderLoad(
  service: ServiceProcess,
  load: ReturnType<typeof closedLoop>,
  duringDrain: () => Promise<void>,
): Promise<{ beforeClose: CallResult[]; afterClose: CallResult[]; signalledAt: number; closeAt: number; exit: { code: number | null }; exitMs: number }> {
  // Counted, not timed: a busy machine answers fewer calls in a fixed warm-up.
  await waitFor('50 calls answered before SIGTERM', async () => load.results.length >= 50, 30_000, service);
  const signalledAt = performance.now();
  service.kill('SIGTERM');
  await duringDrain();
  const exit = await service.exited;
  const exitMs = performance.now() - signalledAt;
  await load.stop();
  // A small margin: a call started right at the boundary may meet the closing listener.
  const closeAt = signalledAt + DRAIN_MS - 100;
  return {
    beforeClose: load.results.filter((r) => r.startedAt < closeAt),
    afterClose: load.results.filter((r) => r.startedAt >= closeAt),
    signalledAt,
    closeAt,
    exit,
    exitMs,
  };
}

/**
 * `notSent`: outcomes of calls that never reached the server. On a busy machine a call started
 * before the listener closed may leave the test process only after it: one that failed that way
 * after the earliest moment the listener may close is a refusal, not a failure; one that failed so
 * before it means the listener closed early, and fails the check.
 */
export function expectCleanDrain(
  run: Awaited<ReturnType<typeof sigtermUnderLoad>>,
  refused: (outcome: string) => boolean,
  output: string,
  notSent: (outcome: string) => boolean = () => false,
): void {
  expect(run.exit.code, output).toBe(0);
  expect(run.exitMs).toBeGreaterThanOrEqual(DRAIN_MS);
  // Nothing was waited out: the shutdown timeout (which logs "shutdown timed out") never fired, and
  // keep-alive connections (65 s) would have outlived it.
  expect(run.exitMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
  expect(output).not.toMatch(/shutdown timed out/);
  expect(run.beforeClose.length).toBeGreaterThan(50);
  // Calls were still served during the drain, not only before the signal.
  expect(run.beforeClose.filter((r) => r.startedAt > run.signalledAt && r.outcome === 'OK').length).toBeGreaterThan(0);
  const failed = run.beforeClose.filter((r) => r.outcome !== 'OK' && !(notSent(r.outcome) && r.endedAt >= run.closeAt));
  expect(failed, 'calls accepted before the listener closed').toEqual([]);
  // Later callers either still got in (OK) or were refused: never an error answer.
  expect(run.afterClose.filter((r) => r.outcome !== 'OK' && !refused(r.outcome))).toEqual([]);
}

export async function expectSecondSignalForces(service: ServiceProcess): Promise<void> {
  service.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  service.kill('SIGTERM');
  const exit = await service.exited;
  expect(exit.code, service.output()).toBe(1);
  expect(service.output()).toContain('second signal: forcing exit');
  // At once: the shutdown the first signal began (its drain alone lasts DRAIN_MS) never completed.
  expect(service.output()).not.toContain('shutdown complete');
}

/**
 * SIGTERM to a gRPC service under a closed loop of `call` (resolves on success, throws on failure):
 * during the drain its health says NOT_SERVING for `serviceName` but SERVING for liveness, and its
 * metrics still answer; then the drain must be clean.
 */
export async function grpcDrain(started: StartedGrpcService, serviceName: string, call: () => Promise<unknown>) {
  const { service, addr, metrics } = started;
  const load = closedLoop(
    () => call().then(() => 'OK', grpcOutcome),
    16,
    (outcome) => outcome === 'UNAVAILABLE' || outcome === NOT_SENT,
  );
  const health = createHealthChecker(addr);
  const run = await sigtermUnderLoad(service, load, async () => {
    // Asked until the service noticed the signal (a busy machine delays it), within the drain.
    await expect.poll(() => health.isServing(serviceName, 1000), { timeout: DRAIN_MS }).toBe(false);
    expect(await health.isServing(LIVENESS_SERVICE, 2000)).toBe(true);
    expect((await fetch(metrics)).status).toBe(200);
  });
  health.close();
  expectCleanDrain(run, (o) => o === 'UNAVAILABLE' || o === NOT_SENT, service.output(), (o) => o === NOT_SENT);
}
