/**
 * The launcher (deploy/local) is TypeScript, built by `tsc -b` with the services, and uses another
 * package only through that package's public entries (`exports` in its package.json): never its
 * build output or its source files by path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/stack.js';

const LAUNCHER = join(REPO_ROOT, 'deploy', 'local');

/** The launcher's own files (not its build output). */
function sources(dir = LAUNCHER): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' || entry.name === 'node_modules' ? [] : sources(path);
    return [relative(LAUNCHER, path)];
  });
}

const readJson = (path: string) => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as Record<string, unknown>;

/** Every module specifier a file imports (static and dynamic imports with a literal). */
function imports(file: string): string[] {
  const text = readFileSync(join(LAUNCHER, file), 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'([^']+)'/g)].map((match) => match[1]!);
}

describe('the launcher', () => {
  it('is TypeScript built through deploy/local/tsconfig.json, which the root build references, and npm start runs its build', () => {
    const files = sources();
    expect(files).toContain('start.ts');
    expect(files.filter((file) => !file.endsWith('.ts') && file !== 'tsconfig.json')).toEqual([]);
    // tsconfig.json has comments: not JSON.
    expect(readFileSync(join(REPO_ROOT, 'tsconfig.json'), 'utf8')).toMatch(/"references":[^\]]*\{ "path": "\.\/deploy\/local" \}/);
    expect((readJson('package.json').scripts as Record<string, string>).start).toBe('exec node deploy/local/dist/start.js');
  });

  it('imports other packages only through their public entries, never a file outside deploy/local by path', () => {
    for (const file of sources().filter((name) => name.endsWith('.ts'))) {
      for (const specifier of imports(file)) {
        if (specifier.startsWith('.')) {
          const target = relative(LAUNCHER, resolve(LAUNCHER, file, '..', specifier));
          expect(target.startsWith('..'), `${file} imports ${specifier}`).toBe(false);
          continue;
        }
        const match = /^@dynamic-events\/([^/]+)(\/.*)?$/.exec(specifier);
        if (!match) continue;
        const [, name, subpath] = match;
        const exported = Object.keys(readJson(`${name}/package.json`).exports as Record<string, unknown>);
        expect(exported, `${file} imports ${specifier}`).toContain(subpath === undefined ? '.' : `.${subpath}`);
      }
    }
  });
});
