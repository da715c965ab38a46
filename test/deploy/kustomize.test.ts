// Renders deploy/base and deploy/overlays/dev with `kubectl kustomize` (offline) and checks what a
// cluster would receive: API schemas, the contract's pod rules, Services and NetworkPolicies that
// reach real pods and ports, env var names the services read, and — for the dev overlay — that
// each service's own loadConfig accepts its rendered environment and that the URLs point at the
// overlay's Postgres, Redis and MinIO.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { IContainer, IServicePort } from 'kubernetes-models/v1';
import { GATEWAY_ENV, loadConfig as gatewayConfig } from '../../ingest-gateway/src/config.js';
import { loadConfig as mediaConfig, MEDIA_ENV } from '../../media-service/src/config.js';
import { loadConfig as registryConfig, REGISTRY_ENV } from '../../registry-service/src/config.js';
import { checkContainers, parseManifests, podSpecs, validateObjects, type K8sObject, type PodTemplate } from '../support/k8s.js';
import { requireServer } from '../support/servers.js';

const root = new URL('../..', import.meta.url).pathname;
const run = promisify(execFile);
const kubectl = await requireServer('kubectl (for kubectl kustomize)', () => run('kubectl', ['version', '--client'], { timeout: 10_000 }));

/** The contract's variables per service (the common ones first). */
const COMMON = ['LOG_LEVEL', 'SHUTDOWN_TIMEOUT_MS', 'DRAIN_DELAY_MS', 'METRICS_PORT', 'METRICS_HOST'];
const SERVICES = {
  'ingest-gateway': {
    env: [...COMMON, 'PORT', 'HOST', 'PLATFORM_SEGMENT', 'PUBLIC_BASE_URL', 'DYNAMIC_EVENTS_TOKEN', 'REGISTRY_ADDR', 'MEDIA_ADDR',
      'MAX_BODY_BYTES', 'MAX_IMAGE_BYTES', 'GRPC_DEADLINE_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    ports: { http: 8080, metrics: 9464 },
    loadConfig: gatewayConfig as (env: Record<string, string>) => object,
    schema: GATEWAY_ENV,
  },
  'registry-service': {
    env: [...COMMON, 'GRPC_HOST', 'REGISTRY_GRPC_PORT', 'DATABASE_URL', 'DATABASE_POOL_SIZE', 'REDIS_URL', 'LOCK_TTL_MS', 'LOCK_WAIT_MS', 'MIGRATIONS', 'IDEMPOTENCY_KEY_TTL_SECONDS'],
    ports: { grpc: 50051, metrics: 9465 },
    loadConfig: registryConfig as (env: Record<string, string>) => object,
    schema: REGISTRY_ENV,
  },
  'media-service': {
    env: [...COMMON, 'GRPC_HOST', 'MEDIA_GRPC_PORT', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION',
      'MAX_IMAGE_BYTES', 'MAX_IMAGE_PIXELS', 'DATA_DIR'],
    ports: { grpc: 50052, metrics: 9466 },
    loadConfig: mediaConfig as (env: Record<string, string>) => object,
    schema: MEDIA_ENV,
  },
} as const;
type Service = keyof typeof SERVICES;

/** The variables the service's config.ts reads (its env schema). */
const schemaNames = (service: Service) => new Set(Object.keys(SERVICES[service].schema.vars));

const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const podOf = (objects: K8sObject[], component: string) =>
  podSpecs(objects).find((p) => p.labels['app.kubernetes.io/component'] === component) as PodTemplate;
const containerPort = (pod: PodTemplate, port: string | number) =>
  pod.spec.containers.flatMap((c) => c.ports ?? []).find((p) => (typeof port === 'number' ? p.containerPort === port : p.name === port));
const decode = (value: string) => Buffer.from(value, 'base64').toString('utf8');

/** The Secret the base expects (deploy/base/kustomization.yaml), with example values where the render has none. */
const EXPECTED_SECRET: Record<string, string> = {
  DATABASE_URL: 'postgres://user:pass@db:5432/events',
  REDIS_URL: 'redis://redis:6379',
  S3_ACCESS_KEY: 'access',
  S3_SECRET_KEY: 'secret-key',
  DYNAMIC_EVENTS_TOKEN: 'token',
};

/** A container's environment with ConfigMap and Secret references replaced by their rendered (or expected) values. */
function envOf(objects: K8sObject[], container: IContainer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { name, value, valueFrom } of container.env ?? []) {
    const cm = valueFrom?.configMapKeyRef;
    const secret = valueFrom?.secretKeyRef;
    const rendered = secret ? (find(objects, 'Secret', secret.name ?? '')?.data as Record<string, string> | undefined) : undefined;
    const resolved = cm
      ? (find(objects, 'ConfigMap', cm.name ?? '')?.data as Record<string, string> | undefined)?.[cm.key]
      : secret
        ? rendered ? decode(rendered[secret.key] ?? '') : EXPECTED_SECRET[secret.key]
        : value;
    if (resolved !== undefined) env[name] = resolved;
  }
  return env;
}

/** The Service a URL or gRPC address names, and the pod behind that Service port. */
function serviceBehind(objects: K8sObject[], address: string): { service?: K8sObject; pod?: PodTemplate; target?: IServicePort } {
  const url = new URL(address.replace(/^dns:\/\/\//, 'grpc://'));
  const service = find(objects, 'Service', url.hostname);
  const spec = service?.spec as { selector?: Record<string, string>; ports?: IServicePort[] } | undefined;
  const target = spec?.ports?.find((p) => p.port === Number(url.port));
  const pod = podSpecs(objects).find((p) => selects(spec?.selector, p.labels));
  return { service, pod, target };
}

describe.skipIf(!kubectl).each(['deploy/base', 'deploy/overlays/dev'])('kubectl kustomize %s', (dir) => {
  let objects: K8sObject[] = [];
  beforeAll(async () => {
    objects = parseManifests((await run('kubectl', ['kustomize', dir], { cwd: root, maxBuffer: 16 * 1024 * 1024 })).stdout);
  });

  it('renders objects that pass the Kubernetes API schemas, with no unknown fields', () => {
    expect(objects.length).toBeGreaterThan(10);
    expect(validateObjects(objects)).toEqual([]);
  });

  it('gives every pod and container probes, resources and the restricted security context', () => {
    expect(checkContainers(objects)).toEqual([]);
    for (const { owner, spec } of podSpecs(objects)) expect(spec.enableServiceLinks, `${owner.metadata.name} service links`).toBe(false);
  });

  it('labels everything as part of dynamic-events, and every pod with its component', () => {
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) {
      expect(o.metadata.labels, `${o.kind}/${o.metadata.name}`).toMatchObject({ 'app.kubernetes.io/name': 'dynamic-events', 'app.kubernetes.io/part-of': 'dynamic-events' });
    }
    for (const { owner, labels } of podSpecs(objects)) {
      expect(['ingest-gateway', 'registry-service', 'media-service', 'migrations', 'postgres', 'redis', 'minio'], owner.metadata.name).toContain(labels['app.kubernetes.io/component']);
      expect(labels['app.kubernetes.io/instance']).toBe('dynamic-events');
    }
  });

  it('points every Service and NetworkPolicy at existing pods and at ports their containers declare', () => {
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      const spec = service.spec as { selector: Record<string, string>; ports: IServicePort[] };
      const pods = podSpecs(objects).filter((p) => selects(spec.selector, p.labels));
      expect(pods.map((p) => p.owner.kind), `Service ${service.metadata.name}`).toEqual(['Deployment']);
      for (const port of spec.ports) expect(containerPort(pods[0] as PodTemplate, port.targetPort ?? port.port), `${service.metadata.name} ${port.name}`).toBeDefined();
    }
    for (const policy of objects.filter((o) => o.kind === 'NetworkPolicy')) {
      type Rule = { from?: Array<{ podSelector?: { matchLabels?: Record<string, string> } }>; ports?: Array<{ port: string | number }> };
      const spec = policy.spec as { podSelector: { matchLabels: Record<string, string> }; ingress: Rule[] };
      const pod = podSpecs(objects).find((p) => selects(spec.podSelector.matchLabels, p.labels));
      expect(pod, `NetworkPolicy ${policy.metadata.name} selects no pod`).toBeDefined();
      for (const rule of spec.ingress) {
        for (const peer of rule.from ?? []) expect(podSpecs(objects).some((p) => selects(peer.podSelector?.matchLabels, p.labels))).toBe(true);
        for (const { port } of rule.ports ?? []) expect(containerPort(pod as PodTemplate, port), `${policy.metadata.name} port ${port}`).toBeDefined();
      }
    }
  });

  it.each(Object.keys(SERVICES) as Service[])('runs %s with the contract ports, probes, grace period and env var names', (service) => {
    const pod = podOf(objects, service);
    const container = pod.spec.containers.find((c) => c.name === service) as IContainer;
    expect(Object.fromEntries((container.ports ?? []).map((p) => [p.name, p.containerPort]))).toEqual(SERVICES[service].ports);
    expect(container.image).toMatch(new RegExp(`^dynamic-events/${service}:`));
    if (service === 'ingest-gateway') {
      expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
    } else {
      const grpcPort = SERVICES[service].ports.grpc;
      expect(container.readinessProbe?.grpc?.port).toBe(grpcPort);
      expect(container.readinessProbe?.grpc?.service ?? '').toBe('');
      expect(container.livenessProbe?.grpc).toEqual({ port: grpcPort, service: 'liveness' });
    }
    const names = (container.env ?? []).map((e) => e.name);
    const known = schemaNames(service);
    expect(names.filter((n) => !(SERVICES[service].env as readonly string[]).includes(n)), 'not in the contract').toEqual([]);
    expect(names.filter((n) => !known.has(n)), 'not read by config.ts').toEqual([]);
    for (const { valueFrom } of container.env ?? []) {
      const ref = valueFrom?.configMapKeyRef;
      if (ref) expect(find(objects, 'ConfigMap', ref.name ?? '')?.data, `ConfigMap key ${ref.key}`).toHaveProperty([ref.key]);
      const secret = valueFrom?.secretKeyRef;
      if (secret) expect([secret.name?.replace(/-[a-z0-9]{10}$/, ''), Object.keys(EXPECTED_SECRET)]).toEqual(['dynamic-events', expect.arrayContaining([secret.key])]);
    }
    const env = envOf(objects, container);
    const drainAndShutdown = (Number(env.DRAIN_DELAY_MS ?? 0) + Number(env.SHUTDOWN_TIMEOUT_MS ?? 8000)) / 1000;
    expect(env.DRAIN_DELAY_MS).toBe('5000');
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(drainAndShutdown + 5);
    // The service's own validation accepts the rendered values and listens where the Pod says.
    const config = SERVICES[service].loadConfig(env) as { port?: number; grpcPort?: number; metricsPort?: number };
    const ports: Record<string, number> = SERVICES[service].ports;
    expect(config.port ?? config.grpcPort).toBe(ports.http ?? ports.grpc);
    if (config.metricsPort !== undefined) expect(config.metricsPort).toBe(ports.metrics);
  });

  it('points the gateway at the headless registry and media Services on their grpc ports', () => {
    const env = envOf(objects, podOf(objects, 'ingest-gateway').spec.containers[0] as IContainer);
    for (const [name, component] of [['REGISTRY_ADDR', 'registry-service'], ['MEDIA_ADDR', 'media-service']] as const) {
      expect(env[name]).toMatch(/^dns:\/\/\/[a-z0-9-]+:\d+$/);
      const { service, pod, target } = serviceBehind(objects, env[name] as string);
      expect((service?.spec as { clusterIP?: string } | undefined)?.clusterIP, `${name}: headless Service`).toBe('None');
      expect(pod?.labels['app.kubernetes.io/component']).toBe(component);
      expect(containerPort(pod as PodTemplate, target?.targetPort ?? -1)?.name).toBe('grpc');
    }
  });
});

describe.skipIf(!kubectl)('kubectl kustomize deploy/overlays/dev: a whole product on one cluster', () => {
  let objects: K8sObject[] = [];
  beforeAll(async () => {
    objects = parseManifests((await run('kubectl', ['kustomize', 'deploy/overlays/dev'], { cwd: root, maxBuffer: 16 * 1024 * 1024 })).stdout);
  });
  const envFor = (component: string) => envOf(objects, podOf(objects, component).spec.containers[0] as IContainer);

  it('runs the three services (one replica, :dev images) beside Postgres, Redis and MinIO in a restricted namespace', () => {
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['ingest-gateway', 'media-service', 'minio', 'postgres', 'redis', 'registry-service']);
    for (const d of deployments) expect((d.spec as { replicas: number }).replicas, d.metadata.name).toBe(1);
    for (const service of Object.keys(SERVICES)) expect(podOf(objects, service).spec.containers[0]?.image).toBe(`dynamic-events/${service}:dev`);
    expect(objects.every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'dynamic-events')).toBe(true);
    expect(find(objects, 'Namespace', 'dynamic-events')?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  it('generates every Secret key a pod refers to', () => {
    for (const { owner, spec } of podSpecs(objects)) {
      for (const ref of spec.containers.flatMap((c) => c.env ?? []).map((e) => e.valueFrom?.secretKeyRef).filter((r) => r !== undefined)) {
        expect(find(objects, 'Secret', ref.name ?? '')?.data, `${owner.metadata.name}: Secret ${ref.name} key ${ref.key}`).toHaveProperty([ref.key]);
      }
    }
  });

  it('gives each service an environment its own loadConfig accepts, with real backends configured', () => {
    const gateway = gatewayConfig(envFor('ingest-gateway'));
    const registry = registryConfig(envFor('registry-service'));
    const media = mediaConfig(envFor('media-service'));
    expect(gateway.dynamicEventsToken).toBeTruthy();
    expect(registry).toMatchObject({ migrations: 'auto', databaseUrl: expect.stringMatching(/^postgres:/), redisUrl: expect.stringMatching(/^redis:/) });
    expect(media.storage).toMatchObject({ kind: 's3', endPoint: 'minio', port: 9000, useSSL: false });
    expect(media.maxImageBytes).toBe(gateway.maxImageBytes);
  });

  it('points DATABASE_URL, REDIS_URL and S3_ENDPOINT at the overlay Postgres, Redis and MinIO, with their credentials', () => {
    const registry = envFor('registry-service');
    const media = envFor('media-service');
    const postgres = envFor('postgres');
    const minio = envFor('minio');
    for (const [address, component] of [[registry.DATABASE_URL, 'postgres'], [registry.REDIS_URL, 'redis'], [media.S3_ENDPOINT, 'minio']] as const) {
      const { pod, target } = serviceBehind(objects, address ?? '');
      expect(pod?.labels['app.kubernetes.io/component'], address).toBe(component);
      expect(containerPort(pod as PodTemplate, target?.targetPort ?? -1), `${address}: port`).toBeDefined();
    }
    const db = new URL(registry.DATABASE_URL ?? '');
    expect([db.username, decodeURIComponent(db.password), db.pathname]).toEqual([postgres.POSTGRES_USER, postgres.POSTGRES_PASSWORD, `/${postgres.POSTGRES_DB}`]);
    expect([minio.MINIO_ROOT_USER, minio.MINIO_ROOT_PASSWORD]).toEqual([media.S3_ACCESS_KEY, media.S3_SECRET_KEY]);
    expect((minio.MINIO_ROOT_PASSWORD ?? '').length).toBeGreaterThanOrEqual(8);
  });
});
