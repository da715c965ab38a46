// Offline checks for rendered Kubernetes manifests (`helm template`, `kubectl kustomize`):
//   parseManifests(yaml)    multi-document YAML → objects
//   validateObjects(objs)   API-schema problems, unknown fields included (like kubeconform -strict)
//   checkContainers(objs)   the deployment contract's pod rules: probes, resources, security context
//   podSpecs(objs)          every pod template with its owner, for tests of their own
// Each check returns a list of readable problems; an empty list means the objects pass.
import * as core from 'kubernetes-models';
import * as prometheusOperator from '@kubernetes-models/prometheus-operator';
import type { IContainer, IPodSpec, IProbe } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

/** A rendered object: what one YAML document parses to. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Parses every non-empty YAML document as YAML 1.1, like the API server (`on`, `yes` are booleans); a syntax error throws. */
export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text, { version: '1.1' }).flatMap((doc) => {
    if (doc.errors.length > 0) throw doc.errors[0];
    const value = doc.toJS() as K8sObject | null;
    return value === null ? [] : [value];
  });
}

const idOf = (o: { kind?: unknown; metadata?: { name?: unknown } }) => `${String(o.kind)}/${String(o.metadata?.name)}`;

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: object): object & { validate(): void };
}

/** apiVersion + kind → the kubernetes-models class (its compiled schema validates), for every kind both packages ship. */
const MODELS = new Map<string, ModelClass>();
(function collect(namespace: object): void {
  for (const value of Object.values(namespace)) {
    if (typeof value === 'function') {
      const model = value as Partial<ModelClass>;
      if (typeof model.apiVersion === 'string' && typeof model.kind === 'string') MODELS.set(`${model.apiVersion} ${model.kind}`, value as ModelClass);
    } else if (typeof value === 'object' && value !== null) {
      collect(value);
    }
  }
})({ core, prometheusOperator });

/**
 * Validates each object against the Kubernetes API schema of its apiVersion and kind. The schemas
 * kubernetes-models ships are compiled validators that ignore unknown fields, so a typo such as
 * `readinesProbe` would pass and be dropped by the API server. To catch it, the validator runs
 * over a proxy recording which fields it reads: a validator reads every field its schema declares,
 * so a field never read is unknown. Maps (labels, data, resource limits) are enumerated by the
 * validator and therefore accept any key.
 */
export function validateObjects(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const Model = MODELS.get(`${object.apiVersion} ${object.kind}`);
    if (!Model) {
      problems.push(`${idOf(object)}: no schema for apiVersion ${object.apiVersion} kind ${object.kind}`);
      continue;
    }
    const model = new Model(withoutBase64LineBreaks(object));
    const reads = new WeakMap<object, Set<string>>();
    const enumerated = new WeakSet<object>();
    try {
      model.validate.call(recording(model, reads, enumerated));
    } catch (err) {
      problems.push(`${idOf(object)}: ${(err as Error).message}`);
    }
    for (const path of unreadFields(model, '', reads, enumerated)) problems.push(`${idOf(object)}: unknown field ${path}`);
  }
  return problems;
}

/**
 * kustomize wraps long Secret values over several lines. The API server's base64 decoder (Go's
 * encoding/base64) ignores line breaks, the schema's "byte" format does not: compare like the server.
 */
function withoutBase64LineBreaks(object: K8sObject): K8sObject {
  const field = object.kind === 'Secret' ? 'data' : object.kind === 'ConfigMap' ? 'binaryData' : undefined;
  const values = field ? (object[field] as Record<string, unknown> | undefined) : undefined;
  if (!field || !values) return object;
  const joined = Object.entries(values).map(([key, value]) => [key, typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value]);
  return { ...object, [field]: Object.fromEntries(joined) };
}

function recording(value: unknown, reads: WeakMap<object, Set<string>>, enumerated: WeakSet<object>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const note = (target: object, key: string | symbol) => {
    if (typeof key !== 'string') return;
    const keys = reads.get(target) ?? new Set<string>();
    keys.add(key);
    reads.set(target, keys);
  };
  return new Proxy(value, {
    get(target, key, receiver) {
      note(target, key);
      return recording(Reflect.get(target, key, receiver), reads, enumerated);
    },
    has(target, key) {
      note(target, key);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      enumerated.add(target);
      return Reflect.ownKeys(target);
    },
  });
}

function unreadFields(value: unknown, path: string, reads: WeakMap<object, Set<string>>, enumerated: WeakSet<object>): string[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => unreadFields(item, `${path}[${i}]`, reads, enumerated));
  const read = reads.get(value) ?? new Set<string>();
  // Only the outermost unknown field is reported: nothing below it was validated either.
  return Object.entries(value).flatMap(([key, child]) =>
    enumerated.has(value) || read.has(key) ? unreadFields(child, `${path}.${key}`, reads, enumerated) : [`${path}.${key}`],
  );
}

/** A pod template (or Pod) with the object that owns it. */
export interface PodTemplate {
  owner: K8sObject;
  labels: Record<string, string>;
  spec: IPodSpec;
}

/** Every pod spec: Pods, and the templates of Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs and CronJobs. */
export function podSpecs(objects: readonly K8sObject[]): PodTemplate[] {
  type Template = { metadata?: { labels?: Record<string, string> }; spec?: IPodSpec };
  return objects.flatMap((owner) => {
    const spec = owner.spec as { template?: Template; jobTemplate?: { spec?: { template?: Template } } } | undefined;
    const template: Template | undefined =
      owner.kind === 'Pod' ? (owner as Template) : owner.kind === 'CronJob' ? spec?.jobTemplate?.spec?.template : spec?.template;
    return template?.spec ? [{ owner, labels: template.metadata?.labels ?? {}, spec: template.spec }] : [];
  });
}

const RUN_TO_COMPLETION = new Set(['Job', 'CronJob']);

/**
 * The contract's rules for every pod and container. Pod: runAsNonRoot, runAsUser, runAsGroup,
 * fsGroup, seccomp RuntimeDefault, no service account token, /tmp an emptyDir. Container (init
 * containers too): resources requests and limits for cpu and memory, no privilege escalation,
 * read-only root filesystem, all capabilities dropped, readiness and liveness probes whose ports
 * the container declares. Exceptions the API itself imposes: init containers that are not
 * sidecars (restartPolicy Always) cannot have probes, and Job/CronJob pods are not probed (nothing
 * routes traffic to them, and a liveness probe would only restart a long migration).
 */
export function checkContainers(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const { owner, spec } of podSpecs(objects)) {
    const pod = (problem: string) => problems.push(`${idOf(owner)}: ${problem}`);
    const security = spec.securityContext ?? {};
    if (security.runAsNonRoot !== true) pod('pod securityContext.runAsNonRoot must be true');
    for (const field of ['runAsUser', 'runAsGroup', 'fsGroup'] as const) {
      if (typeof security[field] !== 'number') pod(`pod securityContext.${field} must be set`);
    }
    if (security.runAsUser === 0) pod('pod securityContext.runAsUser must not be 0');
    if (security.seccompProfile?.type !== 'RuntimeDefault') pod('pod securityContext.seccompProfile.type must be RuntimeDefault');
    if (spec.automountServiceAccountToken !== false) pod('automountServiceAccountToken must be false');
    const emptyDirs = new Set((spec.volumes ?? []).filter((v) => v.emptyDir !== undefined).map((v) => v.name));

    const containers = [...(spec.initContainers ?? []).map((c) => ({ c, init: true })), ...spec.containers.map((c) => ({ c, init: false }))];
    for (const { c, init } of containers) {
      const container = (problem: string) => pod(`${init ? 'initContainer' : 'container'} ${c.name}: ${problem}`);
      for (const kind of ['requests', 'limits'] as const) {
        for (const resource of ['cpu', 'memory']) if (c.resources?.[kind]?.[resource] === undefined) container(`resources.${kind}.${resource} missing`);
      }
      const sc = c.securityContext ?? {};
      if (sc.allowPrivilegeEscalation !== false) container('securityContext.allowPrivilegeEscalation must be false');
      if (sc.readOnlyRootFilesystem !== true) container('securityContext.readOnlyRootFilesystem must be true');
      if (!(sc.capabilities?.drop ?? []).includes('ALL')) container('securityContext.capabilities.drop must include ALL');
      if (sc.privileged === true || sc.runAsNonRoot === false || sc.runAsUser === 0) container('securityContext must not run privileged or as root');
      if (!(c.volumeMounts ?? []).some((m) => m.mountPath === '/tmp' && emptyDirs.has(m.name))) container('/tmp must be an emptyDir mount');

      const probed = !RUN_TO_COMPLETION.has(owner.kind) && (!init || c.restartPolicy === 'Always');
      for (const probe of ['readinessProbe', 'livenessProbe'] as const) {
        if (probed && !c[probe]) container(`${probe} missing`);
        if (!probed && init && c[probe]) container(`${probe} is not allowed on an init container that is not a sidecar`);
        const problem = c[probe] ? probePortProblem(c, c[probe]) : undefined;
        if (problem) container(`${probe}: ${problem}`);
      }
    }
  }
  return problems;
}

/** A probe's port must be one the container declares (by name or number); exec probes have none. */
function probePortProblem(container: IContainer, probe: IProbe): string | undefined {
  const port = probe.httpGet?.port ?? probe.tcpSocket?.port ?? probe.grpc?.port;
  if (port === undefined) return probe.exec ? undefined : 'no handler (exec, httpGet, tcpSocket or grpc)';
  const ports = container.ports ?? [];
  const declared = typeof port === 'number' ? ports.some((p) => p.containerPort === port) : ports.some((p) => p.name === port);
  return declared ? undefined : `port ${port} is not a declared container port`;
}
