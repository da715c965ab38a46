// The shape of the chart's workloads as the tests read them: pod specs, containers, and the
// environment a container gets from its ConfigMap and Secrets.
import type { JsonObject } from './chart-files.js';
import { findObject } from './helm.js';
import type { K8sObject } from './k8s.js';

/** A container of a rendered pod template, with the fields the chart tests read. */
export interface Container {
  name: string;
  image: string;
  ports?: { name: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  readinessProbe?: JsonObject;
  livenessProbe?: JsonObject;
  startupProbe?: JsonObject;
  securityContext?: JsonObject;
  resources?: { requests?: JsonObject; limits?: JsonObject };
  volumeMounts?: { name: string; mountPath: string }[];
  args?: string[];
}
/** A rendered pod spec, with the fields the chart tests read. */
export interface PodSpec {
  containers: Container[];
  securityContext?: JsonObject;
  volumes?: { name: string; emptyDir?: JsonObject }[];
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
}
/** The pod spec of a Deployment or Job. */
export const podOf = (o: K8sObject): PodSpec => (o.spec as { template: { spec: PodSpec } }).template.spec;
/** The labels of a Deployment's or Job's pod template. */
export const podLabelsOf = (o: K8sObject): Record<string, string> => (o.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
/** The Deployments and Jobs. */
export const workloads = (objects: K8sObject[]): K8sObject[] => objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');

/** Environment a container gets: its ConfigMap (envFrom) overlaid by env (literal values; secrets as "secret:<name>/<key>"). */
export function envOf(objects: K8sObject[], container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) Object.assign(env, findObject(objects, 'ConfigMap', source.configMapRef?.name ?? '').data as Record<string, string>);
  for (const v of container.env ?? []) env[v.name] = v.valueFrom?.secretKeyRef ? `secret:${v.valueFrom.secretKeyRef.name}/${v.valueFrom.secretKeyRef.key}` : (v.value ?? '');
  return env;
}
