/**
 * Everything settled before the launcher starts a process: the ports (ports.ts), each service's
 * environment, and each service's verdict on it (service-configs.ts). A stack that cannot run
 * fails here, in well under a second, naming every variable to change.
 */
import { randomBytes } from 'node:crypto';
import { hostPort, LogSafeError, type Environment } from '@dynamic-events/proto/runtime';
import type { LauncherConfig } from './config.js';
import { planPorts } from './ports.js';
import { isRunningSince } from './postgres/postmaster.js';
import { checkServiceConfigs, type ServiceName } from './service-configs.js';
import { dataDirInUse } from './stack-file.js';

/** Stands in for the embedded Postgres' URL (known only once it runs) while the registry's settings are checked. */
const EMBEDDED_URL_SHAPE = 'postgres://postgres@127.0.0.1:5432/dynamic_events';

export interface StackPlan {
  /** Each service's environment; the registry's DATABASE_URL is added once an embedded Postgres runs. */
  envs: Record<ServiceName, NodeJS.ProcessEnv>;
  registryAddr: string;
  mediaAddr: string;
  /** REGISTRY_INTERNAL_TOKEN as set, else generated for this stack: registry and gateway share it. */
  internalToken: string;
  /** Each service's metrics port. */
  metricsPorts: Record<ServiceName, number>;
  /** Unset ports whose default was taken, and the port chosen instead (for a warning each). */
  moved: Array<{ name: string; from: number; to: number }>;
}

/**
 * `internalToken`: the stack's REGISTRY_INTERNAL_TOKEN when the variable is unset (start.ts makes one
 * per stack and keeps it across re-plans); omitted, a fresh one.
 */
/**
 * Allocations from 128 KiB up get pages of their own, returned to the system when freed. glibc
 * otherwise raises that threshold to the largest block freed so far (up to 32 MiB), so after the
 * 4 MiB buffers of a resume storm the next ones come from its heap, whose freed memory the process
 * keeps: the registry stayed about 250 MiB above its start after such a storm, and returned to its
 * start with this (test/bench/resume-storm.js).
 */
const SERVICE_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' } as const;

/**
 * V8's old generation of the registry's processes, as its image sets it (deploy/docker/Dockerfile).
 * Uncapped, V8 sizes it from the host's memory, not the container's, and defers full collections
 * until garbage fills far more than the chart's 256 MiB limit: the bench measured the delivery
 * process at 274 MiB RSS while sending, the registry at 283 MiB under batches, both 127–173 with
 * this, at about 19 µs more registry CPU per batch event (test/bench/README.md, "Design decisions").
 */
export const REGISTRY_HEAP_OPTION = '--max-old-space-size=192';

/** NODE_OPTIONS as set, with the registry's heap cap unless it names one of its own. */
function registryNodeOptions(set: string | undefined): string {
  if (set === undefined || set.trim() === '') return REGISTRY_HEAP_OPTION;
  return /--max[-_]old[-_]space[-_]size\b/.test(set) ? set : `${set} ${REGISTRY_HEAP_OPTION}`;
}

/** The networks `npm start`'s registry lets webhooks reach when WEBHOOK_ALLOWED_NETWORKS is unset: loopback. */
const LOCAL_WEBHOOK_NETWORKS = '127.0.0.0/8,::1/128';

/** ALLOWED_HOSTS as set, else the loopback names and the host of PUBLIC_BASE_URL (the gateway's check: allowed-hosts.ts). */
function allowedHosts(config: LauncherConfig): string {
  if (config.ALLOWED_HOSTS !== undefined) return config.ALLOWED_HOSTS;
  const hosts = ['localhost', '127.0.0.1', '::1'];
  const own = config.PUBLIC_BASE_URL === undefined ? undefined : new URL(config.PUBLIC_BASE_URL).hostname;
  if (own !== undefined && !hosts.includes(own)) hosts.push(own);
  return hosts.join(',');
}

export async function planStack(config: LauncherConfig, env: Environment, internalToken?: string, webhookKey?: string): Promise<StackPlan> {
  const { GRPC_HOST: grpcHost, METRICS_HOST: metricsHost } = config;
  const { ports, moved, problems } = await planPorts([
    { name: 'PORT', value: config.PORT, host: config.HOST },
    { name: 'REGISTRY_GRPC_PORT', value: config.REGISTRY_GRPC_PORT, fallback: 50051, host: grpcHost },
    { name: 'MEDIA_GRPC_PORT', value: config.MEDIA_GRPC_PORT, fallback: 50052, host: grpcHost },
    // Three processes on one host need three metrics ports; in Kubernetes each pod just sets METRICS_PORT.
    { name: 'GATEWAY_METRICS_PORT', value: config.GATEWAY_METRICS_PORT, fallback: 9464, host: metricsHost },
    { name: 'REGISTRY_METRICS_PORT', value: config.REGISTRY_METRICS_PORT, fallback: 9465, host: metricsHost },
    { name: 'MEDIA_METRICS_PORT', value: config.MEDIA_METRICS_PORT, fallback: 9466, host: metricsHost },
    { name: 'DELIVERY_METRICS_PORT', value: config.DELIVERY_METRICS_PORT, fallback: 9467, host: metricsHost },
  ]);
  const port = (name: string) => ports[name] ?? 0;
  const registryAddr = config.REGISTRY_ADDR ?? hostPort('127.0.0.1', port('REGISTRY_GRPC_PORT'));
  const mediaAddr = config.MEDIA_ADDR ?? hostPort('127.0.0.1', port('MEDIA_GRPC_PORT'));
  const credential = config.REGISTRY_INTERNAL_TOKEN ?? internalToken ?? randomBytes(32).toString('base64url');
  const shared = {
    // glibc's allocator, as the images set it (deploy/docker/Dockerfile): unless the environment says otherwise.
    ...SERVICE_MALLOC_ENV,
    ...env,
    REGISTRY_INTERNAL_TOKEN: credential,
    REGISTRY_GRPC_PORT: String(port('REGISTRY_GRPC_PORT')),
    MEDIA_GRPC_PORT: String(port('MEDIA_GRPC_PORT')),
    GRPC_HOST: grpcHost,
    REGISTRY_ADDR: registryAddr,
    MEDIA_ADDR: mediaAddr,
    SHUTDOWN_TIMEOUT_MS: String(config.SHUTDOWN_TIMEOUT_MS),
    METRICS_HOST: metricsHost,
  };
  const metricsPorts = { gateway: port('GATEWAY_METRICS_PORT'), registry: port('REGISTRY_METRICS_PORT'), media: port('MEDIA_METRICS_PORT'), delivery: port('DELIVERY_METRICS_PORT') };
  // The registry alone seals and opens webhook secrets: no other process is handed the key.
  const sealing = env.WEBHOOK_SECRET_KEY ?? webhookKey;
  // A stack on one machine delivers to receivers on that machine too (the chart trusts no network by default).
  const webhookNetworks = env.WEBHOOK_ALLOWED_NETWORKS ?? LOCAL_WEBHOOK_NETWORKS;
  const registry = {
    ...shared,
    ...(sealing === undefined ? {} : { WEBHOOK_SECRET_KEY: sealing }),
    WEBHOOK_ALLOWED_NETWORKS: webhookNetworks,
    NODE_OPTIONS: registryNodeOptions(env.NODE_OPTIONS),
  };
  const envs = {
    gateway: { ...shared, WEBHOOK_SECRET_KEY: undefined, METRICS_PORT: String(metricsPorts.gateway), ALLOWED_HOSTS: allowedHosts(config) },
    // Webhooks are sent by a replica of their own at a lower CPU priority (start.ts), never by the one ingest calls.
    registry: { ...registry, WEBHOOK_DELIVERY: 'off', METRICS_PORT: String(metricsPorts.registry) },
    media: { ...shared, WEBHOOK_SECRET_KEY: undefined, METRICS_PORT: String(metricsPorts.media) },
    // Nobody calls its gRPC port (any free one); it starts once the registry has migrated the database.
    // No counts pass at its lower priority: a starved holder of the rollup cursor would delay everyone's counts.
    delivery: { ...registry, WEBHOOK_DELIVERY: 'on', COUNTS_PASS: 'off', REGISTRY_GRPC_PORT: '0', MIGRATIONS: 'skip', METRICS_PORT: String(metricsPorts.delivery) },
  };
  const database = { DATABASE_URL: config.DATABASE_URL ?? EMBEDDED_URL_SHAPE };
  const refused = checkServiceConfigs({ ...envs, registry: { ...envs.registry, ...database }, delivery: { ...envs.delivery, ...database } });
  // Another running stack's DATA_DIR is said with the ports, before anything starts (the embedded
  // Postgres' own claim would only refuse it after waiting for that stack to go away).
  const dataDir = await dataDirInUse(config.DATA_DIR, isRunningSince);
  const all = [...refused, ...problems, ...(dataDir === undefined ? [] : [dataDir])];
  // Written from variable names and rules only, never a value: safe to log whole.
  if (all.length > 0) throw new LogSafeError(`the stack cannot start: ${all.join('; ')}`);
  return { envs, registryAddr, mediaAddr, internalToken: credential, metricsPorts, moved };
}
