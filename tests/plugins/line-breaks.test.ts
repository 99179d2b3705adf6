/**
 * Text with a line break (issue 27): the predecessor turned each CR and LF of a parameter into a
 * space. Free text (chat, mark) is folded the same way; a command with a break inside is refused,
 * because folding would run one command with the next one's words as arguments
 * (docs/compatibility.md).
 */
import { describe, expect, it } from 'vitest';
import { expectInvalidParams, sentSince, useStacks } from '../support/plugins.js';

const stacks = useStacks();

describe('line breaks in text parameters', () => {
  it('mark folds each CR and LF to a space, as the predecessor did', async () => {
    const stack = await stacks.start();
    const before = stack.sim.received.length;
    await stack.client.call('mark', { text: 'phase\r\ntwo\nbegins\n' });
    expect(sentSince(stack, before)).toEqual(['MARK phase  two begins']);
  });

  it('chat folds them too', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const before = stack.sim.received.length;
    const ack = (await stack.client.call('chat', { message: 'hello\nthere' })) as Record<string, unknown>;
    expect(sentSince(stack, before)).toEqual(['CHAT hello there']);
    expect(ack).toMatchObject({ type: 'chat_ack' });
  });

  it('a command keeps a trailing line break trimmed, and refuses one inside, sending nothing', async () => {
    const stack = await stacks.start();
    const before = stack.sim.received.length;
    await stack.client.call('command', { command: 'time query daytime\n' });
    expect(sentSince(stack, before)).toEqual(['CMD time query daytime']);
    await expectInvalidParams(stack, [
      ['command', { command: 'give @p diamond\n64' }, /single line/],
      ['command_output', { command: 'say a\r\nsay b' }, /single line/],
    ]);
  });
});
