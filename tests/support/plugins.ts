import { afterEach, expect } from 'vitest';
import { startTestHost, STEVE_UUID, type PlayerSpec, type SimOptions, type TestHost } from 'mcbridge/testing';
import type { McbridgeConfig } from 'mcbridge';
import { failure } from './errors.js';

/**
 * Helpers for the built-in plugins' tests. They use only 'mcbridge' and 'mcbridge/testing', as a
 * third party's plugin tests would.
 */
export type Stack = TestHost;

export { failure };

export interface StackOptions {
  sim?: SimOptions;
  /** Events kept for replay. */
  buffer?: number;
  /** A config (the built-ins' entries, such as `fork`). */
  config?: McbridgeConfig;
}

/** One stack per test, closed after it: `const s = await stacks.start({...})`. */
export function useStacks(): { start(options?: StackOptions): Promise<Stack> } {
  const open: Stack[] = [];
  afterEach(async () => {
    for (const stack of open.splice(0)) await stack.close();
  });
  return {
    start: async (options = {}) => {
      const config = options.buffer || options.config ? { ...options.config, ...(options.buffer ? { buffer: options.buffer } : {}) } : undefined;
      const stack = await startTestHost({ sim: options.sim, config });
      open.push(stack);
      return stack;
    },
  };
}

/** Lines the sim received since `from`, for "what was sent to the game" assertions. */
export function sentSince(stack: Stack, from: number): string[] {
  return stack.sim.received.slice(from);
}

export const ALEX_UUID = '6a1e0d2c-4b3f-4e5a-8c7d-9e0f1a2b3c4d';

/** Steve at the default spot and Alex next to him (or where `alex` says). */
export function steveAndAlex(alex: Partial<PlayerSpec> = {}): PlayerSpec[] {
  return [
    { name: 'Steve', uuid: STEVE_UUID, x: 0.5, y: 64, z: 0.5 },
    { name: 'Alex', uuid: ALEX_UUID, x: 3.5, y: 64, z: 0.5, ...alex },
  ];
}

/**
 * Each call must fail with `invalid_params` and a message matching its pattern, and none of
 * them may reach the game.
 */
export async function expectInvalidParams(stack: Stack, cases: Array<readonly [string, Record<string, unknown>, RegExp]>): Promise<void> {
  const before = stack.sim.received.length;
  for (const [tool, params, message] of cases) {
    const err = await failure(stack.client.call(tool, params));
    expect(err.code, `${tool} ${JSON.stringify(params)}`).toBe('invalid_params');
    expect(err.message, `${tool} ${JSON.stringify(params)}`).toMatch(message);
  }
  expect(sentSince(stack, before)).toEqual([]);
}
