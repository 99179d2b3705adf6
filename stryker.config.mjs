// Mutation testing of the kernel: `npm run mutate` (not part of `npm test`; see docs/decisions.md).
// One area while working: npm run mutate -- --mutate 'core/host/link/**/*.ts'
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // MUTATE_TESTS names another test set (vitest.mutate-verbs.config.ts for the verb table).
  vitest: { configFile: process.env.MUTATE_TESTS ?? 'vitest.mutate.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner', './stryker-log-ignorer.mjs'],
  ignorers: ['logger-calls'],
  mutate: [
    'core/host/link/**/*.ts',
    'core/host/events/**/*.ts',
    'core/host/registry/**/*.ts',
    'core/daemon/config/runtime.ts',
    'core/frontends/mcp/projection.ts',
    'core/frontends/mcp/protocol.ts',
    'core/frontends/mcp/stdio.ts',
    'core/frontends/mcp/jsonrpc.ts',
  ],
  coverageAnalysis: 'perTest',
  // Two cores shared with other work: one mutant at a time.
  concurrency: 1,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  ignoreStatic: true,
  // Vitest does not type-check, so Stryker's `// @ts-nocheck` header buys nothing; on every file it
  // broke the test that docs/webhooks.md prints examples/webhook-receiver.mjs byte for byte.
  disableTypeChecks: false,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  timeoutMS: 15000,
  thresholds: { high: 90, low: 85, break: null },
};
