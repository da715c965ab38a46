/** test/lint/import-cycles.js, run as `npm run lint` runs it, on source trees written here. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./import-cycles.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Exit code and stdout of the script on a fresh tree of `files` (path → text), run from that tree. */
async function lint(name: string, files: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return run(process.execPath, [SCRIPT, 'src'], { cwd: root }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
  );
}

describe('import-cycles lint', () => {
  it('passes an acyclic tree, whatever its comments and package imports say', async () => {
    const result = await lint('acyclic', {
      'src/main.ts': "import { a } from './feature/a.js';\nimport { b } from './feature/b.js';\nexport const main = a + b;\n",
      'src/feature/a.ts': "import type { Shared } from '../shared.js';\nimport { x } from '@scope/pkg';\nexport const a: Shared = x;\n",
      // Text that looks like an import back to main, in a comment and a string: not an import.
      'src/feature/b.ts': "// import { main } from '../main.js';\nexport const b = \"import { main } from '../main.js'\".length;\n",
      'src/shared.ts': 'export type Shared = number;\n',
    });
    expect(result).toEqual({ code: 0, stdout: '' });
  });

  it('flags two files that import each other, type-only imports included', async () => {
    const { code, stdout } = await lint('pair', {
      'src/context.ts': "import type { Body } from './middleware/json-body.js';\nexport interface State { body?: Body }\n",
      'src/middleware/json-body.ts': "import type { State } from '../context.js';\nexport type Body = unknown;\nexport const read = (s: State) => s;\n",
    });
    expect(code).toBe(1);
    expect(stdout.trim()).toBe('import cycle: src/context.ts → src/middleware/json-body.ts → src/context.ts');
  });

  it('flags a longer cycle through re-exports and import(), once, naming the other members of its set', async () => {
    const { code, stdout } = await lint('ring', {
      'src/a.ts': "export { b } from './b.js';\nexport const a = 1;\n",
      'src/b.ts': "export const b = async () => (await import('./c.js')).c;\n",
      'src/c.ts': "import { a } from './a.js';\nimport { d } from './d.js';\nexport const c = a + d;\n",
      'src/d.ts': "import { c } from './c.js';\nexport const d = 2 + Number(c);\n",
      'src/leaf.ts': "import { a } from './a.js';\nexport const leaf = a;\n",
    });
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    expect(lines).toEqual(['import cycle: src/a.ts → src/b.ts → src/c.ts → src/a.ts (with src/d.ts)']);
  });

  it('flags a file that imports itself', async () => {
    const { code, stdout } = await lint('self', { 'src/self.ts': "import './self.js';\nexport const self = 1;\n" });
    expect(code).toBe(1);
    expect(stdout).toContain('import cycle: src/self.ts → src/self.ts');
  });
});
