/**
 * The chart rendered by a real helm (test/support/kube-tools.ts finds or fetches it):
 *   renderChart(values)  `helm template` with values files and overrides, parsed into objects
 *   chartNotes(values)   NOTES.txt as `helm install` prints it (client-side dry run, no cluster)
 *   lintChart(file)      `helm lint --strict` with a values file
 *   renderChartOnCluster(kubeconfig, values)  `helm template --dry-run=server`: `lookup` reads
 *                        that cluster (fake-kube-api.ts), as on an upgrade
 * A chart that refuses its values (`fail`, the schema, kubeVersion) throws helm's own message.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHART_DIR, type JsonObject } from './chart-files.js';
import { type K8sObject, parseManifests } from './k8s.js';
import { requireKubeTool } from './kube-tools.js';

/** The chart's floor (Chart.yaml kubeVersion): rendering for the oldest supported cluster. */
export const KUBE_VERSION = '1.27.0';

/** A values file (a path) or an override object, applied in order after values.yaml like `helm -f`. */
export type Values = string | JsonObject;

/** `helm template <releaseName> --namespace <namespace>`; defaults "test" and "default". */
export interface RenderOptions {
  releaseName?: string;
  namespace?: string;
  kubeVersion?: string;
  /** `--skip-schema-validation`: reach the templates' own guards behind values.schema.json. */
  skipSchemaValidation?: boolean;
}

/** What `helm template` printed, and its objects. */
export interface Rendered {
  output: string;
  objects: K8sObject[];
}

/** Runs helm; a failure throws an Error whose message is helm's stderr. */
export function helm(args: readonly string[]): string {
  try {
    return execFileSync(requireKubeTool('helm'), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024, timeout: 60_000 });
  } catch (err) {
    const { stderr, stdout } = err as { stderr?: string; stdout?: string };
    throw new Error(`helm ${args[0]} failed: ${(stderr || stdout || String(err)).trim()}`);
  }
}

/** `-f` arguments for the values, override objects written into `dir`. */
function valuesFileArgs(dir: string, values: readonly Values[]): string[] {
  return values.flatMap((value, i) => {
    if (typeof value === 'string') return ['-f', value];
    const file = join(dir, `override-${i}.yaml`);
    writeFileSync(file, JSON.stringify(value)); // JSON is YAML; null deletes a key, as in `helm -f`
    return ['-f', file];
  });
}

/** `-f` arguments for the values, override objects written to a temporary directory for the call. */
function withValuesFiles<T>(values: readonly Values[], run: (args: string[]) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'helm-values-'));
  try {
    return run(valuesFileArgs(dir, values));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `helm template` of the chart with the given values. */
export function renderChart(values: readonly Values[] = [], options: RenderOptions = {}): Rendered {
  const output = withValuesFiles(values, (files) =>
    helm(['template', options.releaseName ?? 'test', CHART_DIR, '--namespace', options.namespace ?? 'default', '--kube-version', options.kubeVersion ?? KUBE_VERSION,
      ...(options.skipSchemaValidation ? ['--skip-schema-validation'] : []), ...files]),
  );
  return { output, objects: parseManifests(output) };
}

/**
 * `helm template` against the cluster of `kubeconfig`, so that `lookup` answers from it. Asynchronous
 * (unlike renderChart): the fake cluster of fake-kube-api.ts answers from this process.
 */
export async function renderChartOnCluster(kubeconfig: string, values: readonly Values[] = [], options: Pick<RenderOptions, 'releaseName' | 'namespace'> = {}): Promise<Rendered> {
  const dir = mkdtempSync(join(tmpdir(), 'helm-values-'));
  try {
    const files = valuesFileArgs(dir, values);
    // The fake cluster serves no OpenAPI documents: the objects are validated by validateObjects instead.
    const args = ['template', options.releaseName ?? 'test', CHART_DIR, '--namespace', options.namespace ?? 'default', '--dry-run=server', '--disable-openapi-validation', '--kubeconfig', kubeconfig, ...files];
    const output = await new Promise<string>((resolve, reject) => {
      execFile(requireKubeTool('helm'), args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 60_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`helm template failed: ${(stderr || stdout || String(err)).trim()}`));
        else resolve(stdout);
      });
    });
    return { output, objects: parseManifests(output) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** NOTES.txt as `helm install` renders it (`helm template` leaves it out): a client-side dry run. */
export function chartNotes(values: readonly Values[] = [], options: Pick<RenderOptions, 'releaseName' | 'namespace'> = {}): string {
  const output = withValuesFiles(values, (files) =>
    helm(['install', options.releaseName ?? 'test', CHART_DIR, '--namespace', options.namespace ?? 'default', '--dry-run=client', '--output', 'json', ...files]),
  );
  return (JSON.parse(output) as { info: { notes?: string } }).info.notes ?? '';
}

/** `helm lint --strict` with one values file; returns helm's report, throws when the chart fails. */
export function lintChart(valuesFile: string, kubeVersion = KUBE_VERSION): string {
  return helm(['lint', '--strict', CHART_DIR, '--kube-version', kubeVersion, '-f', valuesFile]);
}

/** The one object of a kind and name; throws with the names present when missing. */
export function findObject(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}; have ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}
