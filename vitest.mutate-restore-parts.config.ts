import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for restore's pure parts (validate, plan, input, compare, collisions,
 * float-text, snbt-top, names, turns): the unit suites only. Every restore on the simulated mod
 * also reads, validates and plans a recording, so with the whole restore set each of these mutants
 * ran about 80 integration tests (a run of 700 mutants was heading for two hours); here a mutant
 * costs about a second, and what it reports is a lower bound. Run with
 * MUTATE_TESTS=vitest.mutate-restore-parts.config.ts npm run mutate -- --mutate 'plugins/restore/validate.ts,...'.
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/plugins/restore-parts.test.ts', 'tests/plugins/restore-compare.test.ts', 'tests/plugins/restore-rules.test.ts', 'tests/plugins/restore-compare-edges.test.ts'],
    exclude: kernel.test?.exclude ?? [],
  },
});
