// What the chart tells the gateway about its callers, rendered by a real `helm template`: the Host
// names it answers (ALLOWED_HOSTS) follow the Ingress hosts, with the gateway Service's in-cluster
// names beside them, or are left off (any Host) when the Ingress names none; behind the Ingress the
// event-stream cap per client address is off, as every client has the Ingress's address.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, type JsonObject } from '../support/chart-files.js';
import { findObject, renderChart } from '../support/helm.js';
import { GATEWAY_ENV, loadConfig } from '@dynamic-events/ingest-gateway/config';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const base = join(CHART_DIR, 'ci/default-values.yaml');
const gatewayEnv = (...overrides: JsonObject[]): Record<string, string> =>
  findObject(renderChart([base, ...overrides]).objects, 'ConfigMap', 'test-dynamic-events-gateway').data as Record<string, string>;

describe.skipIf(!helmFound)('ALLOWED_HOSTS in the chart', () => {
  it('is the Ingress hosts and the gateway Service names, and the gateway reads it', () => {
    const env = gatewayEnv({ gateway: { ingress: { enabled: true, hosts: [{ host: 'events.acme.io' }, { host: 'api.acme.io' }] } } });
    const svc = 'test-dynamic-events-gateway';
    expect(env.ALLOWED_HOSTS).toBe(`events.acme.io,api.acme.io,${svc},${svc}.default,${svc}.default.svc,${svc}.default.svc.cluster.local`);
    expect(GATEWAY_ENV.vars.ALLOWED_HOSTS).toBeDefined();
    const config = loadConfig({ ...env, REGISTRY_INTERNAL_TOKEN: 'x'.repeat(32) });
    expect(config.allowedHosts?.has('events.acme.io')).toBe(true);
  });

  it('is unset (any Host) without an Ingress, or with an Ingress for any host', () => {
    expect(gatewayEnv().ALLOWED_HOSTS).toBeUndefined();
    expect(gatewayEnv({ gateway: { ingress: { enabled: true } } }).ALLOWED_HOSTS).toBeUndefined();
  });

  it('turns the stream cap per client address off: behind the Ingress every client has its address', () => {
    expect(gatewayEnv().MAX_STREAMS_PER_CLIENT).toBe('0');
  });
});
