// Static checks of the chart's template sources (no rendering): every .Values path they use exists
// in values.yaml and the schema, every value is used, each component's templates stay on their own
// values and labels, every object goes through the one labels helper, and the YAML around the
// template actions parses. Rendered output is checked in helm-chart.test.ts.
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { chartSchema, chartValues, type Json, type JsonObject, readChartFile, templateFiles } from '../support/chart-files.js';
import { schemaAt, templateValueReferences, valuePaths } from '../support/chart-schema.js';

const values = chartValues();
const schema = chartSchema();
const references = templateValueReferences();
const COMPONENTS = { gateway: 'ingest-gateway', registry: 'registry-service', media: 'media-service', migrations: 'migrations', delivery: 'webhook-delivery' } as const;
const objectTemplates = templateFiles().filter((f) => f.endsWith('.yaml'));

const lookup = (path: readonly string[]): Json | undefined => {
  let value: Json | undefined = values;
  for (const key of path) value = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject)[key] : undefined;
  return value;
};

/** `.values.x.y` inside helpers that take one component's values (validatePdb, commonEnv, ...). */
const helperComponentPaths = [...readChartFile('templates/_helpers.tpl').matchAll(/[^A-Za-z]\.values((?:\.[A-Za-z0-9_]+)+)/g)].map((m) => (m[1] as string).split('.').filter(Boolean));

describe('.Values references in templates, NOTES.txt and helpers', () => {
  it('finds references in every kind of file (the scan itself works)', () => {
    expect([...new Set(references.map((r) => r.file))]).toEqual(expect.arrayContaining(['templates/NOTES.txt', 'templates/_helpers.tpl', 'templates/gateway/deployment.yaml']));
    expect(references.length).toBeGreaterThan(100);
    expect(helperComponentPaths).toContainEqual(['replicaCount']);
  });

  it('every .Values path used exists in values.yaml and in the schema', () => {
    const missing = references.filter((r) => lookup(r.path) === undefined).map((r) => `${r.file}: .Values.${r.path.join('.')}`);
    const unknown = references.filter((r) => !schemaAt(schema, r.path)).map((r) => `${r.file}: .Values.${r.path.join('.')}`);
    expect(missing).toEqual([]);
    expect(unknown).toEqual([]);
  });

  it('every .values path the component helpers use exists for gateway, registry and media', () => {
    const missing = helperComponentPaths.flatMap((path) =>
      ['gateway', 'registry', 'media'].filter((c) => lookup([c, ...path]) === undefined || !schemaAt(schema, [c, ...path])).map((c) => `${c}.${path.join('.')}`),
    );
    expect(missing).toEqual([]);
  });

  it('every value in values.yaml is used by some template (no dead settings)', () => {
    const used = [...references.map((r) => r.path), ...helperComponentPaths.flatMap((p) => ['gateway', 'registry', 'media'].map((c) => [c, ...p]))];
    // A reference to a whole component (handed to a helper) does not count as using everything in it.
    const roots = new Set(['gateway', 'registry', 'media']);
    const covers = (ref: string[], path: string[]): boolean =>
      (ref.length <= path.length && ref.every((k, i) => k === path[i]) && !(ref.length === 1 && roots.has(ref[0] as string))) ||
      (ref.length > path.length && path.every((k, i) => k === ref[i]));
    const unused = valuePaths(values, schema)
      .filter((path) => path[0] !== 'global' && !used.some((ref) => covers(ref, path)))
      .map((p) => p.join('.'));
    expect(unused).toEqual([]);
  });
});

describe('component templates', () => {
  it.each(Object.entries(COMPONENTS))('templates/%s/* use only their own component values and labels', (dir, component) => {
    const others = Object.keys(COMPONENTS).filter((c) => c !== dir && c !== 'migrations' && c !== 'delivery');
    for (const file of objectTemplates.filter((f) => f.startsWith(`templates/${dir}/`))) {
      const text = readChartFile(file);
      // The migration Job and the delivery pods run the registry's image: that is their one allowed borrowing.
      const foreign = [...text.matchAll(/\.Values\.(gateway|registry|media)\.([A-Za-z]+)/g)].filter((m) => others.includes(m[1] as string) && !((dir === 'migrations' || dir === 'delivery') && m[1] === 'registry' && m[2] === 'image'));
      expect(foreign.map((m) => m[0]), file).toEqual([]);
      const labels = [...text.matchAll(/include "dynamic-events\.labels" \(dict "context" \. "component" "([^"]*)"\)/g)].map((m) => m[1]);
      expect(new Set(labels), file).toEqual(new Set([component]));
      const keys = [...text.matchAll(/"key" "([^"]+)"/g)].map((m) => m[1]);
      expect(keys.filter((k) => k !== dir), file).toEqual([]);
    }
  });

  it('argo-cd layout: each service has deployment, service, pdb, hpa, servicemonitor, networkpolicy, configmap and secret', () => {
    for (const dir of ['gateway', 'registry', 'media']) {
      for (const name of ['deployment', 'service', 'pdb', 'hpa', 'servicemonitor', 'networkpolicy', 'configmap', 'secret']) {
        expect(objectTemplates, `${dir}/${name}`).toContain(`templates/${dir}/${name}.yaml`);
      }
    }
    expect(objectTemplates).toEqual(expect.arrayContaining(['templates/gateway/ingress.yaml', 'templates/migrations/job.yaml', 'templates/migrations/secret.yaml', 'templates/serviceaccount.yaml']));
  });
});

/**
 * The YAML skeleton of a template: comments dropped, lines holding only actions dropped, inline
 * actions replaced by a placeholder scalar. What parses is the fixed structure (indentation, keys,
 * lists) around the actions; what the actions insert is checked by rendering (helm-chart.test.ts).
 */
function skeleton(text: string): string {
  return text
    .replace(/\{\{-? ?\/\*[\s\S]*?\*\/ ?-?\}\}/g, '')
    .split('\n')
    .filter((line) => line.replace(/\{\{[\s\S]*?\}\}/g, '').trim() !== '' || line.trim() === '')
    .map((line) => line.replace(/\{\{[\s\S]*?\}\}/g, 'TEMPLATE'))
    .join('\n');
}

describe('template YAML', () => {
  it.each(objectTemplates)('%s: the skeleton around the actions parses as YAML into objects with apiVersion, kind and metadata', (file) => {
    const docs = parseAllDocuments(skeleton(readChartFile(file)));
    for (const doc of docs) expect(doc.errors.map((e) => e.message)).toEqual([]);
    const objects = docs.map((d) => d.toJS() as JsonObject | null).filter((o): o is JsonObject => o !== null);
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) expect(Object.keys(object)).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata']));
  });

  it.each(objectTemplates)('%s: every object (and every pod template) carries the labels helper', (file) => {
    const text = readChartFile(file);
    const objects = text.match(/^apiVersion:/gm)?.length ?? 0;
    const podTemplates = text.match(/^ {2}template:\n {4}metadata:/gm)?.length ?? 0;
    const labelled = text.match(/labels:\n\s+\{\{- include "dynamic-events\.labels"/g)?.length ?? 0;
    expect(labelled).toBe(objects + podTemplates);
  });

  it('the skeleton check can fail: a bad indent is reported', () => {
    const broken = readChartFile('templates/gateway/service.yaml').replace('  type: {{', ' type: {{');
    expect(parseAllDocuments(skeleton(broken)).flatMap((d) => d.errors)).not.toEqual([]);
  });

  it('ci/*-values.yaml files are YAML maps', () => {
    for (const file of ['ci/default-values.yaml', 'ci/full-values.yaml']) expect(typeof parse(readChartFile(file))).toBe('object');
  });
});
