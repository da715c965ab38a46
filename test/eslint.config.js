// ESLint flat config for the whole repository (kept under test/ so the top level stays as agreed).
// `basePath: repoRoot` makes every pattern below relative to the repository root.
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export default tseslint.config(
  { basePath: repoRoot, ignores: ['**/node_modules/**', '**/dist/**', 'proto/src/contract/gen/**', '**/.data/**', 'coverage/**'] },
  {
    basePath: repoRoot,
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', fetch: 'readonly', structuredClone: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', performance: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Only a service's main.ts reads the environment; everything else gets config passed in.
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read process.env only in main.ts and pass config down.' }],
      // Small files with one job, short functions (the house rules). Tests too: a describe callback longer
      // than this is split by concern (generated code, dist and coverage are ignored above).
      'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // The settings console runs in the browser (bundled by ingest-gateway/console/build.mjs).
    basePath: repoRoot,
    files: ['ingest-gateway/console/src/**/*'],
    languageOptions: {
      globals: { document: 'readonly', location: 'readonly', navigator: 'readonly', addEventListener: 'readonly', removeEventListener: 'readonly', getSelection: 'readonly', TextDecoderStream: 'readonly', URLSearchParams: 'readonly', Response: 'readonly', HTMLDialogElement: 'readonly', Event: 'readonly' },
    },
  },
  {
    basePath: repoRoot,
    files: ['*/src/main.ts', 'test/**/*', '*/test/**/*', 'deploy/**/*', 'proto/scripts/**/*'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
