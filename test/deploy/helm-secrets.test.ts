// A chart value that is a secret (a token, a connection string with its password, an S3 key, the
// webhook key) is still refused when it is malformed, and helm's refusal names the value's path,
// never the value: a JSON-schema `pattern` (or `format`, `enum`, `const`) error prints the value, so the schema
// checks secrets with `not` and lengths only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, chartSchema, isMap, type Json, type JsonObject } from '../support/chart-files.js';
import { KUBE_VERSION, renderChart } from '../support/helm.js';
import { kubeTool, requireKubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const SECRET_MARK = "stored in the release's Secret";
const ECHOING = ['pattern', 'format', 'enum', 'const'];

/** Each secret value of the chart, a malformed value holding a recognisable secret, and the path helm must name. */
const malformed: [string, JsonObject, string, string][] = [
  ['a short admin token', { gateway: { auth: { adminToken: 'short-Sekr1t' } } }, '/gateway/auth/adminToken', 'Sekr1t'],
  ['an admin token with a space', { gateway: { auth: { adminToken: `adm1n-Sekr2t ${'x'.repeat(32)}` } } }, '/gateway/auth/adminToken', 'Sekr2t'],
  ['a bootstrap token with a space', { gateway: { auth: { token: 'tok Sekr3t' } } }, '/gateway/auth/token', 'Sekr3t'],
  ['a short internal credential', { internalAuth: { token: 'short-Sekr8t' } }, '/internalAuth/token', 'Sekr8t'],
  ['a database URL of another scheme', { postgres: { url: 'mysql://app:Sekr4t@db/events' } }, '/postgres/url', 'Sekr4t'],
  ['a Redis URL of another scheme', { redis: { url: 'memcached://:Sekr5t@cache:11211' } }, '/redis/url', 'Sekr5t'],
  ['an S3 access key that is a number', { s3: { accessKey: 90417731 } }, '/s3/accessKey', '90417731'],
  ['an S3 secret key that is a list', { s3: { secretKey: ['Sekr6t'] } }, '/s3/secretKey', 'Sekr6t'],
  ['a webhook key of the wrong length', { webhooks: { secretKey: 'U2VrcjlaSekr9t' } }, '/webhooks/secretKey', 'Sekr9t'],
  ['a webhook key that is not base64', { webhooks: { secretKey: `Sekr0t-${'A'.repeat(36)}=` } }, '/webhooks/secretKey', 'Sekr0t'],
];

/** The schema's secret values: every property whose description says it is stored in the release's Secret. */
function secretProperties(node: Json, path: string[] = []): [string, JsonObject][] {
  if (!isMap(node)) return [];
  const properties = (node.properties ?? {}) as JsonObject;
  return Object.entries(properties).flatMap(([key, child]) => {
    const here = [...path, key];
    const own: [string, JsonObject][] = isMap(child) && String(child.description ?? '').includes(SECRET_MARK) ? [[here.join('.'), child as JsonObject]] : [];
    return [...own, ...secretProperties(child, here)];
  });
}

/** Keywords whose error prints the value, outside a `not` (a failed `not` prints only "'not' failed"). */
function echoingKeywords(node: Json, where = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => echoingKeywords(item, `${where}/${i}`));
  if (!isMap(node)) return [];
  return Object.entries(node).flatMap(([key, child]) => {
    if (key === 'not') return [];
    return [...(ECHOING.includes(key) ? [`${where}/${key}`] : []), ...echoingKeywords(child, `${where}/${key}`)];
  });
}

/** helm's refusal (template or lint), or a failure when helm accepted the values. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('helm accepted the values');
}

describe('secret values in values.schema.json', () => {
  it('are the tokens, the connection strings and the S3 keys', () => {
    expect(secretProperties(chartSchema()).map(([path]) => path).sort()).toEqual(
      ['gateway.auth.adminToken', 'gateway.auth.token', 'internalAuth.token', 'postgres.url', 'redis.url', 's3.accessKey', 's3.secretKey', 'webhooks.secretKey'].sort(),
    );
  });

  it('are checked without a keyword whose error prints the value', () => {
    for (const [path, node] of secretProperties(chartSchema())) expect(echoingKeywords(node), path).toEqual([]);
  });
});

describe.skipIf(!helmFound)('helm refusing a malformed secret', () => {
  it.each(malformed)('%s: helm template names the path, not the value', (_, values, path, secret) => {
    const message = refusal(() => renderChart([values]));
    expect(message).toMatch(new RegExp(`schema[\\s\\S]*at '${path}'`));
    expect(message).not.toContain(secret);
  });

  it.each(malformed)('%s: helm lint --strict names the path, not the value', (_, values, path, secret) => {
    const dir = mkdtempSync(join(tmpdir(), 'helm-secret-'));
    try {
      const file = join(dir, 'values.yaml');
      writeFileSync(file, JSON.stringify(values));
      // lint reports on stdout and sums up on stderr: both are what a user sees.
      const lint = spawnSync(requireKubeTool('helm'), ['lint', '--strict', CHART_DIR, '--kube-version', KUBE_VERSION, '-f', file], { encoding: 'utf8', timeout: 60_000 });
      expect(lint.status).not.toBe(0);
      expect(lint.stdout).toContain(`at '${path}'`);
      expect(`${lint.stdout}${lint.stderr}`).not.toContain(secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
