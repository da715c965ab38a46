/**
 * The console's size budget: everything a browser downloads for it (page, script, stylesheet,
 * icon), each gzipped, in all at most BUNDLE_BUDGET_BYTES. build.mjs prints the figures and fails
 * above it, so a dependency that does not earn its bytes cannot slip in.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** 60 KB gzipped: the page stays quick to load on a phone. */
export const BUNDLE_BUDGET_BYTES = 60 * 1024;

/** Each file (relative to `dir`) with its gzipped size in bytes. */
export function gzippedSizes(dir, files) {
  return files.map((file) => [file, gzipSync(readFileSync(join(dir, file)), { level: 9 }).length]);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The total of `sizes`; throws when it is over the budget. */
export function checkBudget(sizes) {
  const total = sizes.reduce((sum, [, bytes]) => sum + bytes, 0);
  if (total > BUNDLE_BUDGET_BYTES) throw new Error(`console bundle is ${kb(total)} gzipped, over its budget of ${kb(BUNDLE_BUDGET_BYTES).replace('.0', '')}`);
  return total;
}
