import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs against each mutant of the webhook plugin
 * (`MUTATE_TESTS=vitest.mutate-webhook.config.ts npm run mutate -- --mutate 'plugins/webhook/**\/*.ts'`):
 * the in-process ones, with the kernel run's timeouts. The suites that spawn a daemon or
 * `mcbridge forward` run dist/, which Stryker does not mutate: they could kill nothing.
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    // Instrumented, the test of a receiver that hangs took over 10 s on this machine.
    testTimeout: 30_000,
    include: [
      'tests/plugins/webhook/engine.test.ts',
      'tests/plugins/webhook/body.test.ts',
      'tests/plugins/webhook/receiver.test.ts',
      'tests/plugins/webhook/config.test.ts',
      'tests/plugins/webhook/service.test.ts',
      // The service stopped and started within one daemon run (host.remove, host.use).
      'tests/plugins/webhook/service-restart.test.ts',
      // Two targets in process: each target's spool name.
      'tests/plugins/webhook/target-spool.test.ts',
      'tests/plugins/webhook/spool.test.ts',
      'tests/plugins/webhook/standalone.test.ts',
      'tests/plugins/webhook/forward.test.ts',
      // The receiver kit (receiver.ts, verify) against the example receiver users copy.
      'tests/plugins/webhook/example-receiver.test.ts',
    ],
  },
});
