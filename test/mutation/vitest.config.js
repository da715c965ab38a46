// Vitest config for Stryker: the repository's config, narrowed to the tests of the mutated modules.
import { defineConfig } from 'vitest/config';
import base from '../vitest.config.ts';
import { MUTATION_MODULES } from './stryker.config.js';

export default defineConfig({
  ...base,
  test: { ...base.test, include: [...new Set(MUTATION_MODULES.flatMap((module) => module.tests))] },
});
