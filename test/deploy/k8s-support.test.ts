// The manifest checks in test/support/k8s.ts must fail on the mistakes they exist for: a good
// object passes, and each deliberately broken copy is reported at the field that is wrong.
import { describe, expect, it } from 'vitest';
import { checkContainers, parseManifests, podSpecs, validateObjects, type K8sObject } from '../support/k8s.js';

function goodDeployment(): K8sObject {
  const [deployment] = parseManifests(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, labels: { app.kubernetes.io/component: web, example.com/any-key: ok } }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      automountServiceAccountToken: false
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: RuntimeDefault } }
      volumes: [{ name: tmp, emptyDir: { sizeLimit: 64Mi } }]
      containers:
        - name: web
          image: example/web:1.0.0
          ports: [{ name: http, containerPort: 8080 }, { name: grpc, containerPort: 50051 }]
          readinessProbe: { httpGet: { path: /readyz, port: http } }
          livenessProbe: { grpc: { port: 50051, service: liveness } }
          resources: { requests: { cpu: 100m, memory: 128Mi }, limits: { cpu: "1", memory: 256Mi } }
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: [ALL] } }
          volumeMounts: [{ name: tmp, mountPath: /tmp }]
`);
  return deployment as K8sObject;
}

type Json = Record<string, unknown>;
/** A deep copy of the good Deployment with one change applied to its (first) container or pod spec. */
function broken(change: (pod: Json, container: Json) => void): K8sObject {
  const copy = structuredClone(goodDeployment());
  const pod = (copy.spec as { template: { spec: Json } }).template.spec;
  change(pod, (pod.containers as Json[])[0] as Json);
  return copy;
}

describe('validateObjects', () => {
  it('accepts a valid Deployment, with free-form keys in labels and ConfigMap data', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { ANY_NAME: 'x', 'file.yaml': 'y' } };
    expect(validateObjects([goodDeployment(), configMap])).toEqual([]);
  });

  it('reports a misspelt field that the compiled schema alone would let through', () => {
    const typo = broken((_pod, c) => {
      c.readinesProbe = c.readinessProbe;
      delete c.readinessProbe;
    });
    expect(validateObjects([typo])).toEqual(['Deployment/web: unknown field .spec.template.spec.containers[0].readinesProbe']);
    const nested = broken((pod) => ((pod.securityContext as Json).runAsNonroot = true));
    expect(validateObjects([nested])).toEqual(['Deployment/web: unknown field .spec.template.spec.securityContext.runAsNonroot']);
  });

  it('reads Secret data as the API server does: line breaks in base64 are fine, other bytes are not', () => {
    const secret = (value: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { KEY: value } });
    expect(validateObjects([secret('cG9zdGdyZXM6Ly9k\nZXY=\n')])).toEqual([]);
    expect(validateObjects([secret('not base64!')]).join()).toMatch(/^Secret\/s: .*KEY must match format "byte"/);
  });

  it('reports wrong types, missing required fields and kinds it has no schema for', () => {
    const wrongType = structuredClone(goodDeployment());
    (wrongType.spec as Json).replicas = 'two';
    expect(validateObjects([wrongType]).join()).toMatch(/^Deployment\/web: .*\/spec\/replicas must be integer/);
    const noImage = broken((_pod, c) => delete c.name);
    expect(validateObjects([noImage]).join()).toMatch(/containers\/0 must have required property '?name'?$/);
    const unknown = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    expect(validateObjects([unknown])).toEqual(['Widget/w: no schema for apiVersion example.com/v1 kind Widget']);
  });
});

describe('checkContainers', () => {
  it('accepts a pod that follows the contract', () => {
    expect(checkContainers([goodDeployment()])).toEqual([]);
  });

  it('reports a missing probe, missing resources and weak security settings', () => {
    const bad = broken((pod, c) => {
      delete c.readinessProbe;
      delete (c.resources as { limits: Json }).limits.memory;
      (c.securityContext as Json).readOnlyRootFilesystem = false;
      delete (pod.securityContext as Json).seccompProfile;
      delete pod.automountServiceAccountToken;
    });
    expect(checkContainers([bad])).toEqual([
      'Deployment/web: pod securityContext.seccompProfile.type must be RuntimeDefault',
      'Deployment/web: automountServiceAccountToken must be false',
      'Deployment/web: container web: resources.limits.memory missing',
      'Deployment/web: container web: securityContext.readOnlyRootFilesystem must be true',
      'Deployment/web: container web: readinessProbe missing',
    ]);
  });

  it('reports root, a /tmp that is not an emptyDir, and a probe on an undeclared port', () => {
    const bad = broken((pod, c) => {
      pod.securityContext = { runAsNonRoot: false, runAsUser: 0, runAsGroup: 0, fsGroup: 0, seccompProfile: { type: 'RuntimeDefault' } };
      pod.volumes = [{ name: 'tmp', configMap: { name: 'x' } }];
      c.readinessProbe = { httpGet: { path: '/readyz', port: 'htp' } };
    });
    expect(checkContainers([bad])).toEqual([
      'Deployment/web: pod securityContext.runAsNonRoot must be true',
      'Deployment/web: pod securityContext.runAsUser must not be 0',
      'Deployment/web: container web: /tmp must be an emptyDir mount',
      'Deployment/web: container web: readinessProbe: port htp is not a declared container port',
    ]);
  });

  it('checks init containers too: resources and security always, probes only on sidecars (the API refuses them elsewhere)', () => {
    const withInit = broken((pod, c) => {
      pod.initContainers = [{ ...structuredClone(c), name: 'init', resources: {}, readinessProbe: undefined, livenessProbe: { exec: { command: ['true'] } } }];
    });
    expect(checkContainers([withInit])).toEqual([
      'Deployment/web: initContainer init: resources.requests.cpu missing',
      'Deployment/web: initContainer init: resources.requests.memory missing',
      'Deployment/web: initContainer init: resources.limits.cpu missing',
      'Deployment/web: initContainer init: resources.limits.memory missing',
      'Deployment/web: initContainer init: livenessProbe is not allowed on an init container that is not a sidecar',
    ]);
    const sidecar = broken((pod, c) => {
      pod.initContainers = [{ ...structuredClone(c), name: 'proxy', restartPolicy: 'Always', livenessProbe: undefined }];
    });
    expect(checkContainers([sidecar])).toEqual(['Deployment/web: initContainer proxy: livenessProbe missing']);
  });

  it('finds the pod templates of Jobs and CronJobs, which need no probes', () => {
    const template = structuredClone((goodDeployment().spec as { template: { spec: Json } }).template);
    const container = (template.spec.containers as Json[])[0] as Json;
    delete container.readinessProbe;
    delete container.livenessProbe;
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate' }, spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } };
    const cron = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '@daily', jobTemplate: { spec: job.spec } } };
    expect(podSpecs([job, cron]).map((p) => p.owner.kind)).toEqual(['Job', 'CronJob']);
    expect(validateObjects([job, cron])).toEqual([]);
    expect(checkContainers([job, cron])).toEqual([]);
  });
});

describe('parseManifests', () => {
  it('skips empty documents and throws on broken YAML', () => {
    expect(parseManifests('---\n# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata: { name: a }\n---\n')).toHaveLength(1);
    expect(() => parseManifests('a: [1\n')).toThrow();
  });
});
