import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for the control link's sessions (`control-link.ts`, `session.ts`; issue
 * 35): the in-process suites against a hostile control server of the test's making
 * (tests/support/hostile-control.ts), which answers in milliseconds, and the parts' unit suites.
 * Left out: the suites against the sim's whole stack (control-link, trust, write-tools: a daemon
 * and a sim per test, about 1 s each), which a surviving mutant would rerun every one of, and
 * write-ledger.test.ts, which tests writes.ts. The control fault suites under tests/faults/ spawn
 * daemons from dist/, which Stryker does not mutate. So the score is a lower bound. Run with
 * MUTATE_TESTS=vitest.mutate-control.config.ts npm run mutate -- --mutate 'core/host/link/control/control-link.ts,core/host/link/control/session.ts' ...
 * (docs/reliability.md, "Mutation testing", has the whole line; the pure parts:
 * vitest.mutate-control-parts.config.ts).
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: [
      'tests/core/host/link/control/frames.test.ts',
      'tests/core/host/link/control/*-parts.test.ts',
      'tests/core/host/link/control/{link-surface,link-lifecycle,link-deadlines,link-writes,session-open,hostile-server,hostile-welcome,hostile-stream,silent-server,write-outcomes}.test.ts',
    ],
    exclude: kernel.test?.exclude ?? [],
    // One copy of core's modules for every file, as `npm test`'s unit project has it: a mutant's
    // run then imports nothing again (each file imported the whole host, about 5 s on a loaded machine).
    isolate: false,
  },
});
