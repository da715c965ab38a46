// The chart rendered by a real `helm template` with every ci/*-values.yaml: the objects validate
// against the Kubernetes API schemas and follow the deployment contract (ports, probes, env,
// labels, security, hooks, service discovery). helm-lint.test.ts runs `helm lint --strict`.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig as gatewayConfig } from '../../ingest-gateway/src/config.js';
import { loadConfig as mediaConfig } from '../../media-service/src/config.js';
import { loadConfig as registryConfig } from '../../registry-service/src/config.js';
import { CHART_DIR, ciValuesFiles, type JsonObject } from '../support/chart-files.js';
import { type Container, envOf, podLabelsOf, podOf, type PodSpec, workloads } from '../support/chart-objects.js';
import { findObject, renderChart, type Rendered } from '../support/helm.js';
import { type K8sObject, validateObjects } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const CI_FILES = ciValuesFiles();
const rendered = new Map<string, Rendered>(CI_FILES.map((file) => [file, helmFound ? renderChart([join(CHART_DIR, 'ci', file)]) : { output: '', objects: [] }]));
const minimal = rendered.get('default-values.yaml') as Rendered;
const full = rendered.get('full-values.yaml') as Rendered;
const name = (suffix: string): string => `test-dynamic-events-${suffix}`;

// From /tmp/prompts/contract.md: ports, probes and the environment each service reads.
const CONTRACT = {
  [name('gateway')]: {
    component: 'ingest-gateway',
    ports: { http: 8080, metrics: 9464 },
    readiness: { httpGet: { path: '/readyz', port: 'http' } },
    liveness: { httpGet: { path: '/healthz', port: 'http' } },
    env: ['LOG_LEVEL', 'SHUTDOWN_TIMEOUT_MS', 'DRAIN_DELAY_MS', 'METRICS_PORT', 'METRICS_HOST', 'PORT', 'HOST', 'PLATFORM_SEGMENT', 'PUBLIC_BASE_URL', 'DYNAMIC_EVENTS_TOKEN', 'ADMIN_TOKEN', 'REGISTRY_INTERNAL_TOKEN', 'TOKEN_SYNC_INTERVAL_MS', 'REDIS_URL', 'REGISTRY_ADDR', 'MEDIA_ADDR', 'MAX_BODY_BYTES', 'BATCH_MAX_EVENTS', 'OCCURRED_AT_MAX_SKEW', 'MAX_IMAGE_BYTES', 'GRPC_DEADLINE_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 'MAX_STREAMS_PER_CLIENT', 'ALLOWED_HOSTS'],
  },
  [name('registry')]: {
    component: 'registry-service',
    ports: { grpc: 50051, metrics: 9465 },
    readiness: { grpc: { port: 50051, service: '' } },
    liveness: { grpc: { port: 50051, service: 'liveness' } },
    env: ['LOG_LEVEL', 'SHUTDOWN_TIMEOUT_MS', 'DRAIN_DELAY_MS', 'METRICS_PORT', 'METRICS_HOST', 'GRPC_HOST', 'REGISTRY_GRPC_PORT', 'DATABASE_URL', 'DATABASE_POOL_SIZE', 'REDIS_URL', 'LOCK_TTL_MS', 'LOCK_WAIT_MS', 'MIGRATIONS', 'IDEMPOTENCY_KEY_TTL_SECONDS', 'EVENT_RETENTION', 'WATCH_RETENTION', 'DYNAMIC_EVENTS_TOKEN', 'REGISTRY_INTERNAL_TOKEN', 'WEBHOOK_SECRET_KEY', 'WEBHOOK_TIMEOUT_MS', 'WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_DISABLE_AFTER', 'WEBHOOK_ALLOWED_NETWORKS', 'WEBHOOK_MAX_IN_FLIGHT', 'WEBHOOK_DELIVERY', 'OCCURRED_AT_MAX_SKEW'],
  },
  [name('media')]: {
    component: 'media-service',
    ports: { grpc: 50052, metrics: 9466 },
    readiness: { grpc: { port: 50052, service: '' } },
    liveness: { grpc: { port: 50052, service: 'liveness' } },
    env: ['LOG_LEVEL', 'SHUTDOWN_TIMEOUT_MS', 'DRAIN_DELAY_MS', 'METRICS_PORT', 'METRICS_HOST', 'GRPC_HOST', 'MEDIA_GRPC_PORT', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION', 'MAX_IMAGE_BYTES', 'MAX_IMAGE_PIXELS', 'DATA_DIR'],
  },
} as const;

const renderedObjects = CI_FILES.map((file) => [`ci/${file}`, (rendered.get(file) as Rendered).objects] as const);

describe.skipIf(!helmFound).each(renderedObjects)('rendered with %s', (_, objects) => {
  it('renders the expected objects, and each validates against its Kubernetes API schema', () => {
    // Unknown fields too (a typo such as readinesProbe, which the API server would drop silently).
    expect(validateObjects(objects)).toEqual([]);
    for (const [kind, suffix] of [['Deployment', 'gateway'], ['Deployment', 'registry'], ['Deployment', 'media'], ['Service', 'registry-headless'], ['Service', 'media-headless'], ['Job', 'migrations']]) {
      expect(() => findObject(objects, kind as string, name(suffix as string))).not.toThrow();
    }
    const ids = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('labels every object (and pod template) with app.kubernetes.io/* and helm.sh/chart', () => {
    const components = new Set(['ingest-gateway', 'registry-service', 'media-service', 'migrations', 'webhook-delivery', 'monitoring']);
    for (const o of objects) {
      const sets = [o.metadata.labels ?? {}, ...(o.kind === 'Deployment' || o.kind === 'Job' ? [podLabelsOf(o)] : [])];
      for (const labels of sets) {
        expect(labels, `${o.kind}/${o.metadata.name}`).toMatchObject({
          'app.kubernetes.io/name': 'dynamic-events',
          'app.kubernetes.io/instance': 'test',
          'app.kubernetes.io/part-of': 'dynamic-events',
          'app.kubernetes.io/version': '0.1.0',
          'app.kubernetes.io/managed-by': 'Helm',
          'helm.sh/chart': 'dynamic-events-0.1.0',
        });
        if (o.kind !== 'ServiceAccount') expect(components, `${o.kind}/${o.metadata.name}`).toContain(labels['app.kubernetes.io/component']);
      }
    }
  });

  it('runs every container restricted: non-root, read-only root with /tmp as an emptyDir, no escalation, no capabilities, RuntimeDefault seccomp, resources, no API token, no service links', () => {
    for (const workload of workloads(objects)) {
      const pod = podOf(workload);
      const id = `${workload.kind}/${workload.metadata.name}`;
      expect(pod.securityContext, id).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.automountServiceAccountToken, id).toBe(false);
      expect(pod.enableServiceLinks, `${id}: no <SERVICE>_PORT=tcp://… variables in the services' environment`).toBe(false);
      expect(pod.volumes, id).toContainEqual({ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } });
      for (const c of pod.containers) {
        expect(c.securityContext, id).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        expect(c.volumeMounts, id).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        for (const kind of ['requests', 'limits'] as const) expect(Object.keys(c.resources?.[kind] ?? {}).sort(), `${id} ${kind}`).toEqual(['cpu', 'memory']);
      }
    }
  });

  it.each(Object.entries(CONTRACT))('%s: ports, probes and environment follow the contract', (deployment, contract) => {
    const d = findObject(objects, 'Deployment', deployment);
    const [c] = podOf(d).containers;
    if (!c) throw new Error('no container');
    expect(podLabelsOf(d)['app.kubernetes.io/component']).toBe(contract.component);
    expect(Object.fromEntries((c.ports ?? []).map((p) => [p.name, p.containerPort]))).toEqual(contract.ports);
    expect(c.readinessProbe).toMatchObject(contract.readiness);
    expect(c.livenessProbe).toMatchObject(contract.liveness);
    expect(c.startupProbe).toBeDefined();
    const env = envOf(objects, c);
    expect(Object.keys(env).filter((k) => !(contract.env as readonly string[]).includes(k))).toEqual([]);
    // Numbers reach the services as plain digits (Helm would print a float64 as 1.6777216e+07).
    for (const [k, v] of Object.entries(env)) if (/_(MS|SECONDS|BYTES|PIXELS|PORT|SIZE)$/.test(k)) expect(v, k).toMatch(/^\d+$/);
    expect(Number(env.METRICS_PORT)).toBe(contract.ports.metrics);
    // The grace period outlasts drain + shutdown, or in-flight calls would be killed.
    expect((podOf(d).terminationGracePeriodSeconds ?? 0) * 1000).toBeGreaterThan(Number(env.DRAIN_DELAY_MS) + Number(env.SHUTDOWN_TIMEOUT_MS));
    expect(Number(env.DRAIN_DELAY_MS)).toBe(5000);
    // Pods roll when their settings change.
    expect(Object.keys((d.spec as { template: { metadata: { annotations: JsonObject } } }).template.metadata.annotations)).toEqual(expect.arrayContaining(['checksum/config', 'checksum/secret']));
  });
});

describe.skipIf(!helmFound).each(renderedObjects)('rendered with %s: registry settings, service discovery and Secrets', (_, objects) => {
  it('gives the registry its Idempotency-Key TTL (default one day), a value its config accepts', () => {
    const registry = podOf(findObject(objects, 'Deployment', name('registry'))).containers[0] as Container;
    expect(envOf(objects, registry).IDEMPOTENCY_KEY_TTL_SECONDS).toBe(objects === full.objects ? '3600' : '86400');
  });

  it('gives the registry its retention settings (none for events, one day of watch history by default)', () => {
    const env = envOf(objects, podOf(findObject(objects, 'Deployment', name('registry'))).containers[0] as Container);
    expect([env.EVENT_RETENTION, env.WATCH_RETENTION]).toEqual(objects === full.objects ? ['30d', '2d'] : [undefined, '1d']);
  });

  it('gives the registry its webhook key and settings (ci/full-values.yaml: an existing Secret, its own schedule and networks)', () => {
    const env = envOf(objects, podOf(findObject(objects, 'Deployment', name('registry'))).containers[0] as Container);
    if (objects === full.objects) {
      expect(env).toMatchObject({ WEBHOOK_SECRET_KEY: 'secret:dynamic-events-webhooks/webhook-secret-key', WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_RETRY_SCHEDULE: '5s,1m,10m,1h,6h', WEBHOOK_DISABLE_AFTER: '3d', WEBHOOK_ALLOWED_NETWORKS: '10.20.0.0/16,fd00:20::/64', WEBHOOK_MAX_IN_FLIGHT: '8' });
    } else {
      expect(env).toMatchObject({ WEBHOOK_SECRET_KEY: `secret:${name('webhooks')}/webhook-secret-key`, WEBHOOK_TIMEOUT_MS: '15000', WEBHOOK_MAX_IN_FLIGHT: '16' });
    }
  });

  it('gateway dials registry and media through their headless Services with dns:///, on the grpc container ports', () => {
    const gateway = podOf(findObject(objects, 'Deployment', name('gateway'))).containers[0] as Container;
    const env = envOf(objects, gateway);
    for (const [variable, suffix, port] of [['REGISTRY_ADDR', 'registry', 50051], ['MEDIA_ADDR', 'media', 50052]] as const) {
      expect(env[variable]).toBe(`dns:///${name(`${suffix}-headless`)}:${port}`);
      const headless = findObject(objects, 'Service', name(`${suffix}-headless`)).spec as { clusterIP: string; selector: JsonObject; ports: JsonObject[] };
      expect(headless.clusterIP).toBe('None');
      expect(headless.ports).toEqual([expect.objectContaining({ name: 'grpc', port, targetPort: 'grpc' })]);
      expect(podLabelsOf(findObject(objects, 'Deployment', name(suffix)))).toMatchObject(headless.selector);
    }
  });

  it('every Service targets container ports that exist, and selects the pods of its component', () => {
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      const spec = service.spec as { selector: Record<string, string>; ports: { targetPort: string }[] };
      const owners = workloads(objects).filter((w) => w.kind === 'Deployment' && Object.entries(spec.selector).every(([k, v]) => podLabelsOf(w)[k] === v));
      expect(owners.map((w) => w.metadata.name), service.metadata.name).toHaveLength(1);
      const ports = (podOf(owners[0] as K8sObject).containers[0]?.ports ?? []).map((p) => p.name);
      for (const p of spec.ports) expect(ports, service.metadata.name).toContain(p.targetPort);
    }
  });

  it('every secretKeyRef names a Secret the chart renders with that key, or a Secret named in the values', () => {
    const external = new Set(['dynamic-events-database', 'dynamic-events-redis', 'dynamic-events-s3', 'dynamic-events-token', 'dynamic-events-webhooks']);
    for (const workload of workloads(objects)) {
      for (const v of podOf(workload).containers.flatMap((c) => c.env ?? [])) {
        const ref = v.valueFrom?.secretKeyRef;
        if (!ref || external.has(ref.name)) continue;
        const secret = findObject(objects, 'Secret', ref.name);
        expect(Object.keys(secret.data as JsonObject), `${workload.metadata.name} ${v.name}`).toContain(ref.key);
        // A hook Job runs before the release's ordinary objects exist: its Secret must be a hook created before it.
        const hook = (o: K8sObject): string | undefined => o.metadata.annotations?.['helm.sh/hook'];
        const weight = (o: K8sObject): number => Number(o.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);
        if (hook(workload)) {
          expect(hook(secret)).toBe(hook(workload));
          expect(weight(secret)).toBeLessThan(weight(workload));
        } else expect(hook(secret)).toBeUndefined();
      }
    }
  });
});

describe.skipIf(!helmFound)('migration Job', () => {
  const job = (): K8sObject => findObject(minimal.objects, 'Job', name('migrations'));
  const pod = (): PodSpec => podOf(job());

  it('is a pre-install,pre-upgrade hook that replaces a previous run and is deleted when it succeeds', () => {
    expect(job().metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': '0',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    expect(job().spec).toMatchObject({ backoffLimit: 3, activeDeadlineSeconds: 600, ttlSecondsAfterFinished: 3600 });
    expect(pod().restartPolicy).toBe('Never');
  });

  it('runs the registry image with --migrate-only, without probes, and not as the chart ServiceAccount (created after pre-install hooks)', () => {
    const [c] = pod().containers;
    expect(c?.image).toBe('dynamic-events/registry-service:0.1.0');
    expect(c?.args).toEqual(['node', 'registry-service/dist/main.js', '--migrate-only']);
    expect(c?.readinessProbe).toBeUndefined();
    expect(c?.livenessProbe).toBeUndefined();
    expect(pod().serviceAccountName).toBeUndefined();
    expect(envOf(minimal.objects, c as Container).DATABASE_URL).toBe(`secret:${name('migrations')}/database-url`);
  });

  it('owns migrations: the registry starts with MIGRATIONS=skip', () => {
    const registry = podOf(findObject(minimal.objects, 'Deployment', name('registry'))).containers[0] as Container;
    expect(envOf(minimal.objects, registry).MIGRATIONS).toBe('skip');
  });

  it('with an existing database Secret, reads it and no hook Secret is rendered', () => {
    expect(full.objects.some((o) => o.kind === 'Secret' && o.metadata.name === name('migrations'))).toBe(false);
    const c = podOf(findObject(full.objects, 'Job', name('migrations'))).containers[0] as Container;
    expect(envOf(full.objects, c).DATABASE_URL).toBe('secret:dynamic-events-database/database-url');
  });
});

describe.skipIf(!helmFound)('each service accepts the environment the chart gives it (its own loadConfig)', () => {
  /** The container's environment with every secretKeyRef read from the chart's Secret (ci/default-values.yaml has every credential inline). */
  const resolved = (deployment: string, kind = 'Deployment'): Record<string, string> => {
    const container = podOf(findObject(minimal.objects, kind, name(deployment))).containers[0] as Container;
    return Object.fromEntries(
      Object.entries(envOf(minimal.objects, container)).map(([k, v]) => {
        const ref = /^secret:([^/]+)\/(.+)$/.exec(v);
        if (!ref) return [k, v];
        const data = findObject(minimal.objects, 'Secret', ref[1] as string).data as Record<string, string>;
        return [k, Buffer.from(data[ref[2] as string] ?? '', 'base64').toString()];
      }),
    );
  };

  it('gateway, registry and media start with the chart settings, the ports of the contract and real backends', () => {
    const gateway = gatewayConfig(resolved('gateway'));
    expect(gateway).toMatchObject({ port: 8080, metricsPort: 9464, drainDelayMs: 5000, shutdownTimeoutMs: 8000, dynamicEventsToken: 'ci-token-0123456789', maxBodyBytes: 16777216 });
    expect(gateway.registryAddr).toBe(`dns:///${name('registry-headless')}:50051`);
    const registry = registryConfig(resolved('registry'));
    expect(registry).toMatchObject({ grpcPort: 50051, migrations: 'skip', databaseUrl: expect.stringMatching(/^postgres:\/\//), redisUrl: expect.stringMatching(/^redis:\/\//) });
    // One internal credential (generated into the release's Secret) for the registry's TokenService and every gateway.
    expect(registry.internalToken).toMatch(/^[\x21-\x7E]{32,}$/);
    expect(gateway.registryInternalToken).toBe(registry.internalToken);
    const media = mediaConfig(resolved('media'));
    expect(media).toMatchObject({ grpcPort: 50052, metricsPort: 9466, storage: expect.objectContaining({ kind: 's3' }) });
    // Public URLs are the gateway's alone (media returns keys); the image size limit must agree.
    expect(media.maxImageBytes).toBe(gateway.maxImageBytes);
  });

  it('the migration Job gives the registry a database', () => {
    expect(registryConfig(resolved('migrations', 'Job')).databaseUrl).toMatch(/^postgres:\/\//);
  });
});
