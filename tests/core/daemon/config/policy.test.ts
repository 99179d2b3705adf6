import { afterEach, describe, expect, it } from 'vitest';
import { mergePolicy } from '../../../../core/daemon/config/runtime.js';
import { startTestHost, type TestHost, type TestHostOptions } from '../../../../core/testing/index.js';

const hosts: TestHost[] = [];
afterEach(async () => {
  for (const t of hosts.splice(0)) await t.close();
});

async function start(options: TestHostOptions): Promise<TestHost> {
  const t = await startTestHost(options);
  hosts.push(t);
  return t;
}

interface SurfaceAnswer {
  surface: { supported: string[]; unsupported: string[] };
}

describe('tool policy', () => {
  it('read-only mode removes every tool not annotated read-only from every surface', async () => {
    const t = await start({ config: { readOnly: true } });
    const manifest = await t.tools();
    const mutating = manifest.tools.filter((tool) => tool.annotations.readOnly !== true);
    expect(mutating.map((tool) => tool.name)).toEqual(expect.arrayContaining(['command', 'mark']));
    for (const tool of mutating) expect(tool).toMatchObject({ available: false, hiddenBy: 'read-only' });
    for (const tool of manifest.tools.filter((x) => x.available)) expect(tool.annotations.readOnly).toBe(true);
    // The capabilities tool's surface (what agents read) lists them as unsupported, not supported.
    const { surface } = (await t.call('capabilities')) as SurfaceAnswer;
    expect(surface.supported).not.toContain('command');
    expect(surface.unsupported).toContain('command');
    // Refused before anything reaches the game.
    const before = t.sim.received.length;
    expect((await t.callError('command', { command: 'say hi' })).code).toBe('tool_disabled');
    expect(t.sim.received.length).toBe(before);
  });

  it('an allow list keeps only matching tools (names and globs)', async () => {
    const t = await start({ config: { allow: ['st*', 'entities'] } });
    expect((await t.available()).sort()).toEqual(['entities', 'state', 'status']);
    const hidden = await t.tools();
    expect(hidden.tools.find((tool) => tool.name === 'command')).toMatchObject({
      available: false,
      hiddenBy: 'policy',
      reason: 'not in the tool allow list (st*, entities)',
    });
  });

  it('a deny list removes matching tools, even allowed ones', async () => {
    const t = await start({ config: { allow: ['*'], deny: ['comm?nd', 'mark'] } });
    const available = await t.available();
    expect(available).toContain('state');
    expect(available).not.toContain('command');
    expect(available).not.toContain('mark');
    expect((await t.callError('mark', { text: 'x' })).message).toBe("tool 'mark' is disabled: removed by the tool deny list (mark)");
  });

  it('command-line flags win over the config', async () => {
    expect(mergePolicy({ readOnly: false, allow: ['a'], deny: ['b'] }, { readOnly: true, deny: ['c'] })).toStrictEqual({ readOnly: true, allow: ['a'], deny: ['c'] });
    expect(mergePolicy({ readOnly: true }, {})).toStrictEqual({ readOnly: true });
    expect(mergePolicy({}, {})).toStrictEqual({}); // a key neither gives is absent, not undefined
    const t = await start({ config: { deny: ['mark'] }, deny: ['wait'] });
    const available = await t.available();
    expect(available).toContain('mark');
    expect(available).not.toContain('wait');
  });
});

describe('policy by effect, and entries that match nothing', () => {
  it('cap:command removes every tool that sends console commands, and composites inherit it', async () => {
    const t = await start({
      config: { deny: ['cap:command'] },
      composites: [
        { name: 'says_hi', description: 'Says hi.', uses: ['command'], run: async (ctx) => ctx.call('command', { command: 'say hi' }) },
        { name: 'sneaky_hi', description: 'Says hi without declaring it.', run: async (ctx) => ctx.call('command_output', { command: 'say hi' }) },
      ],
    });
    const hidden = await t.hidden();
    for (const name of ['command', 'command_output', 'says_hi']) expect(hidden, name).toHaveProperty(name);
    expect(hidden.command).toBe('removed by the tool deny list (cap:command)');
    const before = t.sim.received.length;
    expect((await t.callError('command_output', { command: 'say hi' })).code).toBe('tool_disabled');
    expect((await t.callError('sneaky_hi')).message).toMatch(/command_output.*removed by the tool deny list \(cap:command\)/);
    expect(t.sim.received.slice(before)).toEqual([]);
  });

  it('a flag naming no tool stops the daemon from starting, with the nearest name', async () => {
    const err = await startTestHost({ deny: ['Command'] }).then(
      (t) => {
        hosts.push(t);
        throw new Error('expected the start to be refused');
      },
      (e: Error & { code?: string }) => e,
    );
    expect(err).toMatchObject({ code: 'invalid_params' });
    expect(err.message).toBe("--deny: 'Command' is not the name of any tool; did you mean 'command'? (`mcbridge tools` lists them)");
  });

  it('a config naming no tool is refused with its place in the file', async () => {
    const err = await startTestHost({ config: { allow: ['state', 'entitys'] } }).then(
      (t) => {
        hosts.push(t);
        throw new Error('expected the config to be refused');
      },
      (e: Error) => e,
    );
    expect(err.message).toBe("the inline config: allow[1]: 'entitys' is not the name of any tool; did you mean 'entities'? (`mcbridge tools` lists them)");
  });
});

describe('a cap: deny at the mod link', () => {
  it('refuses a verb that needs the capability, and undeclared verbs, whichever tool sends them', async () => {
    const { definePlugin, defineTool } = await import('../../../../core/index.js');
    const { z } = await import('zod');
    // Declares no CAPS for its tool, so the surface keeps it: the link must still refuse what it sends.
    const sneaky = definePlugin({
      name: 'sneaky',
      version: '1.0.0',
      apiVersion: 1,
      tools: [
        defineTool({
          name: 'send_line',
          description: 'Sends a raw mod line.',
          input: z.object({ line: z.string() }),
          annotations: { readOnly: true },
          run: async ({ line }, ctx) => ctx.request(line),
        }),
      ],
    });
    const t = await start({ config: { deny: ['cap:command'] }, plugins: [sneaky] });
    const before = t.sim.received.length;
    const declared = await t.callError('send_line', { line: 'CMD say hi' });
    expect(declared).toMatchObject({ code: 'tool_disabled' });
    expect(declared.message).toBe("the mod request 'CMD' was not sent: it needs the 'command' capability, which the tool policy denies (cap:command)");
    expect((await t.callError('send_line', { line: 'COMMAND say hi' })).message).toMatch(/no loaded plugin declares the verb COMMAND/);
    expect(t.sim.received.slice(before)).toEqual([]);
    expect(await t.call('send_line', { line: 'STATE' })).toMatchObject({ type: 'state' });
    expect(await t.call('send_line', { line: 'PING' })).toMatchObject({ type: 'pong' });
  });
});
