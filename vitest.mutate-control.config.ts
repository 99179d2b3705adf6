import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for the control link (`core/host/link/control/`, issue 35): its own
 * in-process suites, each against the sim's control server or a hostile one of the test's making
 * (tests/support/hostile-control.ts). The control fault suites under tests/faults/ spawn daemons
 * from dist/, which Stryker does not mutate: they could kill nothing. Run with
 * MUTATE_TESTS=vitest.mutate-control.config.ts npm run mutate -- --mutate 'core/host/link/control/frames.ts' ...
 * (docs/reliability.md, "Mutation testing", has the whole line).
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/core/host/link/control/**/*.test.ts'],
    exclude: kernel.test?.exclude ?? [],
  },
});
