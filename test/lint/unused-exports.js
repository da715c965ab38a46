#!/usr/bin/env node
/**
 * Fails on an exported name that no other file imports. An export is a promise that something
 * outside the file needs the name; one nobody imports widens the file's surface for nothing, and a
 * package index that re-exports it offers callers a name no caller uses. `npm run lint` runs this
 * over every package's src/ (generated code aside) and deploy/local/; `node
 * test/lint/unused-exports.js ROOT` checks a tree laid out the same way instead. Prints
 * `file: name` for each unused export, exits 1.
 *
 * A name counts as used when a file other than its own imports it: a static import (type-only
 * too), a re-export that is itself used, `import * as`, or `import()` of the file (both count as a
 * use of every name). The importers are every source file and test in the repository, .js
 * scripts included: a name a test imports is used. Imports by package name
 * (`@dynamic-events/proto/runtime`) follow each workspace's `exports`, and imports of a build
 * output (`…/dist/…js`) count for the source file it is built from.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Folders whose files' exports must be used; generated code is left out. */
const OWNER_ROOTS = ['proto/src', 'ingest-gateway/src', 'ingest-gateway/console/src', 'registry-service/src', 'media-service/src', 'deploy/local'];
const GENERATED = /\/proto\/src\/contract\/gen\//;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git']);
const SOURCE = /\.(?:ts|tsx|mts|js|mjs)$/;
const ALL = '*';

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Workspace package name and subpath → the source file its `exports` entry is built from. */
function packageEntries(root) {
  const entries = new Map();
  const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const workspace of workspaces) {
    const manifest = JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8'));
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const built = typeof target === 'string' ? target : target.default;
      const source = fromBuildOutput(join(root, workspace, built));
      if (source) entries.set(join(manifest.name, subpath), source);
    }
  }
  return entries;
}

const isFile = (path) => existsSync(path) && statSync(path).isFile();

/** The source file of `path`: itself, its .ts twin, or for `…/dist/…` the file it is built from. */
function fromBuildOutput(path) {
  const twins = (p) => [p, p.replace(/\.js$/, '.ts'), p.replace(/\.js$/, '.tsx'), p.replace(/\.mjs$/, '.mts'), `${p}.ts`, join(p, 'index.ts')];
  const candidates = twins(path);
  if (path.includes('/dist/')) {
    for (const swap of ['/src/', '/']) candidates.push(...twins(path.replace(/\/dist\/(?:src\/)?/, swap)));
  }
  return candidates.find((candidate) => !candidate.includes('/dist/') && isFile(candidate));
}

/** What a file exports and imports: { exports: Map(name → {from, name}|null), imports: [{from, names}] }. */
export function moduleFacts(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const exports = new Map();
  const imports = [];
  const exported = (node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const names = [];
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push(ALL);
      if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => (e.propertyName ?? e.name).text));
      imports.push({ from: statement.moduleSpecifier.text, names });
    } else if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : undefined;
      const clause = statement.exportClause;
      if (!clause) exports.set(`${ALL}:${from}`, { from, name: ALL });
      else if (ts.isNamespaceExport(clause)) exports.set(clause.name.text, { from, name: ALL });
      else for (const e of clause.elements) exports.set(e.name.text, from ? { from, name: (e.propertyName ?? e.name).text } : null);
    } else if (ts.isExportAssignment(statement)) {
      exports.set('default', null);
    } else if (exported(statement)) {
      const isDefault = (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      if (isDefault) exports.set('default', null);
      else if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) bindingNames(d.name).forEach((n) => exports.set(n, null));
      else if (statement.name && ts.isIdentifier(statement.name)) exports.set(statement.name.text, null);
    }
  }
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      imports.push({ from: node.arguments[0].text, names: [ALL] });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const first = node.qualifier && (ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.left);
      imports.push({ from: node.argument.literal.text, names: [first && ts.isIdentifier(first) ? first.text : ALL] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { exports, imports };
}

function bindingNames(name) {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** Every { file, name } exported under the owner roots that no other file uses, sorted. */
export function findUnusedExports(root) {
  const entries = packageEntries(root);
  const resolveFrom = (file, specifier) => {
    if (specifier.startsWith('./') || specifier.startsWith('../')) return fromBuildOutput(resolve(dirname(file), specifier));
    return entries.get(specifier);
  };
  const facts = new Map();
  const factsOf = (file) => {
    if (!facts.has(file)) facts.set(file, moduleFacts(file, readFileSync(file, 'utf8')));
    return facts.get(file);
  };
  const owners = OWNER_ROOTS.flatMap((dir) => sourceFiles(join(root, dir))).filter((file) => !GENERATED.test(file));
  const used = new Set();
  const queue = [];
  const use = (file, name) => {
    const key = `${file}\0${name}`;
    if (used.has(key)) return;
    used.add(key);
    queue.push([file, name]);
  };
  for (const file of sourceFiles(root)) {
    for (const { from, names } of factsOf(file).imports) {
      const target = resolveFrom(file, from);
      if (target && target !== file) names.forEach((name) => use(target, name));
    }
  }
  // A used re-export uses what it names; a use of every name (`*`) uses each export and each `export *`.
  while (queue.length > 0) {
    const [file, name] = queue.shift();
    const { exports } = factsOf(file);
    for (const [exportedName, origin] of exports) {
      if (!origin) continue;
      const wildcard = exportedName.startsWith(`${ALL}:`);
      if (name !== ALL && exportedName !== name && !(wildcard && !exports.has(name))) continue;
      const target = resolveFrom(file, origin.from);
      if (target) use(target, wildcard ? name : origin.name);
    }
  }
  const unused = [];
  for (const file of owners) {
    if (used.has(`${file}\0${ALL}`)) continue;
    for (const name of factsOf(file).exports.keys()) {
      if (!name.startsWith(`${ALL}:`) && !used.has(`${file}\0${name}`)) unused.push({ file: relative(root, file), name });
    }
  }
  return unused.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

function main(args) {
  const root = args[0] ? resolve(args[0]) : fileURLToPath(new URL('../..', import.meta.url));
  const unused = findUnusedExports(root);
  for (const { file, name } of unused) console.log(`${file}: ${name}`);
  if (unused.length === 0) return 0;
  console.error(
    `\n${unused.length} export(s) nothing else imports. Drop the \`export\` when the file uses the name itself, ` +
      'delete it when nothing does, and take it out of the package index when no caller imports it from there.',
  );
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
