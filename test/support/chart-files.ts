// The chart's files read from the checkout: templates, values.yaml, values.schema.json, and values
// merged the way `helm -f` merges them (for checking the schema with Ajv; rendering is helm's, helm.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

/** The chart under test, helm/dynamic-events/ in this repository (with a trailing slash). */
export const CHART_DIR = new URL('../../helm/dynamic-events/', import.meta.url).pathname;

/** A JSON (or YAML-as-JSON) value: what values files and the values schema hold. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object: a values file, a values override, or a schema node. */
export type JsonObject = { [key: string]: Json };

/** A chart file's text, by path relative to the chart ("values.yaml", "templates/NOTES.txt"). */
export const readChartFile = (path: string): string => readFileSync(join(CHART_DIR, path), 'utf8');

/** Every file under templates/, as paths relative to the chart ("templates/gateway/deployment.yaml"). */
export function templateFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [relative(CHART_DIR, path)];
    });
  return walk(join(CHART_DIR, 'templates')).sort();
}

/** The chart-testing values files, ci/*-values.yaml (file names, sorted). */
export const ciValuesFiles = (): string[] => readdirSync(join(CHART_DIR, 'ci')).filter((f) => f.endsWith('-values.yaml')).sort();

/** The chart's default values.yaml, freshly parsed (callers may mutate it). */
export const chartValues = (): JsonObject => parse(readChartFile('values.yaml')) as JsonObject;
/** The chart's values.schema.json, freshly parsed. */
export const chartSchema = (): JsonObject => JSON.parse(readChartFile('values.schema.json')) as JsonObject;

/** A YAML mapping (as opposed to a list or a scalar). */
export const isMap = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Merges overrides into values like `helm -f`: maps merge key by key, anything else replaces; null deletes. */
export function mergeValues(base: JsonObject, ...overrides: JsonObject[]): JsonObject {
  const merge = (a: Json | undefined, b: Json): Json | undefined => {
    if (b === null) return undefined;
    if (!isMap(a) || !isMap(b)) return structuredClone(b);
    const out: JsonObject = { ...(structuredClone(a) as JsonObject) };
    for (const [key, value] of Object.entries(b)) {
      const merged = merge(out[key], value);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
    return out;
  };
  return overrides.reduce<JsonObject>((acc, o) => merge(acc, o) as JsonObject, structuredClone(base));
}
