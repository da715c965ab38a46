// Webhook delivery as the chart renders it, by a real `helm template` (test/support/helm.ts): the
// key Secret (WEBHOOK_SECRET_KEY, generated once and read back by `lookup` on upgrades, which a
// fake API server answers: test/support/fake-kube-api.ts), on the registry only; the WEBHOOK_*
// settings; and the registry's egress NetworkPolicy, whose ipBlock rules are evaluated here for
// sample addresses as a CNI would match them.
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig as registryConfig } from '../../registry-service/src/config.js';
import { CHART_DIR, type JsonObject } from '../support/chart-files.js';
import { type Container, envOf, podOf, workloads } from '../support/chart-objects.js';
import { type FakeCluster, startFakeCluster } from '../support/fake-kube-api.js';
import { findObject, renderChart, renderChartOnCluster } from '../support/helm.js';
import { type K8sObject, validateObjects } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const base = join(CHART_DIR, 'ci/default-values.yaml');
const render = (...overrides: JsonObject[]) => renderChart([base, ...overrides]);
const name = (suffix: string): string => `test-dynamic-events-${suffix}`;
const KEY_SECRET = name('webhooks');
const KEY = 'webhook-secret-key';
const KEY_SHAPE = /^[A-Za-z0-9+/]{43}=$/;

const storedKey = (objects: K8sObject[]): string => Buffer.from((findObject(objects, 'Secret', KEY_SECRET).data as Record<string, string>)[KEY] ?? '', 'base64').toString();
const containerOf = (objects: K8sObject[], kind: string, suffix: string): Container => podOf(findObject(objects, kind, name(suffix))).containers[0] as Container;
const registryEnv = (objects: K8sObject[]): Record<string, string> => envOf(objects, containerOf(objects, 'Deployment', 'registry'));

describe.skipIf(!helmFound)('the webhook key (WEBHOOK_SECRET_KEY)', () => {
  it('is generated at install: 32 random bytes in base64, another on every fresh install, kept by helm uninstall', () => {
    const first = render().objects;
    const key = storedKey(first);
    expect(key).toMatch(KEY_SHAPE);
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(storedKey(render().objects)).not.toBe(key);
    // The key must outlive the release like the database it seals secrets in.
    expect(findObject(first, 'Secret', KEY_SECRET).metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    expect(registryEnv(first).WEBHOOK_SECRET_KEY).toBe(`secret:${KEY_SECRET}/${KEY}`);
  });

  it('is the one given, or read from an existing Secret (no chart Secret then)', () => {
    const given = Buffer.alloc(32, 7).toString('base64');
    expect(storedKey(render({ webhooks: { secretKey: given } }).objects)).toBe(given);
    const own = render({ webhooks: { existingSecret: 'platform-webhooks', existingSecretKey: 'key' } }).objects;
    expect(own.some((o) => o.kind === 'Secret' && o.metadata.name === KEY_SECRET)).toBe(false);
    expect(registryEnv(own).WEBHOOK_SECRET_KEY).toBe('secret:platform-webhooks/key');
  });

  it('reaches the registry only: never the gateway, media or the migration Job', () => {
    const { objects } = render();
    for (const w of workloads(objects)) {
      const has = podOf(w).containers.some((c) => (c.env ?? []).some((e) => e.name === 'WEBHOOK_SECRET_KEY' || e.valueFrom?.secretKeyRef?.name === KEY_SECRET));
      expect(has, `${w.kind}/${w.metadata.name}`).toBe(w.metadata.name === name('registry'));
    }
    for (const cm of objects.filter((o) => o.kind === 'ConfigMap')) expect(Object.keys(cm.data as JsonObject).filter((k) => k.startsWith('WEBHOOK_SECRET')), cm.metadata.name).toEqual([]);
  });

  it('a changed webhook key setting (given key, existing Secret) rolls the registry', () => {
    const annotation = (objects: K8sObject[]) =>
      (findObject(objects, 'Deployment', name('registry')).spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations['checksum/webhooks-key'];
    expect(annotation(render().objects)).toBeDefined();
    expect(annotation(render({ webhooks: { existingSecret: 'other' } }).objects)).not.toBe(annotation(render().objects));
  });

  describe('on an upgrade (lookup against a cluster holding the release)', () => {
    let cluster: FakeCluster;
    beforeAll(async () => {
      cluster = await startFakeCluster();
    });
    afterAll(async () => {
      await cluster.close();
    });

    it('keeps the key the install generated, and so does the internal credential', async () => {
      const installed = (await renderChartOnCluster(cluster.kubeconfig, [base])).objects;
      const key = storedKey(installed);
      expect(key).toMatch(KEY_SHAPE);
      // The cluster now holds what the install created.
      for (const secret of [KEY_SECRET, name('internal')]) cluster.putSecret('default', secret, findObject(installed, 'Secret', secret).data as Record<string, string>);
      expect(cluster.requests).toContain(`GET /api/v1/namespaces/default/secrets/${KEY_SECRET}`);
      for (let upgrade = 0; upgrade < 2; upgrade++) {
        const upgraded = (await renderChartOnCluster(cluster.kubeconfig, [base])).objects;
        expect(storedKey(upgraded)).toBe(key);
        expect(findObject(upgraded, 'Secret', name('internal')).data).toEqual(findObject(installed, 'Secret', name('internal')).data);
      }
      // A key given in the values wins over the stored one.
      const given = Buffer.alloc(32, 9).toString('base64');
      expect(storedKey((await renderChartOnCluster(cluster.kubeconfig, [base, { webhooks: { secretKey: given } }])).objects)).toBe(given);
    });

    it('generates a key when the stored Secret lacks it', async () => {
      cluster.putSecret('default', KEY_SECRET, {});
      expect(storedKey((await renderChartOnCluster(cluster.kubeconfig, [base])).objects)).toMatch(KEY_SHAPE);
    });
  });
});

describe.skipIf(!helmFound)('the WEBHOOK_* settings', () => {
  it('default to the registry\'s own defaults, and no allowed networks', () => {
    const env = registryEnv(render().objects);
    expect(env).toMatchObject({ WEBHOOK_TIMEOUT_MS: '15000', WEBHOOK_RETRY_SCHEDULE: '5s,5m,30m,2h,5h,10h,10h', WEBHOOK_DISABLE_AFTER: '5d', WEBHOOK_MAX_IN_FLIGHT: '16' });
    expect(env.WEBHOOK_ALLOWED_NETWORKS).toBeUndefined();
  });

  it('render the values into the registry ConfigMap, the networks comma-joined, a configuration the registry accepts', () => {
    const { objects } = render({ webhooks: { timeoutMs: 5000, retrySchedule: '1s,1m', disableAfter: '12h', allowedNetworks: ['10.20.0.0/16', 'fd00:20::/64'], maxInFlight: 4 } });
    const env = registryEnv(objects);
    expect(env).toMatchObject({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_RETRY_SCHEDULE: '1s,1m', WEBHOOK_DISABLE_AFTER: '12h', WEBHOOK_ALLOWED_NETWORKS: '10.20.0.0/16,fd00:20::/64', WEBHOOK_MAX_IN_FLIGHT: '4' });
    for (const component of ['gateway', 'media']) expect(Object.keys(findObject(objects, 'ConfigMap', name(component)).data as JsonObject).filter((k) => k.startsWith('WEBHOOK_'))).toEqual([]);
    const resolved = Object.fromEntries(
      Object.entries(env).map(([k, v]) => {
        const ref = /^secret:([^/]+)\/(.+)$/.exec(v);
        return [k, ref ? Buffer.from((findObject(objects, 'Secret', ref[1] as string).data as Record<string, string>)[ref[2] as string] ?? '', 'base64').toString() : v];
      }),
    );
    const config = registryConfig(resolved);
    expect(config.webhooks).toMatchObject({ timeoutMs: 5000, retryScheduleSeconds: [1, 60], disableAfterSeconds: 43200, allowedNetworks: ['10.20.0.0/16', 'fd00:20::/64'], maxInFlight: 4 });
    expect(config.webhooks.secretKey).toHaveLength(32);
  });
});

// ---- the registry's egress policy ----

type Peer = { ipBlock?: { cidr: string; except?: string[] }; podSelector?: JsonObject; namespaceSelector?: JsonObject };
type Port = { port?: number; protocol?: string };
type EgressRule = { to?: Peer[]; ports?: Port[] };
type PolicySpec = { policyTypes: string[]; egress?: EgressRule[]; ingress: unknown[] };

const policy = (objects: K8sObject[], component = 'registry'): PolicySpec => findObject(objects, 'NetworkPolicy', name(component)).spec as PolicySpec;
const parseCidr = (cidr: string) => ipaddr.parseCIDR(cidr);
const within = (address: string, cidr: string): boolean => {
  const ip = ipaddr.parse(address);
  const [network, bits] = parseCidr(cidr);
  return ip.kind() === network.kind() && ip.match(network, bits);
};
/** Whether an ipBlock rule admits the address on the port (TCP), as NetworkPolicy semantics say: any rule, any peer, no ports = every port. */
const ipAllowed = (spec: PolicySpec, address: string, port: number, protocol = 'TCP'): boolean =>
  (spec.egress ?? []).some(
    (rule) =>
      (rule.to ?? []).some((peer) => peer.ipBlock && within(address, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((e) => within(address, e))) &&
      (rule.ports === undefined || rule.ports.some((p) => p.port === port && (p.protocol ?? 'TCP') === protocol)),
  );

const postgresPeer = { ipBlock: { cidr: '10.30.0.5/32' } };
const redisPeer = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'cache' } }, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'redis' } } };
const egressValues = (extra: JsonObject = {}): JsonObject => ({
  networkPolicy: { enabled: true, registryEgress: { enabled: true, postgres: { to: [postgresPeer] }, redis: { to: [redisPeer] }, ...extra } },
});

describe.skipIf(!helmFound)('the registry\'s egress NetworkPolicy to its backends', () => {
  it('is not restricted unless networkPolicy.registryEgress.enabled (the chart cannot know where PostgreSQL and Redis are)', () => {
    const { objects } = render({ networkPolicy: { enabled: true } });
    for (const c of ['gateway', 'registry', 'media']) {
      expect(policy(objects, c).policyTypes).toEqual(['Ingress']);
      expect(policy(objects, c).egress).toBeUndefined();
    }
  });

  it('allows DNS, PostgreSQL and Redis where the values say, and nothing else inside the cluster', () => {
    const { objects } = render(egressValues());
    expect(validateObjects(objects)).toEqual([]);
    const spec = policy(objects);
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(spec.ingress).toEqual(policy(render({ networkPolicy: { enabled: true } }).objects).ingress);
    const egress = spec.egress ?? [];
    // An empty `to` (or `ports`) would admit every destination (or port): never rendered.
    for (const rule of egress) {
      expect(rule.to?.length, JSON.stringify(rule)).toBeGreaterThan(0);
      if (rule.ports) expect(rule.ports.length, JSON.stringify(rule)).toBeGreaterThan(0);
    }
    expect(egress).toContainEqual({
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
      ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }],
    });
    expect(egress).toContainEqual({ to: [postgresPeer], ports: [{ port: 5432, protocol: 'TCP' }] });
    expect(egress).toContainEqual({ to: [redisPeer], ports: [{ port: 6379, protocol: 'TCP' }] });
    expect(ipAllowed(spec, '10.30.0.5', 5432)).toBe(true);
    expect(ipAllowed(spec, '10.30.0.6', 5432)).toBe(false);
    // Without Redis configured there is no Redis rule.
    const noRedis = policy(render({ redis: { url: null } }, egressValues()).objects).egress ?? [];
    expect(noRedis.some((r) => r.ports?.some((p) => p.port === 6379))).toBe(false);
  });

});

describe.skipIf(!helmFound)('the registry\'s egress NetworkPolicy for webhook receivers', () => {
  it('lets webhooks reach public addresses on the webhook ports only: not private, loopback, link-local (metadata), CGNAT or IPv6 internal ranges', () => {
    const spec = policy(render(egressValues()).objects);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946']) {
      expect(ipAllowed(spec, address, 443), address).toBe(true);
      expect(ipAllowed(spec, address, 80), address).toBe(true);
      expect(ipAllowed(spec, address, 22), address).toBe(false);
      expect(ipAllowed(spec, address, 53, 'UDP'), address).toBe(false);
    }
    const internal = ['10.0.0.1', '10.255.255.254', '172.16.0.1', '172.31.255.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '169.254.0.1', '100.64.0.1', '100.127.255.254', '0.0.0.0', '::1', 'fd00:ec2::254', 'fc00::1', 'fe80::1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::'];
    for (const address of internal) for (const port of [443, 80, 5432]) expect(ipAllowed(spec, address, port), `${address}:${port}`).toBe(false);
    // Every except lies within its cidr (the API server refuses one outside), in the same family.
    for (const peer of (spec.egress ?? []).flatMap((r) => r.to ?? [])) {
      for (const except of peer.ipBlock?.except ?? []) {
        const [network, bits] = parseCidr(except);
        const [outer, outerBits] = parseCidr(peer.ipBlock?.cidr ?? '');
        expect(network.kind(), except).toBe(outer.kind());
        expect(bits >= outerBits && network.match(outer, outerBits), except).toBe(true);
      }
    }
  });

  it('networkPolicy.webhookPorts sets the ports; an empty list leaves no public rule (never a rule for every port)', () => {
    const custom = policy(render(egressValues(), { networkPolicy: { webhookPorts: [8443] } }).objects);
    expect(ipAllowed(custom, '8.8.8.8', 8443)).toBe(true);
    expect(ipAllowed(custom, '8.8.8.8', 443)).toBe(false);
    const none = policy(render(egressValues(), { networkPolicy: { webhookPorts: [] } }).objects);
    expect(ipAllowed(none, '8.8.8.8', 443)).toBe(false);
    expect((none.egress ?? []).some((r) => r.ports === undefined && (r.to ?? []).some((p) => p.ipBlock?.cidr === '0.0.0.0/0'))).toBe(false);
  });

  it('admits webhooks.allowedNetworks on any port, even inside an excepted range', () => {
    const spec = policy(render(egressValues(), { webhooks: { allowedNetworks: ['10.20.0.0/16', 'fd00:20::/64'] } }).objects);
    expect(spec.egress).toContainEqual({ to: [{ ipBlock: { cidr: '10.20.0.0/16' } }, { ipBlock: { cidr: 'fd00:20::/64' } }] });
    for (const [address, port] of [['10.20.3.4', 8080], ['10.20.3.4', 443], ['fd00:20::5', 9000]] as const) expect(ipAllowed(spec, address, port), `${address}:${port}`).toBe(true);
    expect(ipAllowed(spec, '10.21.0.1', 443)).toBe(false);
  });

  it('takes further egress rules as given (an OTLP collector, a node-local DNS cache)', () => {
    const rule = { to: [{ ipBlock: { cidr: '169.254.20.10/32' } }], ports: [{ port: 53, protocol: 'UDP' }] };
    const spec = policy(render(egressValues({ extraRules: [rule] })).objects);
    expect(spec.egress).toContainEqual(rule);
    expect(ipAllowed(spec, '169.254.20.10', 53, 'UDP')).toBe(true);
  });

});

describe.skipIf(!helmFound)('the registry\'s egress NetworkPolicy', () => {
  it.each([
    ['without networkPolicy.enabled', { networkPolicy: { enabled: false, registryEgress: { enabled: true, postgres: { to: [postgresPeer] }, redis: { to: [redisPeer] } } } }, /networkPolicy\.registryEgress\.enabled needs networkPolicy\.enabled/],
    ['without PostgreSQL peers', { networkPolicy: { enabled: true, registryEgress: { enabled: true, redis: { to: [redisPeer] } } } }, /networkPolicy\.registryEgress\.postgres\.to/],
    ['without Redis peers while Redis is configured', { networkPolicy: { enabled: true, registryEgress: { enabled: true, postgres: { to: [postgresPeer] } } } }, /networkPolicy\.registryEgress\.redis\.to/],
  ])('is refused %s, saying why', (_, values, message) => {
    expect(() => render(values as JsonObject)).toThrow(message);
  });
});
