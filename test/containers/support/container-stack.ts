/**
 * The whole product in containers, as the chart deploys it: the migration Job first, then
 * `registries` registry pods and `medias` media pods, and one gateway balancing over them, all from
 * the built images with the chart's environment, against this machine's PostgreSQL (a fresh
 * database) and Redis and an S3 server (s3rver) on loopback.
 */
import { waitUntilServing } from '@dynamic-events/proto/runtime';
import { startS3Server, type TestS3 } from '../../support/s3.js';
import { createTestDatabase, freePort, POSTGRES_URL, postgresAvailable, REDIS_URL, redisAvailable } from '../../support/servers.js';
import { waitFor } from '../../support/service-process.js';
import { chartContainers, withHostNetwork } from './chart-env.js';
import { builtImage, removeContainers, runContainer, type Container } from './docker.js';

export interface Replica { container: Container; addr: string; metrics: string }

export interface ContainerStack {
  databaseUrl: string;
  baseUrl: string;
  /** `${baseUrl}/api/platform/dh` */
  api: string;
  gateway: Replica;
  registries: Replica[];
  medias: Replica[];
  /** The chart's drain delay and shutdown timeout of every service, in ms. */
  drainMs: number;
  shutdownMs: number;
  /** The chart's terminationGracePeriodSeconds: what `docker stop --time` is given. */
  graceSeconds: number;
  /** Container logs of every service, for failure messages. */
  logs: () => Promise<string>;
  stop: () => Promise<void>;
}

export async function startContainerStack(options: { registries: number; medias: number }): Promise<ContainerStack> {
  if (!(await postgresAvailable()) || !(await redisAvailable())) throw new Error(`container tests need ${POSTGRES_URL} and ${REDIS_URL}`);
  const db = await createTestDatabase();
  let s3: TestS3 | undefined;
  try {
    s3 = await startS3Server();
    const gatewayPort = await freePort();
    const baseUrl = `http://127.0.0.1:${gatewayPort}`;
    const chart = chartContainers({ databaseUrl: db.url, redisUrl: REDIS_URL, s3, publicBaseUrl: baseUrl });

    // The chart's pre-install hook: migrations run once, to completion, before any registry starts.
    const job = await runContainer('migrations', builtImage('registry-service'), chart.migrations.env, chart.migrations.args);
    const jobExit = await job.exited();
    if (jobExit !== 0) throw new Error(`migration job exited ${jobExit}:\n${await job.logs()}`);

    const grpcReplica = async (role: string, service: 'registry-service' | 'media-service', env: Record<string, string>, portKey: 'REGISTRY_GRPC_PORT' | 'MEDIA_GRPC_PORT') => {
      const [port, metricsPort] = [await freePort(), await freePort()];
      const overrides = { GRPC_HOST: '127.0.0.1', [portKey]: String(port), METRICS_HOST: '127.0.0.1', METRICS_PORT: String(metricsPort) };
      const container = await runContainer(role, builtImage(service), withHostNetwork(env, overrides));
      return { container, addr: `127.0.0.1:${port}`, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
    };
    const registries: Replica[] = [];
    for (let i = 0; i < options.registries; i++) registries.push(await grpcReplica(`registry-${i}`, 'registry-service', chart.registry.env, 'REGISTRY_GRPC_PORT'));
    const medias: Replica[] = [];
    for (let i = 0; i < options.medias; i++) medias.push(await grpcReplica(`media-${i}`, 'media-service', chart.media.env, 'MEDIA_GRPC_PORT'));
    for (const replica of [...registries, ...medias]) await waitServing(replica);

    const gatewayMetricsPort = await freePort();
    const container = await runContainer('gateway', builtImage('ingest-gateway'), withHostNetwork(chart.gateway.env, {
      HOST: '127.0.0.1',
      PORT: String(gatewayPort),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(gatewayMetricsPort),
      REGISTRY_ADDR: `ipv4:${registries.map((r) => r.addr).join(',')}`,
      MEDIA_ADDR: `ipv4:${medias.map((r) => r.addr).join(',')}`,
    }));
    const gateway = { container, addr: `127.0.0.1:${gatewayPort}`, metrics: `http://127.0.0.1:${gatewayMetricsPort}/metrics` };
    const all = [gateway, ...registries, ...medias];
    const logs = async () => (await Promise.all(all.map(async (r) => `--- ${r.container.name}\n${await r.container.logs().catch(String)}`))).join('\n');
    await waitFor('gateway /readyz', () => fetch(`${baseUrl}/readyz`).then((r) => r.ok), 60_000).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await logs()}`);
    });
    const testS3 = s3;
    if (chart.gateway.graceSeconds === undefined) throw new Error('the chart rendered no terminationGracePeriodSeconds');
    return {
      databaseUrl: db.url,
      baseUrl,
      api: `${baseUrl}/api/${chart.gateway.env.PLATFORM_SEGMENT ?? 'platform'}/dh`,
      gateway,
      registries,
      medias,
      drainMs: Number(chart.gateway.env.DRAIN_DELAY_MS),
      shutdownMs: Number(chart.gateway.env.SHUTDOWN_TIMEOUT_MS),
      graceSeconds: chart.gateway.graceSeconds,
      logs,
      stop: async () => {
        await removeContainers();
        await testS3.stop();
        await db.drop();
      },
    };
  } catch (err) {
    await removeContainers();
    await s3?.stop();
    await db.drop();
    throw err;
  }
}

/** Readiness as the chart's probe asks it: gRPC health of the service "" is SERVING. */
async function waitServing(replica: Replica): Promise<void> {
  try {
    await waitUntilServing(replica.addr, '', { timeoutMs: 60_000 });
  } catch (err) {
    throw new Error(`${replica.container.name}: ${(err as Error).message}\n${await replica.container.logs()}`);
  }
}
