// The dev setup for kind or minikube, rendered offline the way a cluster would receive it:
// `kubectl kustomize deploy/overlays/dev` (namespace, PostgreSQL, Redis, MinIO, their Secret) plus
// `helm template` of the chart with deploy/overlays/dev/helm-values.yaml in that namespace. Checked:
// API schemas, the contract's pod rules, Services and NetworkPolicies that reach real pods and
// ports, env var names the services read, each service's own loadConfig against its rendered
// environment, and URLs that point at the overlay's Postgres, Redis and MinIO with their
// credentials. The chart itself is checked in helm-*.test.ts.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { IContainer, IServicePort } from 'kubernetes-models/v1';
import { GATEWAY_ENV, loadConfig as gatewayConfig } from '../../ingest-gateway/src/config.js';
import { loadConfig as mediaConfig, MEDIA_ENV } from '../../media-service/src/config.js';
import { loadConfig as registryConfig, REGISTRY_ENV } from '../../registry-service/src/config.js';
import { renderChart } from '../support/helm.js';
import { checkContainers, parseManifests, podSpecs, validateObjects, type K8sObject, type PodTemplate } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const root = new URL('../..', import.meta.url).pathname;
const OVERLAY = join(root, 'deploy/overlays/dev');
const NAMESPACE = 'dynamic-events';
const RELEASE = 'dynamic-events';
const kubectl = kubeTool('kubectl');
const helmFound = kubeTool('helm') !== undefined;

/** The contract's variables per service (the common ones first), and the chart's Deployment of each. */
const COMMON = ['LOG_LEVEL', 'SHUTDOWN_TIMEOUT_MS', 'DRAIN_DELAY_MS', 'METRICS_PORT', 'METRICS_HOST'];
const SERVICES = {
  'ingest-gateway': {
    deployment: `${RELEASE}-gateway`,
    env: [...COMMON, 'PORT', 'HOST', 'PLATFORM_SEGMENT', 'PUBLIC_BASE_URL', 'DYNAMIC_EVENTS_TOKEN', 'ADMIN_TOKEN', 'REGISTRY_INTERNAL_TOKEN', 'TOKEN_SYNC_INTERVAL_MS', 'REDIS_URL', 'REGISTRY_ADDR', 'MEDIA_ADDR',
      'MAX_BODY_BYTES', 'MAX_IMAGE_BYTES', 'GRPC_DEADLINE_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 'MAX_STREAMS_PER_CLIENT', 'ALLOWED_HOSTS', 'BATCH_MAX_EVENTS', 'OCCURRED_AT_MAX_SKEW'],
    ports: { http: 8080, metrics: 9464 },
    loadConfig: gatewayConfig as (env: Record<string, string>) => object,
    schema: GATEWAY_ENV,
  },
  'registry-service': {
    deployment: `${RELEASE}-registry`,
    env: [...COMMON, 'GRPC_HOST', 'REGISTRY_GRPC_PORT', 'DATABASE_URL', 'DATABASE_POOL_SIZE', 'REDIS_URL', 'LOCK_TTL_MS', 'LOCK_WAIT_MS', 'MIGRATIONS', 'IDEMPOTENCY_KEY_TTL_SECONDS', 'EVENT_RETENTION', 'WATCH_RETENTION', 'DYNAMIC_EVENTS_TOKEN', 'REGISTRY_INTERNAL_TOKEN',
      'WEBHOOK_SECRET_KEY', 'WEBHOOK_TIMEOUT_MS', 'WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_DISABLE_AFTER', 'WEBHOOK_ALLOWED_NETWORKS', 'WEBHOOK_MAX_IN_FLIGHT', 'OCCURRED_AT_MAX_SKEW', 'WEBHOOK_DELIVERY'],
    ports: { grpc: 50051, metrics: 9465 },
    loadConfig: registryConfig as (env: Record<string, string>) => object,
    schema: REGISTRY_ENV,
  },
  'media-service': {
    deployment: `${RELEASE}-media`,
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

/** A container's environment as the kubelet builds it: envFrom ConfigMaps, then env with ConfigMap and Secret references resolved. */
function envOf(objects: K8sObject[], container: IContainer): Record<string, string> {
  const data = (kind: string, name: string | undefined) => find(objects, kind, name ?? '')?.data as Record<string, string> | undefined;
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) Object.assign(env, data('ConfigMap', source.configMapRef?.name));
  for (const { name, value, valueFrom } of container.env ?? []) {
    const cm = valueFrom?.configMapKeyRef;
    const secret = valueFrom?.secretKeyRef;
    const secretValue = secret ? data('Secret', secret.name)?.[secret.key] : undefined;
    const resolved = cm ? data('ConfigMap', cm.name)?.[cm.key] : secret ? (secretValue === undefined ? undefined : decode(secretValue)) : value;
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

// The overlay and the chart, rendered once for both describes below (when kubectl and helm are there).
let overlay: K8sObject[] = [];
let chart: K8sObject[] = [];
let objects: K8sObject[] = [];
beforeAll(() => {
  if (!kubectl || !helmFound) return;
  overlay = parseManifests(execFileSync(kubectl as string, ['kustomize', OVERLAY], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }));
  chart = renderChart([join(OVERLAY, 'helm-values.yaml')], { releaseName: RELEASE, namespace: NAMESPACE }).objects;
  objects = [...overlay, ...chart];
});
const envFor = (component: string) => envOf(objects, podOf(objects, component).spec.containers[0] as IContainer);

describe.skipIf(!kubectl || !helmFound)('deploy/overlays/dev with the chart (helm-values.yaml): a whole product on one cluster', () => {
  it('renders objects that pass the Kubernetes API schemas, with no unknown fields', () => {
    expect(overlay.length).toBeGreaterThan(5);
    expect(chart.length).toBeGreaterThan(10);
    expect(validateObjects(objects)).toEqual([]);
  });

  it('gives every pod and container probes, resources, the restricted security context and no service links', () => {
    expect(checkContainers(objects)).toEqual([]);
    for (const { owner, spec } of podSpecs(objects)) expect(spec.enableServiceLinks, `${owner.metadata.name} service links`).toBe(false);
  });

  it('labels everything as part of dynamic-events, and every pod with its component', () => {
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) {
      expect(o.metadata.labels, `${o.kind}/${o.metadata.name}`).toMatchObject({ 'app.kubernetes.io/name': 'dynamic-events', 'app.kubernetes.io/part-of': 'dynamic-events' });
    }
    for (const { owner, labels } of podSpecs(objects)) {
      expect(['ingest-gateway', 'registry-service', 'media-service', 'postgres', 'redis', 'minio'], owner.metadata.name).toContain(labels['app.kubernetes.io/component']);
      expect(labels['app.kubernetes.io/instance']).toBe(RELEASE);
    }
  });

  it('runs the three services (one replica, :dev images, no hook Job) beside Postgres, Redis and MinIO in a restricted namespace', () => {
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...Object.values(SERVICES).map((s) => s.deployment), 'minio', 'postgres', 'redis'].sort());
    for (const d of deployments) expect((d.spec as { replicas: number }).replicas, d.metadata.name).toBe(1);
    for (const service of Object.keys(SERVICES)) expect(podOf(objects, service).spec.containers[0]?.image).toBe(`dynamic-events/${service}:dev`);
    expect(objects.filter((o) => o.kind === 'Job' || o.metadata.annotations?.['helm.sh/hook'])).toEqual([]);
    expect(overlay.every((o) => o.kind === 'Namespace' || o.metadata.namespace === NAMESPACE)).toBe(true);
    expect(find(objects, 'Namespace', NAMESPACE)?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  it('points every Service and same-namespace NetworkPolicy peer at existing pods and at ports their containers declare', () => {
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      const spec = service.spec as { selector: Record<string, string>; ports: IServicePort[] };
      const pods = podSpecs(objects).filter((p) => selects(spec.selector, p.labels));
      expect(pods.map((p) => p.owner.kind), `Service ${service.metadata.name}`).toEqual(['Deployment']);
      for (const port of spec.ports) expect(containerPort(pods[0] as PodTemplate, port.targetPort ?? port.port), `${service.metadata.name} ${port.name}`).toBeDefined();
    }
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    expect(policies.map((p) => p.metadata.name).sort()).toEqual(Object.values(SERVICES).map((s) => s.deployment).sort());
    for (const policy of policies) {
      type Rule = { from?: Array<{ podSelector?: { matchLabels?: Record<string, string> }; namespaceSelector?: object }>; ports?: Array<{ port: string | number }> };
      type Selector = { matchLabels: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values: string[] }> };
      const spec = policy.spec as { podSelector: Selector; ingress: Rule[] };
      // A label selector as the API server reads it: its labels, and its expressions (the chart uses In).
      const chosen = (labels: Record<string, string>) =>
        selects(spec.podSelector.matchLabels, labels) && (spec.podSelector.matchExpressions ?? []).every((e) => e.operator === 'In' && e.values.includes(labels[e.key] ?? ''));
      const pod = podSpecs(objects).find((p) => chosen(p.labels));
      expect(pod, `NetworkPolicy ${policy.metadata.name} selects no pod`).toBeDefined();
      for (const rule of spec.ingress) {
        // Peers in other namespaces (ingress controller, Prometheus) are the cluster's, not ours.
        for (const peer of (rule.from ?? []).filter((p) => !p.namespaceSelector)) expect(podSpecs(objects).some((p) => selects(peer.podSelector?.matchLabels, p.labels))).toBe(true);
        for (const { port } of rule.ports ?? []) expect(containerPort(pod as PodTemplate, port), `${policy.metadata.name} port ${port}`).toBeDefined();
      }
    }
  });
});

describe.skipIf(!kubectl || !helmFound)('deploy/overlays/dev with the chart (helm-values.yaml): each service, its settings and its backends', () => {
  it.each(Object.keys(SERVICES) as Service[])('runs %s with the contract ports, probes, grace period and env var names', (service) => {
    const pod = podOf(objects, service);
    const container = pod.spec.containers.find((c) => c.name === service) as IContainer;
    expect(Object.fromEntries((container.ports ?? []).map((p) => [p.name, p.containerPort]))).toEqual(SERVICES[service].ports);
    if (service === 'ingest-gateway') {
      expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
    } else {
      const grpcPort = SERVICES[service].ports.grpc;
      expect(container.readinessProbe?.grpc?.port).toBe(grpcPort);
      expect(container.readinessProbe?.grpc?.service ?? '').toBe('');
      expect(container.livenessProbe?.grpc).toEqual({ port: grpcPort, service: 'liveness' });
    }
    const env = envOf(objects, container);
    const names = Object.keys(env);
    const known = schemaNames(service);
    expect(names.filter((n) => !(SERVICES[service].env as readonly string[]).includes(n)), 'not in the contract').toEqual([]);
    expect(names.filter((n) => !known.has(n)), 'not read by config.ts').toEqual([]);
    // Every reference resolves: a missing Secret or key would keep the pod from starting.
    for (const { name, valueFrom } of container.env ?? []) if (valueFrom) expect(env, `${service} ${name}`).toHaveProperty([name]);
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
    const env = envFor('ingest-gateway');
    for (const [name, component] of [['REGISTRY_ADDR', 'registry-service'], ['MEDIA_ADDR', 'media-service']] as const) {
      expect(env[name]).toMatch(/^dns:\/\/\/[a-z0-9-]+:\d+$/);
      const { service, pod, target } = serviceBehind(objects, env[name] as string);
      expect((service?.spec as { clusterIP?: string } | undefined)?.clusterIP, `${name}: headless Service`).toBe('None');
      expect(pod?.labels['app.kubernetes.io/component']).toBe(component);
      expect(containerPort(pod as PodTemplate, target?.targetPort ?? -1)?.name).toBe('grpc');
    }
  });

  it('gives each service an environment its own loadConfig accepts, with real backends configured', () => {
    const gateway = gatewayConfig(envFor('ingest-gateway'));
    const registry = registryConfig(envFor('registry-service'));
    const media = mediaConfig(envFor('media-service'));
    expect(gateway.dynamicEventsToken).toBe('dev-only-token');
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
