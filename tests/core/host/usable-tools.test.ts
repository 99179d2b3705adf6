import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callError, makeHost, plugin, stopHostsAfterEach, tool } from '../../support/host.js';

// Whether a tool may be called is remembered between calls (usable-tools.ts); nothing that
// changes the answer may be missed, or a policy could be bypassed by calling fast.
stopHostsAfterEach();

describe('the remembered answer to "may this tool be called"', () => {
  it('is forgotten when the policy changes, also inside a batch whose revision comes at its end', async () => {
    const host = makeHost([plugin('p', [tool('open', { annotations: { readOnly: true } }), tool('writes')], { requires: { caps: [] } })]);
    await expect(host.call('writes', {})).resolves.toBeNull();
    const revision = host.registry.revision;
    await host.registry.batch(async () => {
      host.registry.setPolicy({ deny: ['writes'] });
      expect(host.registry.revision).toBe(revision); // not yet: the batch has not ended
      expect((await callError(host.call('writes', {}))).code).toBe('tool_disabled');
      await expect(host.call('open', {})).resolves.toBeNull();
    });
    host.registry.setPolicy({ readOnly: true });
    expect((await callError(host.call('writes', {}))).code).toBe('tool_disabled');
    host.registry.setPolicy({});
    await expect(host.call('writes', {})).resolves.toBeNull();
  });

  it('is forgotten when a plugin leaves and another brings a tool of the same name', async () => {
    const host = makeHost([plugin('first', [tool('twin', { run: async () => 'first' })], { requires: { caps: [] } })]);
    await expect(host.call('twin', {})).resolves.toBe('first');
    host.registry.unregisterPlugin('first');
    expect((await callError(host.call('twin', {}))).code).toBe('unknown_method');
    await host.use(plugin('second', [tool('twin', { requires: ['entities'], run: async () => 'second' })]));
    // The idle host assumes the default CAPS, which have 'entities': the new tool is asked about afresh.
    await expect(host.call('twin', {})).resolves.toBe('second');
  });

  it('reads `{}` as the schema does: a default in the schema is still applied', async () => {
    let seen: unknown;
    const host = makeHost([
      plugin(
        'p',
        [
          tool('defaults', {
            input: z.object({ limit: z.number().default(10) }),
            run: async (args) => {
              seen = args;
              return null;
            },
          }),
          tool('nothing', {
            input: z.object({}).strict(),
            run: async (args) => {
              seen = args;
              return null;
            },
          }),
        ],
        { requires: { caps: [] } },
      ),
    ]);
    await host.call('defaults', {});
    expect(seen).toEqual({ limit: 10 });
    await host.call('nothing', {});
    expect(seen).toEqual({});
    expect((await callError(host.call('nothing', { extra: 1 }))).code).toBe('invalid_params');
  });
});
