import path from 'node:path';
import { defineConfig } from 'vitest/config';

const core = (file: string) => path.resolve(import.meta.dirname, 'core', file);

/**
 * Files that spawn processes (the CLI, daemons, npm, tsc) or build on dist/: the slow part of the
 * suite. `npm test` runs every file; `npm run test:fast` (the `fast` project) leaves these out
 * for a quick loop while working, and needs no build.
 */
const SPAWNING = [
  'tests/{compat,package,layout,faults}/**/*.test.ts',
  'tests/core/daemon/config/**/*.test.ts',
  'tests/core/frontends/cli/**/*.test.ts',
  'tests/core/frontends/mcp/{http,inspector,stdio}.test.ts',
  'tests/integration/activity-log.test.ts',
  'tests/plugins/{fork-cli,publishable,restore-cli,restore-doc-workflow}.test.ts',
  'tests/plugins/webhook/{config-entry,daemon-spool,no-leak,spool-faults,standalone}.test.ts',
];
const ALL = ['tests/**/*.test.ts', 'examples/**/*.test.ts'];
const IGNORED = ['**/node_modules/**', '**/dist/**'];

export default defineConfig({
  resolve: {
    // The package's own entry points, as plugins and third parties import them, served from the
    // sources so a test and the plugin under test share one copy of each module.
    alias: [
      { find: /^mcbridge$/, replacement: core('index.ts') },
      { find: /^mcbridge\/kit$/, replacement: core('kit/index.ts') },
      { find: /^mcbridge\/testing$/, replacement: core('testing/index.ts') },
      { find: /^mcbridge\/client$/, replacement: core('api/client.ts') },
      { find: /^mcbridge\/sim$/, replacement: core('sim/index.ts') },
    ],
  },
  test: {
    projects: [
      { extends: true, test: { name: 'fast', include: ALL, exclude: [...IGNORED, ...SPAWNING] } },
      { extends: true, test: { name: 'processes', include: SPAWNING, exclude: IGNORED } },
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration suites open real sockets and spawn real processes; two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
