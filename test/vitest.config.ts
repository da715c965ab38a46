import { defineConfig } from 'vitest/config';

// One config for the whole repository (root is the repository, not test/).
export default defineConfig({
  root: new URL('..', import.meta.url).pathname,
  test: {
    include: ['*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // test/containers/ needs built images, test/console/ a browser: `npm run test:containers` and
    // `npm run test:console` run them with their own configs.
    exclude: ['**/node_modules/**', '**/dist/**', 'test/containers/**', 'test/console/**'],
    // helm and kubectl for the chart and manifest tests (test/support/get-kube-tool.sh).
    globalSetup: ['test/support/kube-tools-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // Integration tests start real processes and databases; two cores do not gain from more.
    maxWorkers: 2,
  },
});
