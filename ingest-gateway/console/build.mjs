#!/usr/bin/env node
/**
 * Builds the settings console into dist/: src/main.tsx bundled and minified by esbuild with
 * src/styles.css, both under content-hashed names in dist/assets/, and dist/index.html pointing at
 * them (and the icon, hashed the same way). index.html loads them as files (no inline script or style: the gateway's CSP allows only
 * 'self'); the asset URLs are relative, so the page works under any platform segment. Prints the
 * gzipped size of what a browser downloads and fails above its budget (bundle-budget.mjs). `npm run
 * build` runs it after `tsc -b`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { checkBudget, gzippedSizes } from './bundle-budget.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, 'dist');

rmSync(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: here,
  entryPoints: { app: 'src/main.tsx', styles: 'src/styles.css' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: 'dist/assets',
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs);
const named = (ext) => {
  const file = outputs.find((path) => path.endsWith(ext));
  if (!file) throw new Error(`esbuild wrote no ${ext} file`);
  return file;
};
const script = named('.js');
const styles = named('.css');
// The page names its icon, so the browser does not ask for /favicon.ico outside the console's path.
const iconBytes = readFileSync(join(here, 'src/icon.svg'));
const icon = `dist/assets/icon-${createHash('sha256').update(iconBytes).digest('hex').slice(0, 8).toUpperCase()}.svg`;
writeFileSync(join(here, icon), iconBytes);
const html = readFileSync(join(here, 'index.html'), 'utf8')
  .replace('%SCRIPT%', `assets/${basename(script)}`)
  .replace('%STYLES%', `assets/${basename(styles)}`)
  .replace('%ICON%', `assets/${basename(icon)}`);
writeFileSync(join(dist, 'index.html'), html);

const sizes = gzippedSizes(here, ['dist/index.html', script, styles, icon]);
for (const [path, bytes] of sizes) console.log(`console: ${basename(path)} ${(bytes / 1024).toFixed(1)} KB gzipped`);
try {
  console.log(`console: ${(checkBudget(sizes) / 1024).toFixed(1)} KB gzipped in all`);
} catch (err) {
  console.error(`console: ${err.message}`);
  process.exitCode = 1;
}
