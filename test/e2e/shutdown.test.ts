/**
 * SIGTERM under load, per service, each run as a container runs it (`node <svc>/dist/main.js`):
 * readiness goes false at once while calls are still served for DRAIN_DELAY_MS, every call that was
 * accepted completes OK (nothing fails mid-way, every OK is committed), keep-alive connections are
 * closed rather than waited out, the process exits 0 well before SHUTDOWN_TIMEOUT_MS, and a
 * second signal forces exit 1. Callers arriving after the listener closed are refused (connection
 * refused: in a cluster they go to another replica), never answered with an error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import {
  callUnary,
  createGrpcClient,
  createHealthChecker,
  LIVENESS_SERVICE,
  media,
  MEDIA_SERVICE_NAME as MEDIA,
  registry,
  REGISTRY_SERVICE_NAME as REGISTRY,
  statusName,
} from '@dynamic-events/proto';
import { samples } from '../support/images.js';
import { createTestDatabase, freePort, postgresAvailable, tempDir } from '../support/servers.js';
import { closedLoop, killAllServices, spawnService, waitFor, type CallResult, type ServiceProcess } from '../support/service-process.js';
import { exampleEvent } from '../support/example.js';

const DRAIN_MS = 1500;
/** Far above what a clean drain takes: exiting well before it proves nothing was waited out. */
const SHUTDOWN_TIMEOUT_MS = 20_000;

let db: { url: string; drop: () => Promise<void> };
const dir = tempDir('e2e-shutdown');

beforeAll(async () => {
  if (!(await postgresAvailable())) throw new Error('PostgreSQL is required for the shutdown tests');
  db = await createTestDatabase();
});
afterAll(async () => {
  killAllServices();
  await db?.drop();
  dir.remove();
});

/** The gRPC status name a failed call carried (the client wraps unmarked statuses as INTERNAL with the cause). */
function grpcOutcome(err: unknown): string {
  const cause = (err as { cause?: { code?: number } }).cause;
  return typeof cause?.code === 'number' ? statusName(cause.code) : `threw ${String(err)}`;
}

interface StartedGrpcService {
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

const startRegistry = (drainMs = DRAIN_MS) => startGrpcService('registry-service', REGISTRY, { DATABASE_URL: db.url }, drainMs);
const startMedia = (drainMs = DRAIN_MS) => startGrpcService('media-service', MEDIA, { DATA_DIR: dir.path }, drainMs);

/**
 * Runs load, sends SIGTERM after `warmupMs`, checks readiness during the drain, and returns the
 * results split at the moment the drain delay ended (calls started before it must all be OK).
 */
async function sigtermUnderLoad(
  service: ServiceProcess,
  load: ReturnType<typeof closedLoop>,
  duringDrain: () => Promise<void>,
): Promise<{ beforeClose: CallResult[]; afterClose: CallResult[]; exit: { code: number | null }; exitMs: number }> {
  await new Promise((r) => setTimeout(r, 500));
  const signalledAt = performance.now();
  service.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  await duringDrain();
  const exit = await service.exited;
  const exitMs = performance.now() - signalledAt;
  await load.stop();
  // A small margin: a call started right at the boundary may meet the closing listener.
  const closeAt = signalledAt + DRAIN_MS - 100;
  return {
    beforeClose: load.results.filter((r) => r.startedAt < closeAt),
    afterClose: load.results.filter((r) => r.startedAt >= closeAt),
    exit,
    exitMs,
  };
}

function expectCleanDrain(run: Awaited<ReturnType<typeof sigtermUnderLoad>>, refused: (outcome: string) => boolean, output: string): void {
  expect(run.exit.code, output).toBe(0);
  expect(run.exitMs).toBeGreaterThanOrEqual(DRAIN_MS);
  expect(run.exitMs).toBeLessThan(DRAIN_MS + 5000);
  expect(run.beforeClose.length).toBeGreaterThan(50);
  const failed = run.beforeClose.filter((r) => r.outcome !== 'OK');
  expect(failed, 'calls accepted before the listener closed').toEqual([]);
  // Later callers either still got in (OK) or were refused: never an error answer.
  expect(run.afterClose.filter((r) => r.outcome !== 'OK' && !refused(r.outcome))).toEqual([]);
}

async function expectSecondSignalForces(service: ServiceProcess): Promise<void> {
  service.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  const started = performance.now();
  service.kill('SIGTERM');
  const exit = await service.exited;
  expect(exit.code, service.output()).toBe(1);
  expect(performance.now() - started).toBeLessThan(2000);
  expect(service.output()).toContain('second signal: forcing exit');
}

/**
 * SIGTERM to a gRPC service under a closed loop of `call` (resolves on success, throws on failure):
 * during the drain its health says NOT_SERVING for `serviceName` but SERVING for liveness, and its
 * metrics still answer; then the drain must be clean.
 */
async function grpcDrain(started: StartedGrpcService, serviceName: string, call: () => Promise<unknown>) {
  const { service, addr, metrics } = started;
  const load = closedLoop(
    () => call().then(() => 'OK', grpcOutcome),
    16,
    (outcome) => outcome === 'UNAVAILABLE',
  );
  const health = createHealthChecker(addr);
  const run = await sigtermUnderLoad(service, load, async () => {
    expect(await health.isServing(serviceName, 1000)).toBe(false);
    expect(await health.isServing(LIVENESS_SERVICE, 1000)).toBe(true);
    expect((await fetch(metrics)).status).toBe(200);
  });
  health.close();
  expectCleanDrain(run, (o) => o === 'UNAVAILABLE', service.output());
}

describe('registry-service', () => {
  it('drains on SIGTERM under load: NOT_SERVING first, every accepted call committed, exit 0', async () => {
    const registryService = await startRegistry();
    const client = createGrpcClient(registry.RegistryServiceClient, registryService.addr);
    let n = 0;
    const okIds: string[] = [];
    await grpcDrain(registryService, REGISTRY, async () => {
      const i = n++;
      const event = {
        source: { deviceName: 'drain-cam', objectId: `o-${i % 40}`, objectDomain: 'acme.drain', objectName: 'o', objectType: 't' },
        eventType: { eventType: 'tick', displayName: 'Tick', displayDescription: 'A tick' },
        additionalProperties: [],
        images: [],
        videoClips: [],
        idempotencyKey: '',
        requestHash: '',
      };
      const res = await callUnary(client.recordEvent.bind(client), { event }, { deadlineMs: 10_000 });
      okIds.push(res.event!.id);
    });
    client.close();
    const pool = new pg.Pool({ connectionString: db.url });
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE id = ANY($1::uuid[])', [okIds]);
    const total = await pool.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE domain = 'acme.drain'");
    await pool.end();
    expect(Number(rows[0]!.n)).toBe(okIds.length);
    // Nothing was committed that its caller did not hear about.
    expect(Number(total.rows[0]!.n)).toBe(okIds.length);
  });

  it('exits 1 at once on a second signal', async () => {
    const { service } = await startRegistry(30_000);
    await expectSecondSignalForces(service);
  });
});

describe('media-service', () => {
  it('drains on SIGTERM under load: NOT_SERVING first, every accepted StoreImage answered OK, exit 0', async () => {
    const mediaService = await startMedia();
    const client = createGrpcClient(media.MediaServiceClient, mediaService.addr);
    await grpcDrain(mediaService, MEDIA, () => callUnary(client.storeImage.bind(client), { data: samples.png.bytes }, { deadlineMs: 10_000 }));
    client.close();
  });

  it('exits 1 at once on a second signal', async () => {
    const { service } = await startMedia(30_000);
    await expectSecondSignalForces(service);
  });
});

describe('ingest-gateway', () => {
  async function startGateway(drainMs = DRAIN_MS) {
    const [reg, med] = [await startRegistry(0), await startMedia(0)];
    const [port, metricsPort] = [await freePort(), await freePort()];
    const service = spawnService('ingest-gateway', {
      HOST: '127.0.0.1',
      PORT: String(port),
      REGISTRY_ADDR: reg.addr,
      MEDIA_ADDR: med.addr,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      DRAIN_DELAY_MS: String(drainMs),
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    const base = `http://127.0.0.1:${port}`;
    await waitFor('gateway ready', () => fetch(`${base}/readyz`).then((r) => r.ok), 30_000, service);
    const stopBackends = async () => {
      reg.service.kill('SIGTERM');
      med.service.kill('SIGTERM');
      await Promise.all([reg.service.exited, med.service.exited]);
    };
    return { service, base, metrics: `http://127.0.0.1:${metricsPort}/metrics`, stopBackends };
  }

  it('drains on SIGTERM under load: /readyz 503 first, every accepted request answered 200, exit 0', async () => {
    const { service, base, metrics, stopBackends } = await startGateway();
    const url = `${base}/api/platform/dh/dynamic-events`;
    const body = JSON.stringify(exampleEvent({ device: 'drain-gateway' }));
    const load = closedLoop(
      async () => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        return res.status === 200 ? 'OK' : `HTTP ${res.status}`;
      },
      16,
      (outcome) => outcome.includes('fetch failed'),
    );
    const run = await sigtermUnderLoad(service, load, async () => {
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ error: 'not ready: shutting down' });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(metrics)).status).toBe(200);
    });
    expectCleanDrain(run, (o) => o.includes('fetch failed'), service.output());
    await stopBackends();
  });

  it('exits 1 at once on a second signal', async () => {
    const { service, stopBackends } = await startGateway(30_000);
    await expectSecondSignalForces(service);
    await stopBackends();
  });
});
