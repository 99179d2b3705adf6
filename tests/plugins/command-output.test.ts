import { describe, expect, it } from 'vitest';
import { expectInvalidParams, failure, sentSince, useStacks } from '../support/plugins.js';

const stacks = useStacks();

describe('command_output on the server vantage', () => {
  it('returns the ack output and sends CMD <command> verbatim', async () => {
    const stack = await stacks.start();
    const before = stack.sim.received.length;
    const result = (await stack.client.call('command_output', { command: 'data get entity Steve Motion' })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CMD data get entity Steve Motion']);
    expect(result).toMatchObject({ type: 'command_output', command: 'data get entity Steve Motion', source: 'ack', truncated: false });
    expect(result.output).toHaveLength(1);
    expect(result.output[0]).toMatch(/^Steve has the following entity data: \[0\.0d, -0\.0784000015258789d, 0\.0d\]$/);
  });

  it('strips one leading slash like the mod and reports a failing command as output, not an error', async () => {
    const stack = await stacks.start();
    const result = (await stack.client.call('command_output', { command: '/frobnicate now' })) as Record<string, any>;
    expect(result.command).toBe('frobnicate now');
    expect(result.source).toBe('ack');
    expect(result.output[0]).toMatch(/Unknown or incomplete command/);
  });

  it('gives a cursor from before the command: events after it hold the game lines it caused', async () => {
    const stack = await stacks.start();
    const result = (await stack.client.call('command_output', { command: 'time query daytime' })) as Record<string, any>;
    // The game events go through the mod's asynchronous sink: wait for the first one after the cursor.
    const game = (await stack.client.call('wait_for', { match: { category: 'game' }, since: result.cursor, timeout_ms: 5_000 })) as any;
    expect(game.matched).toBe(true);
    const texts = [game.event.text];
    expect(texts[0]).toBe(result.output[0]);
  });
});

describe('command_output on the client vantage', () => {
  it('collects the game lines received after the command (source events)', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const before = stack.sim.received.length;
    const result = (await stack.client.call('command_output', { command: 'time query daytime', wait: 5 })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CMD time query daytime']);
    expect(result).toMatchObject({ type: 'command_output', command: 'time query daytime', source: 'events', truncated: false });
    expect(result.output).toHaveLength(1);
    expect(result.output[0]).toMatch(/^The time is \d+$/);
    expect(result.note).toMatch(/unrelated messages/);
  });

  it('ends early once the lines stop, well before the wait window', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    // A 30 s window: a call that sat it out would outlast the test's own timeout.
    const result = (await stack.client.call('command_output', { command: 'time query gametime', wait: 30 })) as Record<string, any>;
    expect(result.output).toHaveLength(1);
  });

  it('counts chat lines too: say comes back to the client as chat', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const said = (await stack.client.call('command_output', { command: 'say hello there', wait: 2 })) as Record<string, any>;
    expect(said.output).toEqual(['[Steve] hello there']);
  });

  it('returns an empty output after the whole window when nothing comes back', async () => {
    const caps = ['state', 'entities', 'command', 'chat', 'wait', 'mark'];
    const stack = await stacks.start({ sim: { vantage: 'client', capabilities: caps } }); // no events:game
    const started = Date.now();
    const quiet = (await stack.client.call('command_output', { command: 'time query daytime', wait: 0.3 })) as Record<string, any>;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(quiet).toMatchObject({ source: 'events', output: [], truncated: false });
  });

  it('passes the mod error through when no world is open', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client', inWorld: false } });
    const err = await failure(stack.client.call('command_output', { command: 'time query daytime', wait: 0.2 }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/no server connection/);
  });
});

describe('command_output wait, read as the predecessor read it', () => {
  it('clamps an out-of-range wait (0 or less: the default) and says so in the result', async () => {
    const stack = await stacks.start();
    const long = (await stack.client.call('command_output', { command: 'list', wait: 31 })) as Record<string, any>;
    expect(long.waitClamped).toEqual({ requested: 31, used: 30 });
    const zero = (await stack.client.call('command_output', { command: 'list', wait: 0 })) as Record<string, any>;
    expect(zero.waitClamped).toEqual({ requested: 0, used: 2 });
    const tiny = (await stack.client.call('command_output', { command: 'list', wait: '0.01' })) as Record<string, any>;
    expect(tiny.waitClamped).toEqual({ requested: 0.01, used: 0.1 });
    const fine = (await stack.client.call('command_output', { command: 'list', wait: 2 })) as Record<string, any>;
    expect(fine).not.toHaveProperty('waitClamped');
  });
});

describe('command_output refusals', () => {
  it('validates every parameter with a message that names it', async () => {
    const stack = await stacks.start();
    await expectInvalidParams(stack, [
      ['command_output', {}, /'command'/],
      ['command_output', { command: '' }, /'command': command must not be empty/],
      ['command_output', { command: '   ' }, /command must not be empty/],
      ['command_output', { command: '/' }, /just a slash/],
      ['command_output', { command: 'say a\nsay b' }, /single line/],
      ['command_output', { command: 42 }, /command must be a string/],
      ['command_output', { command: 'list', wait: 'long' }, /'wait'/],
      ['command_output', { command: 'list', extra: 1 }, /extra/],
    ]);
  });

  it('is hidden, and refused before anything is sent, when the mod does not advertise command', async () => {
    const stack = await stacks.start({ sim: { capabilities: ['state', 'entities'] } });
    const before = stack.sim.received.length;
    const err = await failure(stack.client.call('command_output', { command: 'list' }));
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toMatch(/does not advertise 'command'/);
    expect(sentSince(stack, before)).toEqual([]);
  });
});
