import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for the targets' routing and views (issue 35): `core/api/targets.ts`,
 * `core/api/target-views.ts` and `core/frontends/mcp/targets.ts`, against their unit suites
 * alone, so a score is a lower bound (the daemon suites of tests/core/daemon/targets/ reach the
 * same code at about 10 s a mutant on this machine). Run with
 * MUTATE_TESTS=vitest.mutate-targets.config.ts npm run mutate -- --mutate core/api/targets.ts ...
 * (docs/reliability.md, "Mutation testing", has the whole line).
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/core/api/{targets-rules,target-views}.test.ts', 'tests/core/frontends/mcp/target-argument.test.ts'],
    exclude: kernel.test?.exclude ?? [],
  },
});
