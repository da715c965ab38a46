/**
 * Each package README's "What lives where" names every source file there is, under its own folder,
 * and no file that is not there: a file added, moved or removed without its line fails.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/stack.js';
import { PACKAGES, layoutProblems, type PackageLayout } from './package-layout.js';

const readmeOf = (layout: PackageLayout): string => readFileSync(`${REPO_ROOT}${layout.dir}/README.md`, 'utf8');
const problemsOf = (layout: PackageLayout, readme = readmeOf(layout)): string[] => layoutProblems(readme, `${REPO_ROOT}${layout.dir}`, layout);
const gateway = PACKAGES.find((layout) => layout.dir === 'ingest-gateway')!;

describe('package READMEs: what lives where', () => {
  it.each(PACKAGES.map((layout) => [layout.dir, layout] as const))('%s/README.md names every source file, each under its folder', (_dir, layout) => {
    expect(problemsOf(layout)).toEqual([]);
  });

  it('fails when a file exists that its folder\'s item does not name', () => {
    const readme = readmeOf(gateway).replace('`chunk-queue.ts`', 'the chunk queue');
    expect(problemsOf(gateway, readme)).toEqual(['src/watch/chunk-queue.ts: exists, but its folder\'s item does not name it']);
  });

  it('fails when a file is named under another folder than its own', () => {
    const readme = readmeOf(gateway).replace('`token-sync.ts` (that copy', '`token-sync.ts`, `watch-hub.ts` (that copy');
    expect(problemsOf(gateway, readme)).toEqual(['src/tokens/watch-hub.ts: named, but no such file']);
  });

  it('fails on a folder, a file or a cited path that does not exist, and on a folder without an item', () => {
    const lines = readmeOf(gateway).split('\n');
    const watch = lines.findIndex((line) => line.startsWith('- `src/watch/`'));
    expect(watch).toBeGreaterThan(0);
    lines.splice(watch, 0, '- `src/feeds/`: `feed.ts`, as `src/feeds/feed.ts` says.');
    const withGhosts = lines.join('\n');
    expect(problemsOf(gateway, withGhosts)).toEqual(['src/feeds/: named, but no such folder', 'src/feeds/feed.ts: cited, but no such file']);
    const withoutApi = readmeOf(gateway).replace(/^- `src\/api\/`/m, '- The API shapes,');
    expect(problemsOf(gateway, withoutApi)).toEqual(['src/api/: a folder of source files with no item of its own']);
  });

  it('fails without the section', () => {
    expect(problemsOf(gateway, readmeOf(gateway).replace('## What lives where', '## Layout'))).toEqual(['no "## What lives where" section']);
  });
});
