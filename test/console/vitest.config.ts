import { defineConfig } from 'vitest/config';

// The browser tests of the settings console: only `npm run test:console` runs them (`.ci/run` installs
// Debian's chromium first), so `npm test` needs no browser. One file at a time: each drives a
// Chromium against a stack it starts, and the machine has two cores.
export default defineConfig({
  root: new URL('../..', import.meta.url).pathname,
  test: {
    include: ['test/console/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
