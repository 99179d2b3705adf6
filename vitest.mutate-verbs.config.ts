import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for `core/host/registry/verb-table.ts` alone (README, "Mutation
 * testing"): the registry's and the host's, and the link's declared-verb tests. Every link test
 * looks verbs up through the table, so with the whole kernel set each mutant reran the link suite
 * (about 40 min for the file); with fewer tests a mutant can only survive more often, so the score
 * measured this way is a lower bound.
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/core/host/registry/**/*.test.ts', 'tests/core/host/*.test.ts', 'tests/core/host/link/declared-verbs.test.ts'],
  },
});
