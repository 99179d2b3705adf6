import { defineConfig } from 'vitest/config';
import kernel from './vitest.mutate.config.js';

/**
 * The tests Stryker runs for the control link's pure parts (frames, limits, liveness, reading,
 * credential, trust, requests, event-stream; issue 35): their unit suites only. Every control
 * suite opens sessions through these files, so with the whole control set
 * (vitest.mutate-control.config.ts) each surviving mutant reran about 80 socket tests, 30 s and
 * more, and four files' 180 mutants were heading for 70 min; here a mutant costs about a second,
 * and what it reports is a lower bound. Run with
 * MUTATE_TESTS=vitest.mutate-control-parts.config.ts npm run mutate -- --mutate 'core/host/link/control/frames.ts,...'.
 */
export default defineConfig({
  ...kernel,
  test: {
    ...kernel.test,
    include: ['tests/core/host/link/control/frames.test.ts', 'tests/core/host/link/control/*-parts.test.ts'],
    exclude: kernel.test?.exclude ?? [],
    // One copy of core's modules for every file (as in vitest.mutate-control.config.ts).
    isolate: false,
  },
});
