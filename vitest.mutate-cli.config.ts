import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for the CLI's exit-code paths (issue 24): `exit.ts`, `main.ts`, and the
 * lines of `doctor.ts`, `call.ts` and `program.ts` that set `process.exitCode`. Only the
 * in-process suites: the CLI suites that spawn dist/ run code Stryker does not mutate. Run with
 * MUTATE_TESTS=vitest.mutate-cli.config.ts npm run mutate -- --mutate core/frontends/cli/exit.ts ...
 * (docs/reliability.md, "Mutation testing", has the whole line).
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/core/frontends/cli/exit-codes.test.ts', 'tests/core/frontends/cli/quick-call.test.ts'],
    exclude: kernel.test?.exclude ?? [],
  },
});
