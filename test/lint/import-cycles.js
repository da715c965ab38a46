#!/usr/bin/env node
/**
 * Fails on an import cycle inside a package's sources. Two files that import each other cannot be
 * read, moved or owned apart: the cycle says one concern is split over two files, or that a type
 * lives with the wrong one. `npm run lint` runs this over every package's src/ and deploy/local/;
 * `node test/lint/import-cycles.js DIR…` checks the given folders instead. Prints each cycle as
 * `a.ts → b.ts → a.ts`, exits 1.
 *
 * The graph holds every relative module specifier a file names: `import`, `import type`,
 * `export … from` and `import()`. Type-only imports count: they vanish from the emitted JavaScript,
 * but they tie the two files' folders together just the same. Package imports
 * (`@dynamic-events/proto`) are left out: `tsc -b` project references already refuse a cycle
 * between packages. Each set of files that reach one another (a strongly connected component) is
 * reported once, with one cycle through it and the rest of the set.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders `npm run lint` checks, from the repository root. */
export const ROOTS = ['proto/src', 'ingest-gateway/src', 'ingest-gateway/console/src', 'registry-service/src', 'media-service/src', 'deploy/local'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);
const SOURCE = /\.(?:ts|tsx|mts|js|mjs)$/;

function sourceFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...sourceFiles(path));
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      files.push(path);
    }
  }
  return files;
}

/** Every module specifier `text` names: static imports and re-exports (type-only too) and `import()`. */
export function specifiersOf(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The source file a relative specifier names (`./x.js` is `x.ts` under NodeNext), or undefined. */
function resolveRelative(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const target = resolve(dirname(from), specifier);
  const candidates = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target.replace(/\.mjs$/, '.mts'), `${target}.ts`, join(target, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** file → the files it imports, over every source file under `roots`. */
export function importGraph(roots) {
  const graph = new Map();
  for (const root of roots) {
    for (const file of sourceFiles(root)) {
      const targets = specifiersOf(file, readFileSync(file, 'utf8'))
        .map((specifier) => resolveRelative(file, specifier))
        .filter((target) => target !== undefined);
      graph.set(file, [...new Set(targets)].sort());
    }
  }
  return graph;
}

/** Tarjan's strongly connected components, each sorted, in a stable order. */
function components(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const connect = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node), index.get(target)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found;
}

/** The shortest path from `start` back to itself through `members`: one cycle of the component. */
function cycleThrough(graph, start, members) {
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** Every import cycle under `roots`: { cycle: [a, b, a], members: [a, b] }, paths as given. */
export function findImportCycles(roots) {
  const graph = importGraph(roots);
  return components(graph)
    .filter((members) => members.length > 1 || (graph.get(members[0]) ?? []).includes(members[0]))
    .map((members) => ({ cycle: cycleThrough(graph, members[0], new Set(members)), members }));
}

function main(args) {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const roots = args.length > 0 ? args.map((dir) => resolve(dir)) : ROOTS.map((dir) => join(root, dir));
  const shown = (path) => relative(args.length > 0 ? process.cwd() : root, path);
  const cycles = findImportCycles(roots);
  for (const { cycle, members } of cycles) {
    const others = members.filter((member) => !cycle.includes(member));
    const rest = others.length > 0 ? ` (with ${others.map(shown).join(', ')})` : '';
    console.log(`import cycle: ${cycle.map(shown).join(' → ')}${rest}`);
  }
  if (cycles.length === 0) return 0;
  console.error(
    `\n${cycles.length} import cycle(s). Move what both files need (often a type) to the file that owns it, ` +
      'or to a third file both import.',
  );
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
