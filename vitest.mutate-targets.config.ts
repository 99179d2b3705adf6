import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for targets (issue 35): `core/api/targets.ts`, `core/api/target-views.ts`
 * and `core/frontends/mcp/targets.ts`. The in-process suites that reach them: the targets unit
 * tests, the daemon-of-two-targets suites and MCP's targets suites (the event log has its own set,
 * vitest.mutate-events.config.ts). Run with
 * MUTATE_TESTS=vitest.mutate-targets.config.ts npm run mutate -- --mutate 'core/api/targets.ts' ...
 * (docs/reliability.md, "Mutation testing", has the whole line).
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/core/api/target{s,-views}.test.ts', 'tests/core/daemon/targets/**/*.test.ts', 'tests/core/frontends/mcp/targets*.test.ts'],
    // targets-workflow.test.ts spawns dist/, which Stryker does not mutate.
    exclude: [...(kernel.test?.exclude ?? []), 'tests/core/frontends/mcp/targets-workflow.test.ts'],
  },
});
