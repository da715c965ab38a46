// Where webhooks are delivered, as the chart renders it by a real `helm template`: by default the
// registry pods (WEBHOOK_DELIVERY=on); with webhooks.delivery.dedicated a Deployment of registry
// pods of its own sends them (WEBHOOK_DELIVERY=on, its own replicas and resources, no counts pass:
// COUNTS_PASS=off), the registry pods send none, the gateway's Service never reaches it, and Prometheus and the NetworkPolicy do.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig as registryConfig } from '../../registry-service/src/config.js';
import { CHART_DIR, type JsonObject } from '../support/chart-files.js';
import { type Container, envOf, podOf } from '../support/chart-objects.js';
import { findObject, renderChart } from '../support/helm.js';
import { type K8sObject, validateObjects } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const render = (...overrides: JsonObject[]) => renderChart([join(CHART_DIR, 'ci/default-values.yaml'), ...overrides]).objects;
const name = (suffix: string): string => `test-dynamic-events-${suffix}`;
const dedicated = (extra: JsonObject = {}): JsonObject => ({ webhooks: { delivery: { dedicated: true, ...extra } } });
const container = (objects: K8sObject[], suffix: string): Container => podOf(findObject(objects, 'Deployment', name(suffix))).containers[0] as Container;
/** Values standing in for what a pod reads from Secrets, in the shapes the registry accepts. */
const SECRET_SHAPES: Record<string, string> = { WEBHOOK_SECRET_KEY: Buffer.alloc(32).toString('base64'), DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://cache:6379' };
/** The configuration a pod's registry loads from its environment. */
const configOf = (objects: K8sObject[], suffix: string) => {
  const env = envOf(objects, container(objects, suffix));
  return registryConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.startsWith('secret:') ? (SECRET_SHAPES[k] ?? 'x'.repeat(32)) : v])));
};
const labelsOf = (o: K8sObject): Record<string, string> => ((o.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels);
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe.skipIf(!helmFound)('webhook delivery in the chart', () => {
  it('runs in the registry pods by default: no delivery Deployment, WEBHOOK_DELIVERY=on', () => {
    const objects = render();
    expect(objects.some((o) => o.metadata.name === name('delivery'))).toBe(false);
    expect(configOf(objects, 'registry').webhooks.deliver).toBe(true);
    expect(configOf(objects, 'registry').countsPass).toBe(true);
  });

  it('with webhooks.delivery.dedicated: a delivery Deployment sends, the registry pods do not', () => {
    const objects = render(dedicated({ replicaCount: 3, resources: { limits: { cpu: '250m', memory: '200Mi' }, requests: { cpu: '20m', memory: '100Mi' } } }));
    expect(validateObjects(objects)).toEqual([]);
    expect(configOf(objects, 'registry').webhooks.deliver).toBe(false);
    const delivery = configOf(objects, 'delivery');
    expect(delivery.webhooks.deliver).toBe(true);
    // The counts pass runs where ingest runs; the delivery pods' retention still keeps uncounted commits.
    expect([configOf(objects, 'registry').countsPass, delivery.countsPass]).toEqual([true, false]);
    expect(delivery.countsIntervalMs).toBe(configOf(objects, 'registry').countsIntervalMs);
    // The same registry otherwise: image, database, key, settings.
    expect(container(objects, 'delivery').image).toBe(container(objects, 'registry').image);
    expect(envOf(objects, container(objects, 'delivery')).WEBHOOK_SECRET_KEY).toBe(envOf(objects, container(objects, 'registry')).WEBHOOK_SECRET_KEY);
    const deployment = findObject(objects, 'Deployment', name('delivery'));
    expect((deployment.spec as { replicas: number }).replicas).toBe(3);
    expect(container(objects, 'delivery').resources).toEqual({ limits: { cpu: '250m', memory: '200Mi' }, requests: { cpu: '20m', memory: '100Mi' } });
    expect(container(objects, 'registry').resources).not.toEqual(container(objects, 'delivery').resources);
  });

  it('keeps the delivery pods out of the registry Services and in Prometheus\' view and the NetworkPolicy', () => {
    const objects = render(dedicated(), { metrics: { serviceMonitor: { enabled: true } }, networkPolicy: { enabled: true } });
    const pods = labelsOf(findObject(objects, 'Deployment', name('delivery')));
    expect(pods['app.kubernetes.io/component']).toBe('webhook-delivery');
    for (const service of ['registry', 'registry-headless']) {
      expect(selects((findObject(objects, 'Service', name(service)).spec as { selector: Record<string, string> }).selector, pods), service).toBe(false);
    }
    const own = findObject(objects, 'Service', name('delivery')).spec as { selector: Record<string, string>; ports: Array<{ name: string }> };
    expect(selects(own.selector, pods)).toBe(true);
    expect(own.ports.map((p) => p.name)).toEqual(['metrics']);
    const monitor = findObject(objects, 'ServiceMonitor', name('delivery')).spec as { selector: { matchLabels: Record<string, string> } };
    expect(selects(monitor.selector.matchLabels, findObject(objects, 'Service', name('delivery')).metadata.labels as Record<string, string>)).toBe(true);
    const policy = findObject(objects, 'NetworkPolicy', name('registry')).spec as { podSelector: { matchLabels: Record<string, string>; matchExpressions: Array<{ key: string; values: string[] }> } };
    const matches = (labels: Record<string, string>) => selects(policy.podSelector.matchLabels, labels) && policy.podSelector.matchExpressions.every((e) => e.values.includes(labels[e.key] ?? ''));
    expect(matches(pods)).toBe(true);
    expect(matches(labelsOf(findObject(objects, 'Deployment', name('registry'))))).toBe(true);
    expect(matches(labelsOf(findObject(objects, 'Deployment', name('gateway'))))).toBe(false);
  });
});
