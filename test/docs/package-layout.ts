/**
 * Reads a package README's "What lives where" section and compares it with the files on disk.
 * The section is a list with one item per folder: the item starts with the folder's path from the
 * package root in backticks (`src/http/`), and names each file of that folder in backticks by its
 * bare name (`app.ts`). A path into the checked folders that ends in a file name
 * (`src/config.ts`) is a reference to a file elsewhere and must exist too; a folder path
 * (`src/tokens/`) and anything outside the checked folders is free text.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A package whose README is checked: its folder, and the folders under it whose files it must name. */
export interface PackageLayout {
  dir: string;
  roots: string[];
  /** Folders (from the package root) left out of the walk: generated code, named only as a folder. */
  skipped?: string[];
}

/** Every package README that has a "What lives where" section, from the repository root. */
export const PACKAGES: PackageLayout[] = [
  { dir: 'proto', roots: ['src', 'dynamic_events', 'scripts'], skipped: ['src/contract/gen'] },
  { dir: 'ingest-gateway', roots: ['src', 'console'], skipped: ['console/dist', 'console/screenshots'] },
  { dir: 'registry-service', roots: ['src'] },
  { dir: 'media-service', roots: ['src'] },
  { dir: 'deploy', roots: ['local'], skipped: ['local/dist'] },
];

const SECTION = /^## What lives where\s*$/m;
const SOURCE = /\.(?:ts|tsx|mts|js|mjs|proto)$/;
const BARE_FILE = /^[\w.-]+\.(?:ts|tsx|mts|js|mjs|proto|sql|json)$/;
const TOKEN = /`([^`\n]+)`/g;

/** folder (from the package root, with a trailing slash) → the source files directly in it. */
function filesOnDisk(packageDir: string, layout: PackageLayout): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const skipped = new Set(layout.skipped ?? []);
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(packageDir, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skipped.has(path)) walk(path);
      } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        found.set(`${folder}/`, [...(found.get(`${folder}/`) ?? []), entry.name]);
      }
    }
  };
  layout.roots.forEach(walk);
  return found;
}

/** The section's list items (continuation lines joined), up to the next heading. */
function listItems(readme: string): string[] | undefined {
  const start = readme.search(SECTION);
  if (start < 0) return undefined;
  const body = readme.slice(start).split('\n').slice(1);
  const end = body.findIndex((line) => line.startsWith('## '));
  const items: string[] = [];
  let open = false;
  for (const line of end < 0 ? body : body.slice(0, end)) {
    if (line.startsWith('- ')) {
      items.push(line);
      open = true;
    } else if (line.trim() === '') {
      open = false;
    } else if (open) {
      items[items.length - 1] += ` ${line.trim()}`;
    }
  }
  return items;
}

/** folder → the bare file names its item names, and every path with a slash the section cites. */
function namedInReadme(items: string[], roots: string[]): { folders: Map<string, Set<string>>; paths: string[] } {
  const folders = new Map<string, Set<string>>();
  const paths: string[] = [];
  for (const item of items) {
    const tokens = [...item.matchAll(TOKEN)].map((match) => match[1]!);
    const folder = tokens[0];
    if (!folder?.endsWith('/') || !item.startsWith(`- \`${folder}\``)) continue;
    const names = folders.get(folder) ?? new Set<string>();
    for (const token of tokens.slice(1)) {
      if (BARE_FILE.test(token)) names.add(token);
      else if (roots.some((root) => token.startsWith(`${root}/`)) && BARE_FILE.test(token.slice(token.lastIndexOf('/') + 1))) paths.push(token);
    }
    folders.set(folder, names);
  }
  return { folders, paths };
}

/** What the README's "What lives where" gets wrong about the package in `packageDir`; empty when it holds. */
export function layoutProblems(readme: string, packageDir: string, layout: PackageLayout): string[] {
  const items = listItems(readme);
  if (!items) return ['no "## What lives where" section'];
  const { folders, paths } = namedInReadme(items, layout.roots);
  const onDisk = filesOnDisk(packageDir, layout);
  const problems: string[] = [];
  for (const [folder, files] of onDisk) {
    const named = folders.get(folder);
    if (!named) problems.push(`${folder}: a folder of source files with no item of its own`);
    else for (const file of files) if (!named.has(file)) problems.push(`${folder}${file}: exists, but its folder's item does not name it`);
  }
  for (const [folder, names] of folders) {
    if (!existsSync(join(packageDir, folder)) || !statSync(join(packageDir, folder)).isDirectory()) {
      problems.push(`${folder}: named, but no such folder`);
      continue;
    }
    const files = onDisk.get(folder) ?? [];
    for (const name of names) if (!files.includes(name)) problems.push(`${folder}${name}: named, but no such file`);
  }
  for (const path of paths) if (!existsSync(join(packageDir, path))) problems.push(`${path}: cited, but no such file`);
  return problems.sort();
}
