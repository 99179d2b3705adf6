import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests Stryker runs against each mutant of the kernel (stryker.config.mjs): the ones that
 * exercise the mod link, the event log, the registry and policy, config reload, the MCP
 * projection and the MCP protocol layer, all in-process (no spawned CLI, nothing read from
 * dist/), so a run stays bounded and works in Stryker's sandbox copy of the project. `npm test`
 * never reads this file.
 */
// `npm test`'s projects (vitest.config.ts) would each bring their own file list and run instead
// of the `include` below: every mutant would rerun the whole fast suite.
const { projects: _everyTest, ...baseTest } = base.test ?? {};

export default defineConfig({
  ...base,
  test: {
    ...baseTest,
    // A mutant that makes a test wait forever fails it here, instead of costing Stryker a timeout
    // and a fresh test runner. Alone the slowest of these tests takes about 2 s; 5 s was too
    // tight for the config-reload tests on a loaded machine (a timeout would count as a kill).
    testTimeout: 10_000,
    hookTimeout: 10_000,
    // The kernel's own tests, the reload tests and the projection's; the MCP and config-plugin
    // integration suites (a daemon per test) are left out: a surviving mutant runs every test that
    // covers it, and with them one took a minute on this machine.
    include: [
      'tests/core/host/**/*.test.ts',
      // The link's fault tests that run in-process: a mod answering twice, mod restarts.
      'tests/faults/link-duplicate-replies.test.ts',
      'tests/faults/link-restarts.test.ts',
      'tests/core/daemon/config/reload.test.ts',
      'tests/core/daemon/config/runtime.test.ts',
      'tests/core/daemon/config/watch.test.ts',
      'tests/core/daemon/config/policy.test.ts',
      'tests/core/daemon/config/composite-annotations.test.ts',
      'tests/core/frontends/mcp/projection.test.ts',
      // The MCP protocol layer and its stdio transport, on in-process transports.
      'tests/core/frontends/mcp/protocol.test.ts',
      'tests/core/frontends/mcp/stdio-transport.test.ts',
    ],
    // Reads the kernel's source text, which Stryker has rewritten with every mutant in it.
    exclude: [...(baseTest.exclude ?? []), 'tests/core/host/no-plugin-knowledge.test.ts'],
  },
});
