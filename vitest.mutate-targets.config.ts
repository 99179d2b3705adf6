import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for targets (issue 35): `core/api/targets.ts`, `core/api/target-views.ts`,
 * `core/frontends/mcp/targets.ts`, and the event log (`core/host/events/`). The in-process suites
 * that reach them: the targets unit tests, the daemon-of-two-targets suites, MCP's targets suite,
 * the event log's own and the API's event frames. Run with
 * MUTATE_TESTS=vitest.mutate-targets.config.ts npm run mutate -- --mutate 'core/api/targets.ts' ...
 * (docs/reliability.md, "Mutation testing", has the whole line).
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: [
      'tests/core/api/targets*.test.ts',
      'tests/core/api/event-frames.test.ts',
      'tests/core/daemon/targets/**/*.test.ts',
      'tests/core/frontends/mcp/targets*.test.ts',
      'tests/core/host/events/**/*.test.ts',
    ],
    // targets-workflow.test.ts spawns dist/, which Stryker does not mutate.
    exclude: [...(kernel.test?.exclude ?? []), 'tests/core/frontends/mcp/targets-workflow.test.ts'],
  },
});
