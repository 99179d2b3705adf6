/**
 * Raw mod fields that mean nothing to a user stay out of results (issue 27): WAIT's `detail` is
 * always "ticks=0" whatever was waited, and STATE's `samePortSpike` describes an experimental
 * transport the mod says to ignore (mod-protocol §1, §2.11).
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

  it('state leaves out samePortSpike and keeps control, which the output schema describes', async () => {
    const stack = await stacks.start();
    const state = (await stack.client.call('state')) as Record<string, unknown>;
    expect(state).toMatchObject({ type: 'state', control: { enabled: false } });
    expect(state).not.toHaveProperty('samePortSpike');
  });
});
