// The registry's internal credential (REGISTRY_INTERNAL_TOKEN) as the chart renders it, by a real
// `helm template` (test/support/helm.ts): one value in a Secret, mounted on registry and gateways.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, type JsonObject } from '../support/chart-files.js';
import { podOf } from '../support/chart-objects.js';
import { findObject, renderChart } from '../support/helm.js';
import type { K8sObject } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const base = join(CHART_DIR, 'ci/default-values.yaml');
const render = (...overrides: JsonObject[]) => renderChart([base, ...overrides]);
const name = (suffix: string): string => `test-dynamic-events-${suffix}`;
const annotations = (objects: K8sObject[], deployment: string): Record<string, string> =>
  (findObject(objects, 'Deployment', name(deployment)).spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations;

describe.skipIf(!helmFound)('the internal credential of TokenService', () => {
  it('is generated into the release Secret, or the one given, or the user\'s Secret; on registry and gateway', () => {
    const credentialRef = (objects: K8sObject[], deployment: string) => {
      const env = podOf(findObject(objects, 'Deployment', name(deployment))).containers[0]?.env ?? [];
      return env.find((e) => e.name === 'REGISTRY_INTERNAL_TOKEN')?.valueFrom?.secretKeyRef;
    };
    const stored = (objects: K8sObject[]) => Buffer.from((findObject(objects, 'Secret', name('internal')).data as Record<string, string>)['registry-internal-token'] ?? '', 'base64').toString();
    const generated = render().objects;
    expect(stored(generated)).toMatch(/^[A-Za-z0-9]{48}$/);
    for (const d of ['registry', 'gateway']) expect(credentialRef(generated, d)).toEqual({ name: name('internal'), key: 'registry-internal-token' });
    expect(stored(render({ internalAuth: { token: 'given-internal-credential-0123456789abcdef' } }).objects)).toBe('given-internal-credential-0123456789abcdef');
    const own = render({ internalAuth: { existingSecret: 'platform-internal', existingSecretKey: 'credential' } }).objects;
    expect(own.some((o) => o.kind === 'Secret' && o.metadata.name === name('internal'))).toBe(false);
    for (const d of ['registry', 'gateway']) expect(credentialRef(own, d)).toEqual({ name: 'platform-internal', key: 'credential' });
    expect(() => render({ internalAuth: { token: 'too-short' } })).toThrow(/internalAuth\/token/);
    // A changed credential rolls registry and gateways together.
    const changed = render({ internalAuth: { token: 'other-internal-credential-0123456789abcdef' } }).objects;
    for (const d of ['registry', 'gateway']) expect(annotations(changed, d)['checksum/internal-auth']).not.toBe(annotations(generated, d)['checksum/internal-auth']);
  });

});
