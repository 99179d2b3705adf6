import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for the event log (`core/host/events/`) alone (issue 35): its own unit
 * suites and the API's event frames. Every daemon, link and targets suite records events too, so
 * with them each mutant reran dozens of daemon tests; with fewer tests a mutant can only survive
 * more often, so the score measured this way is a lower bound. Run with
 * MUTATE_TESTS=vitest.mutate-events.config.ts npm run mutate -- --mutate 'core/host/events/**\/*.ts'.
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/core/host/events/**/*.test.ts', 'tests/core/api/event-frames.test.ts'],
    exclude: kernel.test?.exclude ?? [],
  },
});
