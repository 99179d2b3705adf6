import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for plugins/restore/ and plugins/fork/ (issue 24's last paragraph):
 * their in-process suites, on the simulated mod; the CLI, MCP and daemon-process suites are left
 * out (they read dist/, which Stryker's sandbox does not rebuild per mutant). Run with
 * MUTATE_TESTS=vitest.mutate-worldops.config.ts npm run mutate -- --mutate 'plugins/restore/**\/*.ts'
 * (and again for plugins/fork/).
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: [
      'tests/plugins/restore.test.ts',
      'tests/plugins/restore-parts.test.ts',
      'tests/plugins/restore-compare.test.ts',
      'tests/plugins/restore-existing.test.ts',
      'tests/plugins/restore-verify.test.ts',
      'tests/plugins/restore-roundtrip.test.ts',
      'tests/plugins/fork.test.ts',
      'tests/plugins/fork-world.test.ts',
      'tests/plugins/snapshot.test.ts',
      'tests/faults/restore-faults.test.ts',
      'tests/faults/fork-faults.test.ts',
      'tests/faults/fork-hung.test.ts',
      'tests/faults/fork-disk-full.test.ts',
    ],
    exclude: kernel.test?.exclude ?? [],
  },
});
