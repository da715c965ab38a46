/**
 * The environment each pod gets from the Helm chart, rendered by a real `helm template` and
 * resolved as the kubelet would (envFrom the ConfigMap, then env with valueFrom Secret keys), so
 * the containers run with exactly what the chart renders. Only the network addresses differ (see
 * HOST_NETWORK_KEYS).
 */
import type { JsonObject } from '../../support/chart-files.js';
import { findObject, renderChart } from '../../support/helm.js';
import type { K8sObject } from '../../support/k8s.js';

export type Component = 'gateway' | 'registry' | 'media' | 'migrations';

interface EnvVar { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }
interface PodContainer { name: string; args?: string[]; env?: EnvVar[]; envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[] }

/** Where the backing services of this machine are, passed to the chart as an operator would. */
export interface Backends {
  databaseUrl: string;
  redisUrl: string;
  s3: { endpoint: string; accessKey: string; secretKey: string };
  publicBaseUrl: string;
}

const RELEASE = 'ct';

/** A pod's container as the chart renders it: its args (when it sets any) and its resolved env. */
export interface RenderedContainer { args: string[] | undefined; env: Record<string, string>; graceSeconds: number | undefined }

/** Each component's container, as the chart renders it with these backends (migrations: the hook Job). */
export function chartContainers(backends: Backends): Record<Component, RenderedContainer> {
  const values: JsonObject = {
    publicBaseUrl: backends.publicBaseUrl,
    postgres: { url: backends.databaseUrl },
    redis: { url: backends.redisUrl },
    s3: { endpoint: backends.s3.endpoint, accessKey: backends.s3.accessKey, secretKey: backends.s3.secretKey },
  };
  const { objects } = renderChart([values], { releaseName: RELEASE });
  const of = (kind: string, component: Component) => resolve(objects, findObject(objects, kind, `${RELEASE}-dynamic-events-${component}`));
  return { gateway: of('Deployment', 'gateway'), registry: of('Deployment', 'registry'), media: of('Deployment', 'media'), migrations: of('Job', 'migrations') };
}

function resolve(objects: K8sObject[], workload: K8sObject): RenderedContainer {
  const spec = workload.spec as { template: { spec: { containers: PodContainer[]; terminationGracePeriodSeconds?: number } } };
  const [container] = spec.template.spec.containers;
  if (!container) throw new Error(`${workload.metadata.name}: no container`);
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, configMap(objects, source.configMapRef.name));
    if (source.secretRef) Object.assign(env, secret(objects, source.secretRef.name));
  }
  for (const item of container.env ?? []) {
    const ref = item.valueFrom?.secretKeyRef;
    const value = ref ? secret(objects, ref.name)[ref.key] : item.value;
    if (value === undefined) throw new Error(`${workload.metadata.name}: ${item.name} resolves to nothing`);
    env[item.name] = value;
  }
  return { args: container.args, env, graceSeconds: spec.template.spec.terminationGracePeriodSeconds };
}

function configMap(objects: K8sObject[], name: string): Record<string, string> {
  return (findObject(objects, 'ConfigMap', name).data ?? {}) as Record<string, string>;
}

function secret(objects: K8sObject[], name: string): Record<string, string> {
  const found = findObject(objects, 'Secret', name) as K8sObject & { data?: Record<string, string>; stringData?: Record<string, string> };
  const decoded = Object.fromEntries(Object.entries(found.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  return { ...decoded, ...(found.stringData ?? {}) };
}

/**
 * The only variables the host-network containers change from the chart's: every pod there has its
 * own IP and the chart's fixed ports, while here all containers share this machine's loopback with
 * other test runs, so ports are chosen at run time and binds stay on 127.0.0.1. REGISTRY_ADDR and
 * MEDIA_ADDR list the replicas with an `ipv4:` target in place of the headless Service's DNS name
 * (same round-robin balancing over every address).
 */
export const HOST_NETWORK_KEYS = [
  'HOST', 'PORT', 'GRPC_HOST', 'REGISTRY_GRPC_PORT', 'MEDIA_GRPC_PORT', 'METRICS_HOST', 'METRICS_PORT', 'REGISTRY_ADDR', 'MEDIA_ADDR',
] as const;

/** The chart's env with network overrides; refuses to override anything else. */
export function withHostNetwork(env: Record<string, string>, overrides: Partial<Record<(typeof HOST_NETWORK_KEYS)[number], string>>): Record<string, string> {
  for (const key of Object.keys(overrides)) {
    if (!(HOST_NETWORK_KEYS as readonly string[]).includes(key)) throw new Error(`${key} is not a network setting`);
  }
  return { ...env, ...overrides } as Record<string, string>;
}
