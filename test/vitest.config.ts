import { defineConfig } from 'vitest/config';

// test/containers/ needs built images, test/console/ a browser: `npm run test:containers` and
// `npm run test:console` run them with their own configs.
const EXCLUDE = ['**/node_modules/**', '**/dist/**', 'test/containers/**', 'test/console/**'];
// The chart and manifest checks: pure functions of the chart (helm and kubectl in child processes),
// no mocks, fake timers or environment changes. Each file pays 1-9 s importing kubernetes-models and
// the chart helpers in a fresh process; sharing the workers' module cache between these files is
// what isolate: false saves (test/deploy alone: 65-82 s -> 28-33 s measured back to back).
const SHARED_MODULES = ['test/deploy/**/*.test.ts'];

// One config for the whole repository (root is the repository, not test/).
export default defineConfig({
  root: new URL('..', import.meta.url).pathname,
  test: {
    exclude: EXCLUDE,
    // helm and kubectl for the chart and manifest tests (test/support/get-kube-tool.sh).
    globalSetup: ['test/support/kube-tools-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // Integration tests start real processes and databases; two cores do not gain from more.
    maxWorkers: 2,
    // A project inherits the options above (extends: true), arrays such as include concatenated, so
    // each names its own files.
    projects: [
      { extends: true, test: { name: 'isolated', include: ['*/test/**/*.test.ts', 'test/**/*.test.ts'], exclude: SHARED_MODULES } },
      { extends: true, test: { name: 'deploy', include: SHARED_MODULES, isolate: false } },
    ],
  },
});
