#!/usr/bin/env node
// Regenerates the committed ts-proto output from the .proto sources with buf and the local plugin.
// `--check` generates into a scratch directory and fails if the committed files differ (CI runs this).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const protoDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const buf = join(protoDir, '..', 'node_modules', '.bin', 'buf');
const genDir = join('src', 'contract', 'gen');

function listFiles(dir) {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? listFiles(path) : [path];
    })
    .sort();
}

/** Runs buf generate; `--output` prefixes the template's out dir, so the plugin path stays valid. */
function generate(outputBase) {
  rmSync(join(outputBase, genDir), { recursive: true, force: true });
  execFileSync(buf, ['generate', '--output', outputBase], { cwd: protoDir, stdio: 'inherit' });
}

if (!process.argv.includes('--check')) {
  generate(protoDir);
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), 'proto-check-'));
try {
  generate(scratch);
  const files = new Set(
    [...listFiles(join(scratch, genDir)).map((f) => relative(scratch, f)),
     ...listFiles(join(protoDir, genDir)).map((f) => relative(protoDir, f))],
  );
  const stale = [...files].filter((file) => {
    try {
      return !readFileSync(join(scratch, file)).equals(readFileSync(join(protoDir, file)));
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(`proto: generated code is out of date, run \`npm run proto\`:\n  ${stale.join('\n  ')}`);
    process.exit(1);
  }
  console.log('proto: generated code is up to date');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
