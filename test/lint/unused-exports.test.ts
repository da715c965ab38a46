/** test/lint/unused-exports.js, run as `npm run lint` runs it, on repository trees written here. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./unused-exports.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'unused-exports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A two-workspace repository: a shared package with a subpath export, and a service using it. */
const BASE: Record<string, string> = {
  'package.json': JSON.stringify({ workspaces: ['proto', 'ingest-gateway'] }),
  'proto/package.json': JSON.stringify({
    name: '@x/proto',
    exports: { '.': { default: './dist/src/contract/index.js' }, './runtime': { default: './dist/src/runtime/index.js' } },
  }),
  'proto/src/contract/index.ts': "export { LIMIT, type Shape } from './limits.js';\nexport * from './rules.js';\n",
  'proto/src/contract/limits.ts': 'export const LIMIT = 3;\nexport interface Shape { size: number }\n',
  'proto/src/contract/rules.ts': 'export function rule(): boolean {\n  return true;\n}\n',
  'proto/src/runtime/index.ts': "export { createLogger } from './logger.js';\n",
  'proto/src/runtime/logger.ts': 'export function createLogger(): Console {\n  return console;\n}\n',
  'ingest-gateway/package.json': JSON.stringify({ name: '@x/gateway', exports: { './config': { default: './dist/config.js' } } }),
  'ingest-gateway/src/config.ts': 'export const PORT = 8080;\n',
  'ingest-gateway/src/main.ts': [
    "import { LIMIT, rule, type Shape } from '@x/proto';",
    "import { createLogger } from '@x/proto/runtime';",
    "import * as steps from './steps.js';",
    'const shape: Shape = { size: LIMIT };',
    'createLogger().log(rule(), shape, steps);',
    '',
  ].join('\n'),
  'ingest-gateway/src/steps.ts': 'export const first = 1;\nexport const second = 2;\n',
  'ingest-gateway/src/helper.ts': 'export function helper(): number {\n  return 1;\n}\n',
  // A unit test of the helper, and a script that reads the gateway's config from its build output.
  'ingest-gateway/test/helper.test.ts': "import { helper } from '../src/helper.js';\nhelper();\n",
  'test/check-config.js': "import { PORT } from '../ingest-gateway/dist/config.js';\nconsole.log(PORT);\n",
};

/** Exit code and stdout of the script on a fresh tree: BASE with `changes` (path → text) applied. */
async function lint(name: string, changes: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  const root = join(dir, name);
  for (const [path, text] of Object.entries({ ...BASE, ...changes })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return run(process.execPath, [SCRIPT, root]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
  );
}

describe('unused-exports lint', () => {
  it('passes when every export is imported: by package name, through an index and export *, as a namespace, by a test, from dist', async () => {
    expect(await lint('clean')).toEqual({ code: 0, stdout: '' });
  });

  it('flags an export only its own file uses', async () => {
    const { code, stdout } = await lint('in-file', {
      'ingest-gateway/src/helper.ts': 'export const BASE = 1;\nexport function helper(): number {\n  return BASE;\n}\n',
    });
    expect(code).toBe(1);
    expect(stdout.trim()).toBe('ingest-gateway/src/helper.ts: BASE');
  });

  it('flags a name an index re-exports when no caller imports it, in the index and in its own file', async () => {
    const { code, stdout } = await lint('index', {
      'proto/src/runtime/index.ts': "export { createLogger, LEVEL } from './logger.js';\n",
      'proto/src/runtime/logger.ts': "export const LEVEL = 'info';\nexport function createLogger(): Console {\n  return console;\n}\n",
    });
    expect(code).toBe(1);
    expect(stdout.trim().split('\n')).toEqual(['proto/src/runtime/index.ts: LEVEL', 'proto/src/runtime/logger.ts: LEVEL']);
  });

  it('flags an unused type and a name that export * passes on but nobody imports', async () => {
    const { code, stdout } = await lint('types', {
      'proto/src/contract/limits.ts': 'export const LIMIT = 3;\nexport interface Shape { size: number }\nexport type Unused = string;\n',
      'proto/src/contract/rules.ts': 'export function rule(): boolean {\n  return true;\n}\nexport const RULE_NAME = "rule";\n',
    });
    expect(code).toBe(1);
    expect(stdout.trim().split('\n')).toEqual(['proto/src/contract/limits.ts: Unused', 'proto/src/contract/rules.ts: RULE_NAME']);
  });
});
