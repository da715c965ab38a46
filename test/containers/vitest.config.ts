import { defineConfig } from 'vitest/config';

// The container tests: only `npm run test:containers` runs them (test/containers/run.sh builds the
// images first and passes their names). One file at a time: each starts a whole stack of containers
// and the machine has two cores.
export default defineConfig({
  root: new URL('../..', import.meta.url).pathname,
  test: {
    include: ['test/containers/**/*.test.ts'],
    // helm renders the chart whose environment the containers run with (support/chart-env.ts).
    globalSetup: ['test/support/kube-tools-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
