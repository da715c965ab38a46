// values.yaml against values.schema.json: schema lookups by key path, every setting as a key path,
// the templates' .Values references, and the README's values table generated from both.
import { isMap, type Json, type JsonObject, readChartFile, templateFiles } from './chart-files.js';

/** A schema node with its $ref (to #/definitions/…) resolved. */
export function resolveRef(root: JsonObject, node: JsonObject): JsonObject {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  const name = ref.replace(/^#\/definitions\//, '');
  const target = (root.definitions as JsonObject | undefined)?.[name];
  if (!isMap(target)) throw new Error(`unresolved $ref ${ref}`);
  return resolveRef(root, target as JsonObject);
}

/** The schema of a key inside an object schema: a named property, or the additionalProperties schema of a map. */
export function childSchema(root: JsonObject, node: JsonObject, key: string): JsonObject | undefined {
  const object = resolveRef(root, node);
  const named = (object.properties as JsonObject | undefined)?.[key];
  if (isMap(named)) return resolveRef(root, named as JsonObject);
  return isMap(object.additionalProperties) ? resolveRef(root, object.additionalProperties as JsonObject) : undefined;
}

/** The schema at a key path from the root (`['gateway', 'image', 'tag']`); undefined where the schema has no such key. */
export function schemaAt(root: JsonObject, path: readonly string[]): JsonObject | undefined {
  let node: JsonObject | undefined = root;
  for (const key of path) node = node && childSchema(root, node, key);
  return node;
}

/** A map whose keys are data (labels, annotations, resource names), not settings: it has no named properties. */
export const isFreeFormMap = (root: JsonObject, node: JsonObject): boolean => {
  const object = resolveRef(root, node);
  return !isMap(object.properties);
};

/** Every setting in values.yaml as a key path: maps are descended, except free-form ones; lists are leaves. */
export function valuePaths(values: JsonObject, schema: JsonObject): string[][] {
  const out: string[][] = [];
  const walk = (value: Json, path: string[]): void => {
    if (!isMap(value)) return;
    const node = path.length === 0 ? schema : schemaAt(schema, path);
    if (path.length > 0 && (!node || isFreeFormMap(schema, node))) return;
    for (const [key, child] of Object.entries(value)) {
      out.push([...path, key]);
      walk(child, [...path, key]);
    }
  };
  walk(values, []);
  return out;
}

/** A `.Values…` key path written in a template file, so unused or undeclared settings can be found. */
export interface ValuesReference {
  file: string;
  path: string[];
}

/** Every `.Values.a.b.c` (also `$.Values…`, `.context.Values…`) written in a template file. */
export function templateValueReferences(): ValuesReference[] {
  return templateFiles().flatMap((file) =>
    [...readChartFile(file).matchAll(/\.Values((?:\.[A-Za-z0-9_]+)+)/g)].map((m) => ({ file, path: (m[1] as string).split('.').filter(Boolean) })),
  );
}

const escapeCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, ' ');

function schemaType(root: JsonObject, node: JsonObject): string {
  const object = resolveRef(root, node);
  if (Array.isArray(object.type)) return object.type.join(' or ');
  if (typeof object.type === 'string') return object.type;
  if (Array.isArray(object.anyOf)) return object.anyOf.map((alt) => schemaType(root, alt as JsonObject)).join(' or ');
  return 'any';
}

/** The README's values table, generated from values.yaml (keys, defaults) and the schema (types, descriptions). */
export function valuesTable(values: JsonObject, schema: JsonObject): string {
  const rows = valuePaths(values, schema).map((path) => {
    const node = schemaAt(schema, path);
    if (!node) throw new Error(`${path.join('.')} is not in the schema`);
    // A $ref's own description wins over the referenced definition's.
    const parent = path.length === 1 ? schema : (schemaAt(schema, path.slice(0, -1)) as JsonObject);
    const own = (parent.properties as JsonObject | undefined)?.[path[path.length - 1] as string] as JsonObject | undefined;
    const description = String(own?.description ?? resolveRef(schema, node).description ?? '');
    let value: Json = values;
    for (const key of path) value = (value as JsonObject)[key] as Json;
    const nested = isMap(value) && !isFreeFormMap(schema, node);
    const shown = nested ? '' : `\`${JSON.stringify(value)}\``;
    return `| \`${path.join('.')}\` | ${schemaType(schema, node)} | ${escapeCell(shown)} | ${escapeCell(description)} |`;
  });
  return ['| Key | Type | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}
