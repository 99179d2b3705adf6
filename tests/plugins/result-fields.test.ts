/**
 * Raw mod fields that mean nothing to a user stay out of results or are named (issue 27): WAIT's
 * `detail` is always "ticks=0" whatever was waited, so it is left out; STATE is passed through as
 * the mod wrote it, so its transport diagnostics are described in the output schema.
 */
import { describe, expect, it } from 'vitest';
import { useStacks } from '../support/plugins.js';

const stacks = useStacks();

describe('results without meaningless mod fields', () => {
  it('wait says how many ticks it waited, without the mod\'s "ticks=0" detail', async () => {
    const stack = await stacks.start();
    const waited = (await stack.client.call('wait', { ticks: 1 })) as Record<string, unknown>;
    expect(waited).toMatchObject({ type: 'wait_ack', ticks: 1 });
    expect(waited).not.toHaveProperty('detail');
  });

  it("state passes the mod's reply through as written, and its schema names samePortSpike and control", async () => {
    const stack = await stacks.start();
    const state = (await stack.client.call('state')) as Record<string, unknown>;
    expect(state).toMatchObject({ type: 'state', control: { enabled: false }, samePortSpike: { enabled: false } });
    const tool = stack.daemon.host.manifest().tools.find((t) => t.name === 'state')!;
    const properties = (tool.outputSchema as { properties: Record<string, { description?: string }> }).properties;
    expect(properties.samePortSpike!.description).toMatch(/experimental/);
    expect(properties.control!.description).toMatch(/control protocol/);
  });
});
