import path from 'node:path';
import { defineConfig } from 'vitest/config';

const core = (file: string) => path.resolve(import.meta.dirname, 'core', file);

/**
 * Three projects, each file in exactly one (`npx vitest list --filesOnly` shows each file once):
 * - `unit`: files that open no daemon, sim or socket stack, spawn nothing and start no compiler:
 *   the loop to run after every edit (`npm run test:unit`, seconds);
 * - `stacks`: everything else that needs no build (daemon, sim and MCP stacks in-process);
 * - `processes`: files that spawn processes (the CLI, daemons, npm, tsc) or build on dist/.
 * `npm test` runs all three; `npm run test:fast` runs `unit` and `stacks`, with no build.
 * `unit` files share their workers' modules (`isolate: false`): importing core once per worker
 * instead of once per file is most of its time (88 s isolated, 24 s shared, on a loaded machine).
 * A unit file that leaves global state behind belongs in `stacks`.
 */
const UNIT = [
  'tests/core/api/{activity-log,connection-guard,event-frames,request-line,target-views,targets-rules}.test.ts',
  'tests/core/frontends/mcp/{projection,prompts,stdio-transport,target-argument,tool-schemas}.test.ts',
  'tests/core/host/{cancel,host-call,usable-tools}.test.ts',
  'tests/core/host/{events,link,registry}/**/*.test.ts',
  'tests/core/{kit,util}/**/*.test.ts',
  'tests/core/sim/{faults,java-format,restore-commands,server-verbs,snapshot}.test.ts',
  'tests/plugins/{crash-policy,restore-compare,restore-parts}.test.ts',
  'tests/plugins/webhook/{config,engine,spool}.test.ts',
  'tests/types/**/*.test.ts',
];
const SPAWNING = [
  'tests/{compat,package,layout,faults}/**/*.test.ts',
  'tests/core/daemon/config/**/*.test.ts',
  'tests/core/frontends/cli/**/*.test.ts',
  'tests/core/frontends/mcp/{http,http-other-user,inspector,stdio,targets-workflow}.test.ts',
  'tests/integration/activity-log.test.ts',
  'tests/plugins/{fork-cli,publishable,restore-cli,restore-doc-workflow,server-journal,server-process,targets-workflow}.test.ts',
  'tests/plugins/webhook/{config-entry,daemon-spool,no-leak,spool-faults,standalone,targets}.test.ts',
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
      { extends: true, test: { name: 'unit', include: UNIT, exclude: IGNORED, isolate: false } },
      { extends: true, test: { name: 'stacks', include: ALL, exclude: [...IGNORED, ...UNIT, ...SPAWNING] } },
      { extends: true, test: { name: 'processes', include: SPAWNING, exclude: IGNORED } },
    ],
    // Each test file's daemons keep their write ledgers in a temporary folder of its own.
    setupFiles: ['tests/support/state-dir.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration suites open real sockets and spawn real processes; two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
