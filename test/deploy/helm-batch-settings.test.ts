// The batch and occurrence-time settings as the chart renders them, by a real `helm template`
// (test/support/helm.ts): BATCH_MAX_EVENTS on the gateway, OCCURRED_AT_MAX_SKEW on the gateway and
// the registry alike (one value: the two judge occurred_at with the same skew), values the
// services' own configurations accept. helm-values.test.ts checks the schema refuses bad values.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig as gatewayConfig } from '../../ingest-gateway/src/config.js';
import { loadConfig as registryConfig } from '../../registry-service/src/config.js';
import { CHART_DIR, type JsonObject } from '../support/chart-files.js';
import { type Container, envOf, podOf } from '../support/chart-objects.js';
import { findObject, renderChart } from '../support/helm.js';
import type { K8sObject } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const base = join(CHART_DIR, 'ci/default-values.yaml');
const render = (...overrides: JsonObject[]) => renderChart([base, ...overrides]);
const name = (suffix: string): string => `test-dynamic-events-${suffix}`;

/** A Deployment's environment with its Secret references read from the rendered Secrets. */
function resolvedEnv(objects: K8sObject[], component: string): Record<string, string> {
  const container = podOf(findObject(objects, 'Deployment', name(component))).containers[0] as Container;
  return Object.fromEntries(
    Object.entries(envOf(objects, container)).map(([k, v]) => {
      const ref = /^secret:([^/]+)\/(.+)$/.exec(v);
      return [k, ref ? Buffer.from((findObject(objects, 'Secret', ref[1] as string).data as Record<string, string>)[ref[2] as string] ?? '', 'base64').toString() : v];
    }),
  );
}

describe.skipIf(!helmFound)('BATCH_MAX_EVENTS and OCCURRED_AT_MAX_SKEW', () => {
  it("default to the services' own defaults: 1000 events, 5m on the gateway and the registry", () => {
    const { objects } = render();
    expect(resolvedEnv(objects, 'gateway')).toMatchObject({ BATCH_MAX_EVENTS: '1000', OCCURRED_AT_MAX_SKEW: '5m' });
    const registry = resolvedEnv(objects, 'registry');
    expect(registry.OCCURRED_AT_MAX_SKEW).toBe('5m');
    expect(registry.BATCH_MAX_EVENTS).toBeUndefined();
    expect(resolvedEnv(objects, 'media')).not.toHaveProperty('OCCURRED_AT_MAX_SKEW');
  });

  it('render the values into the ConfigMaps, a configuration the gateway and the registry accept', () => {
    const { objects } = render({ gateway: { batchMaxEvents: 250 }, occurredAtMaxSkew: '90s' });
    const gateway = resolvedEnv(objects, 'gateway');
    const registry = resolvedEnv(objects, 'registry');
    expect(gateway).toMatchObject({ BATCH_MAX_EVENTS: '250', OCCURRED_AT_MAX_SKEW: '90s' });
    expect(registry.OCCURRED_AT_MAX_SKEW).toBe('90s');
    expect(gatewayConfig(gateway)).toMatchObject({ batchMaxEvents: 250, occurredAtMaxSkewSeconds: 90 });
    expect(registryConfig(registry)).toMatchObject({ occurredAtMaxSkewSeconds: 90 });
  });
});
