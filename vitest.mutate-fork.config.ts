import { defineConfig } from 'vitest/config';
import worldops from './vitest.mutate-worldops.config.js';

/**
 * The tests Stryker runs for plugins/fork/ alone: the in-process fork suites (issue 24). The
 * restore suites of vitest.mutate-worldops.config.ts never reach fork's code and would only make
 * the dry run longer. Run with
 * MUTATE_TESTS=vitest.mutate-fork.config.ts npm run mutate -- --mutate 'plugins/fork/**\/*.ts'.
 */
export default defineConfig({
  ...worldops,
  test: {
    ...worldops.test,
    include: ['tests/plugins/fork.test.ts', 'tests/plugins/fork-world.test.ts', 'tests/faults/fork-faults.test.ts', 'tests/faults/fork-hung.test.ts', 'tests/faults/fork-disk-full.test.ts'],
  },
});
