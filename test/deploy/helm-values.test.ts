// The chart's values contract: values.yaml, values.schema.json and the README's values table agree,
// every value is commented, and the schema rejects typos and bad values: with Ajv (the failing
// keyword named) and with a real helm, which validates the merged values before rendering.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, parse, parseDocument, type YAMLMap } from 'yaml';
import { CHART_DIR, chartSchema, chartValues, type JsonObject, mergeValues, readChartFile } from '../support/chart-files.js';
import { childSchema, isFreeFormMap, resolveRef, schemaAt, valuePaths, valuesTable } from '../support/chart-schema.js';
import { renderChart } from '../support/helm.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const schema = chartSchema();
const values = chartValues();
// Helm's validator is draft-07 (gojsonschema); Ajv's default class is draft-07 too. strict mode
// also rejects a schema keyword Ajv does not know (a typo in the schema itself).
const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);

const problems = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${e.keyword === 'additionalProperties' ? JSON.stringify(e.params) : ''}`.trim());
const ciValues = (name: string): JsonObject => parse(readChartFile(`ci/${name}`)) as JsonObject;

// Each row: overrides, the instance path the error must name, and the keyword that fails.
const bad: [string, JsonObject, string, string][] = [
  ['typo at the top level', { replicaCount: 2 }, '', 'additionalProperties'],
  ['typo in a component', { gateway: { replicas: 3 } }, '/gateway', 'additionalProperties'],
  ['typo two levels down', { registry: { autoscaling: { maxReplica: 3 } } }, '/registry/autoscaling', 'additionalProperties'],
  ['typo in a security context', { containerSecurityContext: { readOnlyRootFileSystem: true } }, '/containerSecurityContext', 'additionalProperties'],
  ['typo in an extraEnv entry', { media: { extraEnv: [{ name: 'A', valu: 'b' }] } }, '/media/extraEnv/0', 'additionalProperties'],
  ['wrong type (string for an integer)', { gateway: { replicaCount: 'two' } }, '/gateway/replicaCount', 'type'],
  ['wrong type (string for a boolean)', { networkPolicy: { enabled: 'yes' } }, '/networkPolicy/enabled', 'type'],
  ['bad enum (log level)', { logLevel: 'verbose' }, '/logLevel', 'enum'],
  ['bad enum (service type)', { registry: { service: { type: 'ExternalName' } } }, '/registry/service/type', 'enum'],
  ['bad enum (pull policy)', { media: { image: { pullPolicy: 'always' } } }, '/media/image/pullPolicy', 'enum'],
  ['negative replicas', { media: { replicaCount: -1 } }, '/media/replicaCount', 'minimum'],
  ['PDB with one replica', { gateway: { replicaCount: 1, pdb: { enabled: true } } }, '/gateway/replicaCount', 'minimum'],
  ['PDB with HPA minReplicas 1', { registry: { autoscaling: { enabled: true, minReplicas: 1 }, pdb: { enabled: true } } }, '/registry/autoscaling/minReplicas', 'minimum'],
  ['maxUnavailable 0 (blocks every eviction)', { media: { pdb: { maxUnavailable: 0 } } }, '/media/pdb/maxUnavailable', 'minimum'],
  ['S3 endpoint with a path', { s3: { endpoint: 'http://minio:9000/bucket' } }, '/s3/endpoint', 'pattern'],
  ['S3 endpoint without credentials', { s3: { endpoint: 'http://minio:9000' } }, '/s3', 'if'],
  // Secrets are checked with `not` and lengths: a `pattern` error prints the value (helm-secrets.test.ts).
  ['database URL of another scheme', { postgres: { url: 'mysql://db/events' } }, '/postgres/url', 'not'],
  ['Redis URL of another scheme', { redis: { url: 'memcached://cache:11211' } }, '/redis/url', 'not'],
  ['token with a space', { gateway: { auth: { token: 'two words' } } }, '/gateway/auth/token', 'not'],
  ['admin token shorter than 32 characters', { gateway: { auth: { adminToken: 'a'.repeat(31) } } }, '/gateway/auth/adminToken', 'anyOf'],
  ['admin token with a space', { gateway: { auth: { adminToken: `${'a'.repeat(31)} b` } } }, '/gateway/auth/adminToken', 'not'],
  ['platform segment with a slash', { platformSegment: 'a/b' }, '/platformSegment', 'pattern'],
  ['ingress path without a leading slash', { gateway: { ingress: { hosts: [{ host: 'a.example.com', paths: [{ path: 'api' }] }] } } }, '/gateway/ingress/hosts/0/paths/0/path', 'pattern'],
  ['bad enum (rollout strategy)', { gateway: { strategy: { type: 'BlueGreen' } } }, '/gateway/strategy/type', 'enum'],
  ['typo in a rollout strategy', { media: { strategy: { rollingUpdate: { maxSurg: 2 } } } }, '/media/strategy/rollingUpdate', 'additionalProperties'],
  ['maxSurge neither a number nor a percentage', { registry: { strategy: { rollingUpdate: { maxSurge: 'one' } } } }, '/registry/strategy/rollingUpdate/maxSurge', 'pattern'],
  ['wrong type (string for the spread switch)', { registry: { spreadAcrossNodes: 'no' } }, '/registry/spreadAcrossNodes', 'type'],
  ['resources without limits', { registry: { resources: { limits: null } } }, '/registry/resources', 'required'],
  ['typo in webhooks', { webhooks: { timeout: 5000 } }, '/webhooks', 'additionalProperties'],
  ['webhook timeout below a second', { webhooks: { timeoutMs: 999 } }, '/webhooks/timeoutMs', 'minimum'],
  ['webhook retry schedule with a bad step', { webhooks: { retrySchedule: '5s,5 m' } }, '/webhooks/retrySchedule', 'pattern'],
  ['webhook retry schedule with a trailing comma', { webhooks: { retrySchedule: '5s,' } }, '/webhooks/retrySchedule', 'pattern'],
  ['webhook disable-after without a unit', { webhooks: { disableAfter: '5' } }, '/webhooks/disableAfter', 'pattern'],
  ['an allowed network that is not a CIDR', { webhooks: { allowedNetworks: ['10.0.0.0'] } }, '/webhooks/allowedNetworks/0', 'anyOf'],
  ['an allowed network with a bad prefix length', { webhooks: { allowedNetworks: ['10.0.0.0/33'] } }, '/webhooks/allowedNetworks/0', 'anyOf'],
  ['allowed networks as one comma-joined string', { webhooks: { allowedNetworks: '10.0.0.0/8,fd00::/8' } }, '/webhooks/allowedNetworks', 'type'],
  ['webhook attempts in flight of 0', { webhooks: { maxInFlight: 0 } }, '/webhooks/maxInFlight', 'minimum'],
  ['a webhook key that is not 44 characters', { webhooks: { secretKey: 'c2hvcnQ=' } }, '/webhooks/secretKey', 'anyOf'],
  ['a webhook key that is not base64', { webhooks: { secretKey: `${'!'.repeat(43)}=` } }, '/webhooks/secretKey', 'not'],
  ['a webhook port out of range', { networkPolicy: { webhookPorts: [70000] } }, '/networkPolicy/webhookPorts/0', 'maximum'],
  ['batch of no event', { gateway: { batchMaxEvents: 0 } }, '/gateway/batchMaxEvents', 'minimum'],
  ['batch above the gateway\'s most (1000)', { gateway: { batchMaxEvents: 1001 } }, '/gateway/batchMaxEvents', 'maximum'],
  ['occurred-at skew without a unit', { occurredAtMaxSkew: '300' }, '/occurredAtMaxSkew', 'pattern'],
  ['occurred-at skew as a number', { occurredAtMaxSkew: 300 }, '/occurredAtMaxSkew', 'type'],
  ['typo in the registry egress', { networkPolicy: { registryEgress: { postgress: {} } } }, '/networkPolicy/registryEgress', 'additionalProperties'],
];

describe('values.schema.json', () => {
  it('accepts values.yaml and every ci/*-values.yaml merged over it', () => {
    expect(validate(values), problems(validate.errors).join('\n')).toBe(true);
    for (const file of ['default-values.yaml', 'full-values.yaml']) {
      const merged = mergeValues(values, ciValues(file));
      expect(validate(merged), `${file}: ${problems(validate.errors).join('\n')}`).toBe(true);
    }
  });

  it.each(bad)('rejects %s, naming the path', (_, overrides, path, keyword) => {
    expect(validate(mergeValues(values, overrides))).toBe(false);
    const errors = validate.errors ?? [];
    expect(
      errors.some((e) => e.instancePath === path && e.keyword === keyword),
      `expected ${keyword} at "${path}", got:\n${problems(errors).join('\n')}`,
    ).toBe(true);
  });

  // helm 4 validates with another JSON-schema implementation than Ajv: it must refuse the same values.
  it.skipIf(!helmFound).each(bad)('helm refuses %s before rendering, naming the path', (_, overrides, path) => {
    expect(() => renderChart([overrides])).toThrow(new RegExp(`schema[\\s\\S]*at '${path}'`));
  });

  it('names the unknown key in an additionalProperties error', () => {
    validate(mergeValues(values, { gateway: { ingress: { clasName: 'nginx' } } }));
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/gateway/ingress', params: { additionalProperty: 'clasName' } }));
  });

  it('closes every object with named properties (additionalProperties: false) and describes every property', () => {
    const open: string[] = [];
    const undescribed: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${where}/${i}`));
      if (!isMapLike(node)) return;
      const object = node as JsonObject;
      if (isMapLike(object.properties)) {
        if (object.additionalProperties !== false) open.push(where);
        for (const [key, property] of Object.entries(object.properties as JsonObject)) {
          if (typeof (property as JsonObject).description !== 'string') undescribed.push(`${where}/properties/${key}`);
        }
      }
      // Conditions (if/then/else, anyOf) constrain objects described elsewhere; they are not objects of their own.
      for (const [key, child] of Object.entries(object)) if (!CONDITIONS.has(key)) visit(child, `${where}/${key}`);
    };
    visit(schema, '#');
    expect(open).toEqual([]);
    expect(undescribed).toEqual([]);
  });

  it('knows every key of values.yaml, and values.yaml sets every setting the chart owns', () => {
    const unknown = valuePaths(values, schema).filter((path) => !schemaAt(schema, path));
    expect(unknown.map((p) => p.join('.'))).toEqual([]);
    // Kubernetes types (security contexts, tolerations, ...) list optional fields values.yaml need not set.
    const kubernetesTypes = new Set(['podSecurityContext', 'containerSecurityContext', 'labelSelector', 'affinity']);
    const missing: string[] = [];
    const walk = (node: JsonObject, value: unknown, path: string[]): void => {
      const properties = resolveRef(schema, node).properties as JsonObject | undefined;
      if (!properties || !isMapLike(value)) return;
      for (const key of Object.keys(properties)) {
        const ref = String((properties[key] as JsonObject).$ref ?? '').replace('#/definitions/', '');
        if (!(key in (value as JsonObject))) missing.push([...path, key].join('.'));
        else if (!kubernetesTypes.has(ref)) walk(childSchema(schema, node, key) as JsonObject, (value as JsonObject)[key], [...path, key]);
      }
    };
    walk(schema, values, []);
    expect(missing).toEqual([]);
  });
});

const CONDITIONS = new Set(['if', 'then', 'else', 'anyOf', 'oneOf', 'allOf', 'not']);
const isMapLike = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

describe('values.yaml', () => {
  it('has a comment on every value (entries of free-form maps such as labels or resources excepted)', () => {
    const doc = parseDocument(readChartFile('values.yaml'));
    const uncommented: string[] = [];
    const walk = (map: YAMLMap, path: string[]): void => {
      const node = path.length === 0 ? schema : schemaAt(schema, path);
      if (path.length > 0 && (!node || isFreeFormMap(schema, node))) return;
      map.items.forEach((pair, index) => {
        if (!isScalar(pair.key)) throw new Error(`non-scalar key under ${path.join('.')}`);
        const key = String(pair.key.value);
        const value = pair.value as { comment?: string | null } | null;
        // The comment above a map's first key is attached to the map itself by the yaml parser.
        const commented = Boolean(pair.key.commentBefore || pair.key.comment || value?.comment || (index === 0 && map.commentBefore));
        if (!commented) uncommented.push([...path, key].join('.'));
        if (isMap(pair.value)) walk(pair.value as YAMLMap, [...path, key]);
      });
    };
    walk(doc.contents as YAMLMap, []);
    expect(uncommented).toEqual([]);
  });
});

describe('README.md values table', () => {
  const readmePath = join(CHART_DIR, 'README.md');
  const start = '<!-- values-table:start -->';
  const end = '<!-- values-table:end -->';

  it('is the table generated from values.yaml and the schema (UPDATE_HELM_README=1 rewrites it)', () => {
    const readme = readFileSync(readmePath, 'utf8');
    const table = valuesTable(values, schema);
    const block = readme.slice(readme.indexOf(start) + start.length, readme.indexOf(end)).trim();
    if (process.env.UPDATE_HELM_README === '1' && block !== table) {
      writeFileSync(readmePath, `${readme.slice(0, readme.indexOf(start) + start.length)}\n${table}\n${readme.slice(readme.indexOf(end))}`);
      return;
    }
    expect(readme.indexOf(start)).toBeGreaterThan(-1);
    expect(block).toBe(table);
  });

  it('lists every key of values.yaml', () => {
    const readme = readFileSync(readmePath, 'utf8');
    const listed = new Set([...readme.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]));
    expect(valuePaths(values, schema).map((p) => p.join('.')).filter((key) => !listed.has(key))).toEqual([]);
  });
});
