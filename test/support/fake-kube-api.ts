/**
 * A Kubernetes API server just large enough for `helm template --dry-run=server`, so that a
 * template's `lookup` reads back Secrets of an earlier release, as on an upgrade:
 *   const cluster = await startFakeCluster();   // listens on 127.0.0.1, writes a kubeconfig
 *   cluster.putSecret('default', name, data);   // what a later lookup of that Secret answers
 *   await cluster.close();
 * It answers discovery for the kinds the chart renders, GET of the Secrets put, 404 for any
 * other object (none exists yet, so helm may install every one), and nothing else: it creates
 * nothing and validates nothing. helm.ts renderChartOnCluster runs helm against it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** groupVersion → [resource, kind] of every kind the chart renders. */
const RESOURCES: Record<string, [string, string][]> = {
  v1: [['secrets', 'Secret'], ['configmaps', 'ConfigMap'], ['services', 'Service'], ['serviceaccounts', 'ServiceAccount']],
  'apps/v1': [['deployments', 'Deployment']],
  'batch/v1': [['jobs', 'Job']],
  'networking.k8s.io/v1': [['networkpolicies', 'NetworkPolicy'], ['ingresses', 'Ingress']],
  'policy/v1': [['poddisruptionbudgets', 'PodDisruptionBudget']],
  'autoscaling/v2': [['horizontalpodautoscalers', 'HorizontalPodAutoscaler']],
  'monitoring.coreos.com/v1': [['servicemonitors', 'ServiceMonitor']],
};

export interface FakeCluster {
  /** Path of a kubeconfig whose current context is this server. */
  kubeconfig: string;
  /** Stores a Secret owned by release `release` (helm adopts it), with `data` already base64. */
  putSecret(namespace: string, name: string, data: Record<string, string>, release?: string): void;
  /** Paths requested, for a test to see what helm asked. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeCluster(): Promise<FakeCluster> {
  const secrets = new Map<string, object>();
  const requests: string[] = [];
  const send = (res: ServerResponse, code: number, body: object): void => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    requests.push(`${req.method ?? ''} ${path}`);
    if (req.method !== 'GET') return send(res, 405, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'MethodNotAllowed', code: 405 });
    if (path === '/version') return send(res, 200, { major: '1', minor: '27', gitVersion: 'v1.27.0', platform: 'linux/amd64' });
    if (path === '/api') return send(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (path === '/apis') {
      const groups = Object.keys(RESOURCES).filter((gv) => gv.includes('/')).map((groupVersion) => {
        const [name, version] = groupVersion.split('/') as [string, string];
        return { name, versions: [{ groupVersion, version }], preferredVersion: { groupVersion, version } };
      });
      return send(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
    }
    const groupVersion = /^\/apis?\/(.+)$/.exec(path)?.[1] ?? '';
    const resources = RESOURCES[groupVersion];
    if (resources) {
      return send(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion,
        resources: resources.map(([name, kind]) => ({ name, singularName: kind.toLowerCase(), namespaced: true, kind, verbs: ['get', 'list'] })),
      });
    }
    const secret = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(path);
    const stored = secret ? secrets.get(`${secret[1]}/${secret[2]}`) : undefined;
    if (stored) return send(res, 200, stored);
    // helm lists its release records (Secrets labelled owner=helm): there are none.
    if (/^\/api\/v1\/namespaces\/[^/]+\/secrets$/.test(path)) return send(res, 200, { kind: 'SecretList', apiVersion: 'v1', metadata: {}, items: [] });
    return send(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const dir = mkdtempSync(join(tmpdir(), 'fake-kube-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server: `http://127.0.0.1:${port}` } }],
      users: [{ name: 'fake', user: { token: 'fake' } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: 'default' } }],
      'current-context': 'fake',
    }),
  );
  return {
    kubeconfig,
    requests,
    putSecret(namespace, name, data, release = 'test') {
      secrets.set(`${namespace}/${name}`, {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: {
          name,
          namespace,
          labels: { 'app.kubernetes.io/managed-by': 'Helm' },
          annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': namespace },
        },
        data,
      });
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
