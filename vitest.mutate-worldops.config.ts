import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for plugins/restore/ (issue 24's last paragraph): its in-process suites,
 * on the simulated mod, and the in-memory MCP one; the CLI and daemon-process suites are left out
 * (they read dist/, which Stryker's sandbox does not rebuild per mutant). The fork suites have
 * their own set (vitest.mutate-fork.config.ts): here they only lengthened the first run. Run with
 * MUTATE_TESTS=vitest.mutate-worldops.config.ts npm run mutate -- --mutate 'plugins/restore/**\/*.ts'.
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
      'tests/plugins/restore-mcp.test.ts',
      'tests/plugins/restore-guard.test.ts',
      'tests/plugins/restore-endpoint.test.ts',
      'tests/plugins/restore-answers.test.ts',
      'tests/faults/restore-faults.test.ts',
    ],
    exclude: kernel.test?.exclude ?? [],
  },
});
