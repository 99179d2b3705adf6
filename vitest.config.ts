import path from 'node:path';
import { defineConfig } from 'vitest/config';

const core = (file: string) => path.resolve(import.meta.dirname, 'core', file);

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
    include: ['tests/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration suites open real sockets and spawn real processes; two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
