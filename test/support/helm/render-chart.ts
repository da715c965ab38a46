// Rendering the whole chart the way `helm template` does: values.yaml merged with overrides, the
// built-in objects (.Release, .Chart, .Capabilities, .Template), every template file rendered, and
// the output parsed into Kubernetes objects.
import { parse, parseAllDocuments } from 'yaml';
import { chartValues, type JsonObject, mergeValues, readChartFile, templateFiles } from './chart.js';
import { createRenderer } from './evaluator.js';
import { parseTemplate } from './parser.js';

/** What `helm template` would print, as files and as parsed objects. */
export interface Rendered {
  /** Output of each rendered template file (partials excluded), by path relative to the chart. */
  files: Map<string, string>;
  /** Every non-empty YAML document of every file except NOTES.txt, parsed as YAML 1.1 (like Helm). */
  objects: K8sManifest[];
  notes: string;
}

/** A rendered Kubernetes object: the fields every kind has typed, the rest left for the tests to narrow. */
export interface K8sManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** `helm template <releaseName> -n <namespace>`; defaults "test" and "default". */
export interface RenderOptions {
  releaseName?: string;
  namespace?: string;
}

/** Renders the chart with values.yaml merged with the given overrides, the way `helm template` would. */
export function renderChart(overrides: JsonObject[] = [], options: RenderOptions = {}): Rendered {
  const chart = parse(readChartFile('Chart.yaml')) as { name: string; version: string; appVersion: string };
  const values = mergeValues(chartValues(), ...overrides);
  const root: Record<string, unknown> = {
    Values: values,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Release: { Name: options.releaseName ?? 'test', Namespace: options.namespace ?? 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Capabilities: { KubeVersion: { Version: 'v1.30.0' } },
  };
  const renderer = createRenderer();
  // Every file is parsed first (defines are global), and is itself a template named by its path.
  for (const path of templateFiles()) renderer.defines.set(`${chart.name}/${path}`, parseTemplate(readChartFile(path), renderer.defines));
  const files = new Map<string, string>();
  for (const path of templateFiles()) {
    const base = path.split('/').pop() as string;
    if (base.startsWith('_')) continue;
    const template = { Name: `${chart.name}/${path}`, BasePath: `${chart.name}/templates` };
    files.set(path, renderer.include(template.Name, { ...root, Template: template }));
  }
  const objects: K8sManifest[] = [];
  for (const [path, text] of files) {
    if (path.endsWith('NOTES.txt')) continue;
    for (const doc of parseAllDocuments(text, { version: '1.1' })) {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}\n${text}`);
      const value = doc.toJS() as K8sManifest | null;
      if (value !== null) objects.push(value);
    }
  }
  return { files, objects, notes: files.get('templates/NOTES.txt') ?? '' };
}

/** The one object of a kind and name; throws with the names present when missing. */
export function findObject(objects: K8sManifest[], kind: string, name: string): K8sManifest {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}; have ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}
