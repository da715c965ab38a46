// The chart's options and guards, rendered by a real `helm template` (test/support/helm.ts): the
// install is refused with a reason when a required setting is missing or a PodDisruptionBudget
// could never allow an eviction; opt-in objects appear only when enabled; settings changes roll
// the pods; NOTES.txt warns about what is missing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_DIR, chartSchema, chartValues, type JsonObject, mergeValues, readChartFile } from '../support/chart-files.js';
import { podOf } from '../support/chart-objects.js';
import { chartNotes, findObject, renderChart } from '../support/helm.js';
import { type K8sObject, validateObjects } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const base = join(CHART_DIR, 'ci/default-values.yaml');
const render = (...overrides: JsonObject[]) => renderChart([base, ...overrides]);
const notes = (...overrides: JsonObject[]) => chartNotes([base, ...overrides]);
const name = (suffix: string): string => `test-dynamic-events-${suffix}`;
const kinds = (objects: K8sObject[]): string[] => [...new Set(objects.map((o) => o.kind))].sort();
const annotations = (objects: K8sObject[], deployment: string): Record<string, string> =>
  (findObject(objects, 'Deployment', name(deployment)).spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations;
const envValue = (objects: K8sObject[], configMap: string, key: string): unknown => (findObject(objects, 'ConfigMap', name(configMap)).data as JsonObject)[key];

describe.skipIf(!helmFound)('refuses to render, saying why', () => {
  // [case, overrides, what helm's values-schema check says (undefined: the schema lets it pass), what the template's own guard says]
  const cases: [string, JsonObject[], RegExp | undefined, RegExp][] = [
    ['no database', [{ postgres: { url: null } }], undefined, /postgres\.url .*postgres\.existingSecret/],
    ['no S3 endpoint', [{ s3: { endpoint: null } }], undefined, /s3\.endpoint/],
    ['S3 without credentials', [{ s3: { secretKey: null } }], /schema[\s\S]*'\/s3'/, /S3 credentials/],
    ['a PDB over one replica', [{ gateway: { replicaCount: 1, pdb: { enabled: true } } }], /schema[\s\S]*gateway.replicaCount/, /gateway\.pdb\.enabled needs at least 2 replicas \(gateway\.replicaCount is 1\).*block node drains/],
    ['a PDB over an HPA with minReplicas 1', [{ media: { autoscaling: { enabled: true, minReplicas: 1 }, pdb: { enabled: true } } }], /schema[\s\S]*media.autoscaling.minReplicas/, /media\.autoscaling\.minReplicas is 1/],
    ['HPA minReplicas above maxReplicas', [{ registry: { autoscaling: { enabled: true, minReplicas: 5, maxReplicas: 3 } } }], undefined, /minReplicas must not exceed/],
    ['a grace period shorter than drain + shutdown', [{ registry: { terminationGracePeriodSeconds: 10 } }], undefined, /registry\.terminationGracePeriodSeconds \(10\) must exceed .*\(13\)/],
  ];
  it.each(cases)('%s', (_, overrides, schema, guard) => {
    expect(() => render(...overrides)).toThrow(schema ?? guard);
    // The template's guard stands behind the schema (`helm install --skip-schema-validation`).
    expect(() => renderChart([base, ...overrides], { skipSchemaValidation: true })).toThrow(guard);
  });

  it('the guards do not fire on valid settings (PDB over 2 replicas, HPA with minReplicas 2)', () => {
    expect(() => render({ gateway: { pdb: { enabled: true } }, media: { autoscaling: { enabled: true }, pdb: { enabled: true } } })).not.toThrow();
  });
});

describe.skipIf(!helmFound)('opt-in objects', () => {
  it('renders no HPA, PDB, NetworkPolicy, ServiceMonitor or Ingress by default', () => {
    expect(kinds(render().objects)).toEqual(['ConfigMap', 'Deployment', 'Job', 'Secret', 'Service', 'ServiceAccount']);
  });

  it('an HPA takes replicas over from the Deployment', () => {
    const { objects } = render({ registry: { autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 6 } } });
    expect(findObject(objects, 'HorizontalPodAutoscaler', name('registry')).spec).toMatchObject({ minReplicas: 3, maxReplicas: 6, scaleTargetRef: { kind: 'Deployment', name: name('registry') } });
    expect(findObject(objects, 'Deployment', name('registry')).spec).not.toHaveProperty('replicas');
    expect(findObject(objects, 'Deployment', name('media')).spec).toHaveProperty('replicas', 2);
  });

  it('NetworkPolicies admit only each service’s callers, selecting the pods the Deployments label', () => {
    const { objects } = render({ networkPolicy: { enabled: true } });
    expect(validateObjects(objects)).toEqual([]);
    const podLabels = (d: string) => (findObject(objects, 'Deployment', name(d)).spec as { template: { metadata: { labels: JsonObject } } }).template.metadata.labels;
    type Rule = { from: { podSelector?: { matchLabels: JsonObject }; namespaceSelector?: JsonObject }[]; ports: { port: string }[] };
    const rules = (target: string): Rule[] => {
      const spec = findObject(objects, 'NetworkPolicy', name(target)).spec as { podSelector: { matchLabels: JsonObject }; ingress: Rule[] };
      expect(podLabels(target)).toMatchObject(spec.podSelector.matchLabels);
      return spec.ingress;
    };
    const [gatewayHttp, gatewayMetrics] = rules('gateway');
    expect(gatewayHttp?.ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
    expect(gatewayHttp?.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } } }]);
    expect(gatewayMetrics?.ports).toEqual([{ port: 'metrics', protocol: 'TCP' }]);
    for (const target of ['registry', 'media']) {
      const [grpc] = rules(target);
      expect(grpc?.ports).toEqual([{ port: 'grpc', protocol: 'TCP' }]);
      expect(grpc?.from).toHaveLength(1);
      expect(podLabels('gateway')).toMatchObject(grpc?.from[0]?.podSelector?.matchLabels ?? { never: 'matches' });
      expect(grpc?.from[0]?.namespaceSelector).toBeUndefined(); // same namespace only
    }
    const extra = { podSelector: { matchLabels: { app: 'viewer' } } };
    const withExtra = renderChart([base, { networkPolicy: { enabled: true, extraRegistryCallers: [extra] } }]).objects;
    expect((findObject(withExtra, 'NetworkPolicy', name('registry')).spec as { ingress: Rule[] }).ingress[0]?.from).toContainEqual(extra);
    expect((findObject(withExtra, 'NetworkPolicy', name('media')).spec as { ingress: Rule[] }).ingress[0]?.from).not.toContainEqual(extra);
  });

  it('ServiceMonitors scrape the metrics port of each component’s Service', () => {
    const { objects } = render({ metrics: { serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus' } } } });
    for (const component of ['gateway', 'registry', 'media']) {
      const monitor = findObject(objects, 'ServiceMonitor', name(component));
      expect(monitor.metadata.labels?.release).toBe('kube-prometheus');
      const spec = monitor.spec as { selector: { matchLabels: JsonObject }; endpoints: { port: string }[] };
      expect(spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics', interval: '30s', scrapeTimeout: '10s' })]);
      const service = findObject(objects, 'Service', name(component));
      expect(service.metadata.labels).toMatchObject(spec.selector.matchLabels);
      expect((service.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toContain('metrics');
    }
  });
});

describe.skipIf(!helmFound)('Ingress and public URLs', () => {
  it('routes /api/<platformSegment> (the API and the stored images) to the gateway http port, and derives publicBaseUrl from a TLS host', () => {
    const { objects } = render({ publicBaseUrl: null, platformSegment: 'acme', gateway: { ingress: { enabled: true, className: 'nginx', hosts: [{ host: 'events.acme.io' }], tls: [{ secretName: 'tls', hosts: ['events.acme.io'] }] } } });
    expect(validateObjects(objects)).toEqual([]);
    const spec = findObject(objects, 'Ingress', name('gateway')).spec as JsonObject;
    expect(spec.ingressClassName).toBe('nginx');
    expect(spec.rules).toEqual([{ host: 'events.acme.io', http: { paths: [{ path: '/api/acme', pathType: 'Prefix', backend: { service: { name: name('gateway'), port: { name: 'http' } } } }] } }]);
    expect(envValue(objects, 'gateway', 'PUBLIC_BASE_URL')).toBe('https://events.acme.io');
    // Public URLs are the gateway's alone: media only returns keys.
    expect(envValue(objects, 'media', 'PUBLIC_BASE_URL')).toBeUndefined();
    expect(envValue(objects, 'media', 'PLATFORM_SEGMENT')).toBeUndefined();
  });

  it('with no hosts, routes the prefix for any host; explicit paths are kept', () => {
    const anyHost = render({ gateway: { ingress: { enabled: true } } }).objects;
    expect((findObject(anyHost, 'Ingress', name('gateway')).spec as { rules: JsonObject[] }).rules).toEqual([{ http: { paths: [expect.objectContaining({ path: '/api/platform' })] } }]);
    const explicit = render({ gateway: { ingress: { enabled: true, hosts: [{ host: 'a.example.com', paths: [{ path: '/api/platform/dh', pathType: 'Prefix' }] }] } } }).objects;
    expect(JSON.stringify(findObject(explicit, 'Ingress', name('gateway')).spec)).toContain('"/api/platform/dh"');
  });
});

describe.skipIf(!helmFound)('settings', () => {
  it('a settings change rolls only the pods it concerns; a secret change rolls through checksum/secret', () => {
    const before = render().objects;
    const logLevel = render({ media: { maxImagePixels: 1000 } }).objects;
    expect(annotations(logLevel, 'media')['checksum/config']).not.toBe(annotations(before, 'media')['checksum/config']);
    expect(annotations(logLevel, 'gateway')['checksum/config']).toBe(annotations(before, 'gateway')['checksum/config']);
    const token = render({ gateway: { auth: { token: 'another-token' } } }).objects;
    expect(annotations(token, 'gateway')['checksum/secret']).not.toBe(annotations(before, 'gateway')['checksum/secret']);
    expect(annotations(token, 'registry')['checksum/secret']).toBe(annotations(before, 'registry')['checksum/secret']);
  });

  it('without the migration Job, the registry migrates at start-up (MIGRATIONS=auto) and no hook is rendered', () => {
    const { objects } = render({ migrations: { job: { enabled: false } } });
    expect(envValue(objects, 'registry', 'MIGRATIONS')).toBe('auto');
    expect(objects.filter((o) => o.metadata.annotations?.['helm.sh/hook'])).toEqual([]);
  });

  it('an existing token Secret replaces the chart’s; without any token NOTES.txt warns', () => {
    const { objects } = render({ gateway: { auth: { token: null, existingSecret: 'api-token', existingSecretKey: 'value' } } });
    expect(objects.some((o) => o.kind === 'Secret' && o.metadata.name === name('gateway'))).toBe(false);
    const env = (findObject(objects, 'Deployment', name('gateway')).spec as { template: { spec: { containers: { env: JsonObject[] }[] } } }).template.spec.containers[0]?.env;
    expect(env).toContainEqual({ name: 'DYNAMIC_EVENTS_TOKEN', valueFrom: { secretKeyRef: { name: 'api-token', key: 'value' } } });
    expect(notes()).not.toMatch(/no API token/);
    expect(notes({ gateway: { auth: { token: null } } })).toMatch(/WARNING: no API token/);
    expect(notes({ publicBaseUrl: null })).toMatch(/WARNING: publicBaseUrl is not set/);
  });

  it('an existing ServiceAccount is used by every pod, the migration Job included', () => {
    const { objects } = render({ serviceAccount: { create: false, name: 'events' } });
    expect(objects.some((o) => o.kind === 'ServiceAccount')).toBe(false);
    for (const o of objects.filter((x) => x.kind === 'Deployment' || x.kind === 'Job')) {
      expect((o.spec as { template: { spec: JsonObject } }).template.spec.serviceAccountName, o.metadata.name).toBe('events');
    }
  });

  it('image tags default to the appVersion and can be pinned', () => {
    const { objects } = render({ media: { image: { repository: 'registry.example.com/media', tag: '1.2.3' } } });
    const image = (d: string) => (findObject(objects, 'Deployment', name(d)).spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]?.image;
    expect(image('media')).toBe('registry.example.com/media:1.2.3');
    expect(image('gateway')).toBe('dynamic-events/ingest-gateway:0.1.0');
  });

  it('long release names stay within 63 characters per object name', () => {
    // 53 characters: the longest release name helm accepts.
    const { objects } = renderChart([base], { releaseName: 'a-very-long-release-name-that-goes-on-and-on-and-on-x' });
    for (const o of objects) expect(o.metadata.name.length, o.metadata.name).toBeLessThanOrEqual(63);
    expect(new Set(objects.map((o) => `${o.kind}/${o.metadata.name}`)).size).toBe(objects.length);
  });
});

describe.skipIf(!helmFound)('rollouts, scheduling and scrape annotations', () => {
  type Deployment = { revisionHistoryLimit?: number; strategy?: JsonObject; selector: { matchLabels: JsonObject }; template: { spec: { topologySpreadConstraints?: JsonObject[] } } };
  const deployment = (objects: K8sObject[], d: string): Deployment => findObject(objects, 'Deployment', name(d)).spec as Deployment;
  const spreadOf = (objects: K8sObject[], d: string): JsonObject[] | undefined => deployment(objects, d).template.spec.topologySpreadConstraints;
  const scrapeKeys = (objects: K8sObject[], d: string): string[] => Object.keys(annotations(objects, d)).filter((k) => k.startsWith('prometheus.io/'));
  const METRICS_PORTS = { gateway: 9464, registry: 9465, media: 9466 };

  it('each Deployment keeps 5 revisions, surges one pod before stopping one, spreads over nodes by its selector labels, and is scraped on its metrics port', () => {
    const { objects } = render();
    expect(validateObjects(objects)).toEqual([]);
    for (const [d, port] of Object.entries(METRICS_PORTS)) {
      const spec = deployment(objects, d);
      expect(spec.revisionHistoryLimit, d).toBe(5);
      expect(spec.strategy, d).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
      const spread = { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: spec.selector.matchLabels }, matchLabelKeys: ['pod-template-hash'] };
      expect(spreadOf(objects, d), d).toEqual([spread]);
      expect(spec.selector.matchLabels['app.kubernetes.io/component'], d).toBe({ gateway: 'ingest-gateway', registry: 'registry-service', media: 'media-service' }[d]);
      const metrics = (podOf(findObject(objects, 'Deployment', name(d))).containers[0]?.ports ?? []).find((p) => p.name === 'metrics');
      expect(metrics?.containerPort, d).toBe(port);
      expect(annotations(objects, d), d).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' });
    }
  });

  it('a component’s own topologySpreadConstraints replace the default spread; spreadAcrossNodes: false drops it', () => {
    const zone = { maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'ingest-gateway' } } };
    const { objects } = render({ gateway: { topologySpreadConstraints: [zone] }, registry: { spreadAcrossNodes: false } });
    expect(validateObjects(objects)).toEqual([]);
    expect(spreadOf(objects, 'gateway')).toEqual([zone]);
    expect(spreadOf(objects, 'registry')).toBeUndefined();
    expect(spreadOf(objects, 'media')).toEqual([expect.objectContaining({ topologyKey: 'kubernetes.io/hostname' })]);
  });

  it('metrics.prometheusAnnotations: false removes the prometheus.io annotations; podAnnotations stay, and win over the chart’s', () => {
    const off = render({ metrics: { prometheusAnnotations: false }, media: { podAnnotations: { 'example.com/team': 'media' } } }).objects;
    expect(validateObjects(off)).toEqual([]);
    for (const d of Object.keys(METRICS_PORTS)) expect(scrapeKeys(off, d), d).toEqual([]);
    expect(annotations(off, 'media')).toMatchObject({ 'example.com/team': 'media', 'checksum/config': expect.any(String) });
    const custom = render({ registry: { podAnnotations: { 'prometheus.io/path': '/custom' } } }).objects;
    expect(annotations(custom, 'registry')).toMatchObject({ 'prometheus.io/path': '/custom', 'prometheus.io/port': '9465' });
  });

  it('revisionHistoryLimit and strategy are per component; Recreate leaves the rollingUpdate defaults out', () => {
    const { objects } = render({ registry: { revisionHistoryLimit: 2, strategy: { type: 'Recreate' } }, media: { strategy: { rollingUpdate: { maxSurge: '25%' } } } });
    expect(validateObjects(objects)).toEqual([]);
    expect(deployment(objects, 'registry')).toMatchObject({ revisionHistoryLimit: 2, strategy: { type: 'Recreate' } });
    expect(deployment(objects, 'registry').strategy).not.toHaveProperty('rollingUpdate');
    expect(deployment(objects, 'media').strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } });
    expect(deployment(objects, 'gateway')).toMatchObject({ revisionHistoryLimit: 5, strategy: { rollingUpdate: { maxSurge: 1 } } });
  });
});

describe.skipIf(!helmFound)('documented examples', () => {
  const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(chartSchema());
  const yamlBlocks = (markdown: string): JsonObject[] =>
    [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1] as string) as JsonObject).filter((v) => v !== null && typeof v === 'object');

  it.each([
    ['helm/dynamic-events/README.md', readChartFile('README.md')],
    ['README.md', readFileSync(new URL('../../README.md', import.meta.url), 'utf8')],
  ])('the values examples in %s validate against the schema and render', (_, markdown) => {
    const examples = yamlBlocks(markdown).filter((v) => 'postgres' in v || 'gateway' in v);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      // A snippet that only names existing Secrets completes the first example, as the README says.
      const full = 's3' in example && (example.s3 as JsonObject).endpoint ? example : mergeValues(examples[0] as JsonObject, example);
      expect(validate(mergeValues(chartValues(), full)), JSON.stringify(validate.errors)).toBe(true);
      expect(validateObjects(renderChart([full]).objects)).toEqual([]);
    }
  });
});
