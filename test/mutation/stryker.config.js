// Stryker (mutation testing) over the hostile-input core: `npm run test:mutation`.
// Paths are relative to the repository root, where the npm script runs.
import { readFileSync } from 'node:fs';

/**
 * The modules under mutation and the unit tests that exercise them: the one list to extend (the
 * vitest config beside this file runs exactly these tests). Only fast tests that need no servers
 * belong here: a test runs again for every mutant it covers. `from` limits a module to the code
 * from the first line holding that text to the end of the file.
 */
export const MUTATION_MODULES = [
  {
    source: 'ingest-gateway/src/ingest/validation.ts',
    tests: ['ingest-gateway/test/validation.test.ts', 'ingest-gateway/test/validation-rules.test.ts'],
  },
  {
    source: 'ingest-gateway/src/ingest/base64.ts',
    tests: ['ingest-gateway/test/base64.test.ts', 'ingest-gateway/test/base64-edges.test.ts', 'ingest-gateway/test/image-cut.test.ts'],
  },
  { source: 'ingest-gateway/src/ingest/image-cut.ts', tests: ['ingest-gateway/test/image-cut.test.ts'] },
  {
    // The pure functions only: the body reading above them is covered over HTTP by http-body-format.test.ts.
    source: 'ingest-gateway/src/ingest/json-body.ts',
    from: 'export function assertJsonContentType',
    tests: ['ingest-gateway/test/json-nesting.test.ts', 'ingest-gateway/test/json-body.test.ts'],
  },
  {
    source: 'media-service/src/domain/image-sniff.ts',
    tests: ['media-service/test/image-sniff.test.ts', 'media-service/test/image-sniff-edges.test.ts', 'media-service/test/image-structure.test.ts'],
  },
  {
    source: 'media-service/src/domain/image-structure.ts',
    tests: ['media-service/test/image-structure.test.ts', 'media-service/test/image-sniff.test.ts', 'media-service/test/image-sniff-edges.test.ts'],
  },
  // The shared rules in proto: only tests importing proto's sources by path see the mutants (the
  // services' tests import @dynamic-events/proto, i.e. its build, which Stryker does not mutate).
  { source: 'proto/src/contract/event-rules.ts', tests: ['proto/test/event-rules.test.ts'] },
  { source: 'proto/src/contract/strict-utf8.ts', tests: ['proto/test/strict-utf8.test.ts'] },
  { source: 'proto/src/runtime/safe-error.ts', tests: ['proto/test/safe-error.test.ts', 'proto/test/safe-message.test.ts'] },
  { source: 'proto/src/contract/idempotency-key.ts', tests: ['proto/test/idempotency-key.test.ts'] },
  { source: 'ingest-gateway/src/ingest/idempotency-key.ts', tests: ['ingest-gateway/test/idempotency-key-read.test.ts'] },
];

/** A module as Stryker's `mutate` wants it: the file, or `file:first-last` lines when `from` is set. */
function mutateEntry({ source, from }) {
  if (from === undefined) return source;
  const lines = readFileSync(source, 'utf8').split('\n');
  const first = lines.findIndex((line) => line.includes(from)) + 1;
  if (first === 0) throw new Error(`${source} has no line holding "${from}": update MUTATION_MODULES`);
  return `${source}:${first}-${lines.length}`;
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.js', related: false },
  mutate: MUTATION_MODULES.map(mutateEntry),
  coverageAnalysis: 'perTest',
  // Two cores shared with other work.
  concurrency: 2,
  // Later runs re-test only mutants whose code or covering tests changed (the file is not committed).
  incremental: true,
  incrementalFile: 'coverage/mutation/incremental.json',
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'coverage/mutation/index.html' },
  jsonReporter: { fileName: 'coverage/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
