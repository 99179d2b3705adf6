import path from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { defineComposite, type CompositeSpec } from '../../../../core/authoring/config.js';
import { ConfigError } from '../../../../core/daemon/config/errors.js';
import { SERVER_CAPABILITIES } from '../../../../core/sim/index.js';
import { startTestHost, waitUntil, type TestHost, type TestHostOptions } from '../../../../core/testing/index.js';
import { REPO } from '../../../support/config-project.js';

const hosts: TestHost[] = [];
afterEach(async () => {
  for (const t of hosts.splice(0)) await t.close();
});

async function start(composites: CompositeSpec<any, any>[], options: TestHostOptions = {}): Promise<TestHost> {
  const t = await startTestHost({ composites, ...options });
  hosts.push(t);
  return t;
}

async function refused(composites: unknown[]): Promise<ConfigError> {
  try {
    hosts.push(await startTestHost({ config: { composites: composites as CompositeSpec[] } }));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected the composites to be refused');
}

const whereAmI = defineComposite({
  name: 'where_am_i',
  description: 'The first player and the tick.',
  uses: ['state'],
  run: async ({ state }) => {
    const s = await state();
    return { tick: s.tick, player: (s.playerList as Array<{ name: string }>)[0]?.name };
  },
});

const sayHi = defineComposite({
  name: 'say_hi',
  description: 'Says hi, then reads the time.',
  input: z.object({ text: z.string().default('hi') }).strict(),
  uses: ['command'],
  run: async ({ args, commandOutput }) => ({ said: await commandOutput(`say ${args.text}`), time: await commandOutput('time query daytime') }),
});

describe('composites are tools like any other', () => {
  it('derive CAPS and annotations from the tools they use, unless declared', async () => {
    const t = await start([
      whereAmI,
      sayHi,
      { ...sayHi, name: 'say_hi_declared', annotations: { destructive: false, idempotent: true } },
      { name: 'free_form', description: 'Calls whatever it likes.', run: async () => 1 },
      { name: 'free_form_declared', description: 'Declares its needs.', requires: ['mark'], annotations: { readOnly: true }, run: async () => 1 },
    ]);
    const tools = new Map((await t.tools()).tools.map((tool) => [tool.name, tool]));
    expect(tools.get('where_am_i')).toMatchObject({ plugin: 'composites', requires: ['state'], uses: ['state'], annotations: { readOnly: true }, available: true });
    expect(tools.get('say_hi')).toMatchObject({ requires: ['command'], annotations: { readOnly: false, destructive: true } });
    expect(tools.get('say_hi_declared')?.annotations).toEqual({ readOnly: false, destructive: false, idempotent: true });
    expect(tools.get('free_form')).toMatchObject({ requires: [], annotations: { readOnly: false } });
    expect(tools.get('free_form_declared')).toMatchObject({ requires: ['mark'], annotations: { readOnly: true } });
    expect(tools.get('where_am_i')?.inputSchema).toMatchObject({ type: 'object', properties: {} });
    expect(t.plugins().find((p) => p.name === 'composites')).toMatchObject({ source: 'config', state: 'loaded' });
  });

  it('run against the sim: chain tools and return what they found', async () => {
    const t = await start([whereAmI, sayHi]);
    expect(await t.call('where_am_i')).toMatchObject({ player: 'Steve', tick: expect.any(Number) });
    expect(await t.call('say_hi', { text: 'hello there' })).toMatchObject({ said: ['[Server] hello there'], time: [expect.stringMatching(/^The time is \d+$/)] });
    expect(t.sim.received).toEqual(expect.arrayContaining(['CMD say hello there', 'CMD time query daytime']));
    expect((await t.callError('say_hi', { text: 5 })).code).toBe('invalid_params');
  });

  it('read-only mode keeps a composite that calls read-only tools alone, and removes the rest', async () => {
    const t = await start([whereAmI, sayHi], { readOnly: true });
    expect(await t.available()).toContain('where_am_i');
    const hidden = await t.hidden();
    expect(hidden.say_hi).toMatch(/^read-only mode hides/);
    expect((await t.callError('say_hi')).code).toBe('tool_disabled');
  });

  it('vanish when a tool they use is hidden by the deny list, saying which and why', async () => {
    const t = await start([whereAmI, sayHi], { deny: ['command'] });
    const manifest = await t.tools();
    expect(manifest.tools.find((tool) => tool.name === 'say_hi')).toMatchObject({
      available: false,
      hiddenBy: 'dependency',
      reason: "calls the tool 'command', which is hidden: removed by the tool deny list (command)",
    });
    const error = await t.callError('say_hi');
    expect(error.code).toBe('tool_disabled');
    expect(error.message).toMatch(/tool 'say_hi' is disabled: calls the tool 'command', which is hidden/);
    expect(await t.available()).toContain('where_am_i');
  });

  it('vanish when the mod lacks a CAPS a used tool needs', async () => {
    const t = await start([sayHi], { sim: { capabilities: SERVER_CAPABILITIES.filter((c) => c !== 'command') } });
    expect((await t.tools()).tools.find((tool) => tool.name === 'say_hi')).toMatchObject({ available: false, missing: ['command'], hiddenBy: 'caps' });
    expect((await t.callError('say_hi')).code).toBe('unsupported_capability');
    await t.setCapabilities(SERVER_CAPABILITIES);
    expect(await t.call('say_hi')).toMatchObject({ said: ['[Server] hi'] });
  });

  it("a composite without `uses` that calls a hidden tool fails at that step, with the tool's refusal", async () => {
    const t = await start(
      [
        {
          name: 'sneaky',
          description: 'Reads the state, then runs a command it never declared.',
          run: async ({ call, command }) => {
            await call('state');
            return command('say hi');
          },
        },
      ],
      { deny: ['command'] },
    );
    expect(await t.available()).toContain('sneaky');
    const error = await t.callError('sneaky');
    expect(error.code).toBe('tool_disabled');
    expect(error.message).toBe("composite 'sneaky' stopped at step 2 (command): tool 'command' is disabled: removed by the tool deny list (command)");
    expect(t.sim.received).not.toContain('CMD say hi');
  });

  it('a composite may call only the tools in its `uses`', async () => {
    const t = await start([{ name: 'strict', description: 'Declares state, calls entities.', uses: ['state'], run: async ({ call }) => call('entities') }]);
    const error = await t.callError('strict');
    expect(error.code).toBe('invalid_params');
    expect(error.message).toMatch(/composite 'strict' called the tool 'entities', which is not in its uses list \(state\); add it to uses/);
  });

  it('a composite reaches the mod through tools only: request() refuses, saying what to call', async () => {
    const t = await start([{ name: 'raw', description: 'Sends a raw line.', uses: ['state'], run: async ({ request }) => request('CMD say hi') }]);
    const error = await t.callError('raw');
    expect(error.code).toBe('invalid_params');
    expect(error.message).toMatch(/composite 'raw' sent 'CMD say hi' with request\(\); .* call the tool instead/);
    expect(t.sim.received).not.toContain('CMD say hi');
  });

  it('can call another composite, listed before or after it; a cycle is refused', async () => {
    expect(
      (
        await refused([
          { name: 'ping_a', description: 'A.', uses: ['ping_b'], run: async () => 1 },
          { name: 'ping_b', description: 'B.', uses: ['ping_a'], run: async () => 1 },
        ])
      ).message,
    ).toMatch(/composites\[0\]\.uses: composites 'ping_a', 'ping_b' call each other in a cycle/);
    const t = await start([{ name: 'twice', description: 'Asks where_am_i twice.', uses: ['where_am_i'], run: async ({ call }) => [await call('where_am_i'), await call('where_am_i')] }, whereAmI]);
    expect((await t.tools()).tools.find((tool) => tool.name === 'twice')).toMatchObject({ requires: ['state'], annotations: { readOnly: true } });
    expect(await t.call('twice')).toHaveLength(2);
  });

  it('honour `only`: scoped to a vantage or a game version', async () => {
    const t = await start([
      { ...whereAmI, name: 'client_only', only: { vantage: 'client' } },
      { ...whereAmI, name: 'for_26', only: { minecraft: '26' } },
      { ...whereAmI, name: 'for_1_21', only: { minecraft: ['1.21', '1.20'] } },
    ]);
    const tools = new Map((await t.tools()).tools.map((tool) => [tool.name, tool]));
    expect(tools.get('client_only')).toMatchObject({ available: false, hiddenBy: 'scope', reason: 'only for the client vantage; this daemon runs the server vantage' });
    expect(tools.get('for_26')?.available).toBe(true);
    expect(tools.get('for_1_21')).toMatchObject({ available: false, reason: 'only for Minecraft 1.21 or 1.20; the connected game is 26.2' });
    expect((await t.callError('client_only')).code).toBe('unsupported_capability');
  });

  it('check their result against `output`', async () => {
    const t = await start([{ name: 'liar', description: 'Promises a number.', output: z.object({ n: z.number() }), run: async () => ({ n: 'one' }) }]);
    const error = await t.callError('liar');
    expect(error.code).toBe('internal');
    expect(error.message).toMatch(/tool 'liar' returned a result that does not match its output schema: 'n'/);
  });

  it('report progress to the caller', async () => {
    const t = await start([
      {
        name: 'slow',
        description: 'Reports progress.',
        run: async ({ progress }) => {
          progress(1, 2, 'half');
          progress(2, 2, 'done');
          return 'ok';
        },
      },
    ]);
    const frames: unknown[] = [];
    expect(await t.call('slow', {}, { onProgress: (f) => frames.push({ progress: f.progress, total: f.total, message: f.message }) })).toBe('ok');
    expect(frames).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2, message: 'done' },
    ]);
  });
});

describe('waiting for events', () => {
  const afterCommand = defineComposite({
    name: 'after_command',
    description: 'Runs a command and waits for its feedback as a game event.',
    input: z.object({ timeoutMs: z.number().default(2_000) }).strict(),
    uses: ['command'],
    run: async ({ args, command, waitFor, events, startCursor }) => {
      await command('time set 1234');
      // The feedback event arrived before this wait began: waitFor still sees it.
      const first = await waitFor((e) => e.text === 'Set the time to 1234', { timeoutMs: args.timeoutMs });
      // The cursor moved past it: a second wait for the same text times out.
      const again = await waitFor((e) => e.text === 'Set the time to 1234', { timeoutMs: 100 }).then(
        () => 'matched',
        (e: Error) => e.message,
      );
      return { first: first.text, again, seen: events.query({ since: startCursor }).events.map((e) => e.text) };
    },
  });

  it('finds an event that came before the wait began, then moves on', async () => {
    const t = await start([afterCommand]);
    expect(await t.call('after_command')).toEqual({
      first: 'Set the time to 1234',
      again: "tool 'after_command': no matching event within 100 ms",
      seen: ['Set the time to 1234'],
    });
  });

  it('a player chat answer arrives while it waits', async () => {
    const t = await start([
      {
        name: 'ask',
        description: 'Asks, waits for a reply.',
        uses: ['command'],
        run: async ({ command, waitFor }) => {
          await command('say ready?');
          return (await waitFor((e) => e.category === 'chat' && e.sender === 'Steve', { timeoutMs: 5_000 })).text;
        },
      },
    ]);
    const answer = t.call('ask');
    await waitUntil(() => t.sim.received.includes('CMD say ready?'), 5_000, 'the question');
    t.sim.chat('Steve', 'yes');
    expect(await answer).toBe('yes');
  });

  it('times out with a clear error', async () => {
    const t = await start([{ name: 'never', description: 'Waits for nothing.', run: async ({ waitFor }) => waitFor(() => false, { timeoutMs: 50 }) }]);
    const error = await t.callError('never');
    expect(error.code).toBe('timeout');
    expect(error.message).toBe("tool 'never': no matching event within 50 ms");
  });
});

describe('cancellation mid-run', () => {
  const freezer = defineComposite({
    name: 'freezer',
    description: 'Freezes the game, then waits; always unfreezes.',
    input: z.object({ how: z.enum(['wait', 'sleep', 'ticks']) }).strict(),
    uses: ['command', 'wait'],
    run: async ({ args, command, waitFor, sleep, wait, defer }) => {
      await command('tick freeze');
      defer((ctx) => ctx.command('tick unfreeze'));
      if (args.how === 'wait') await waitFor(() => false, { timeoutMs: 600_000 });
      if (args.how === 'sleep') await sleep(600_000);
      if (args.how === 'ticks') await wait(72_000);
      return 'not reached';
    },
  });

  for (const how of ['wait', 'sleep', 'ticks'] as const) {
    it(`stops a composite blocked in ${how === 'wait' ? 'waitFor' : how === 'sleep' ? 'sleep' : 'the wait tool'}, answers cancelled, and runs its clean-up`, async () => {
      const t = await start([freezer]);
      const controller = new AbortController();
      const call = t.callError('freezer', { how }, { signal: controller.signal });
      await waitUntil(() => t.sim.world.frozen, 5_000, 'the freeze');
      if (how === 'ticks') await waitUntil(() => t.sim.received.includes('WAIT 72000'), 5_000, 'the WAIT');
      controller.abort();
      const error = await call;
      expect(error.code).toBe('cancelled');
      await waitUntil(() => !t.sim.world.frozen, 5_000, 'the deferred unfreeze');
      expect(t.sim.received.filter((l) => l === 'CMD tick unfreeze')).toHaveLength(1);
      // The daemon serves on.
      expect(await t.call('state')).toMatchObject({ type: 'state' });
    });
  }

  it('runs clean-ups on success too, and reports one that fails', async () => {
    const t = await start([
      {
        name: 'tidy',
        description: 'Cleans up after itself.',
        uses: ['command'],
        run: async ({ command, defer }) => {
          defer((ctx) => ctx.command('time set 100'));
          defer(() => {
            throw new Error('could not tidy');
          });
          await command('time set 5000');
          return 'done';
        },
      },
    ]);
    const error = await t.callError('tidy');
    expect(error.message).toBe("tool 'tidy' finished, but its clean-up failed: internal error: could not tidy");
    // Newest first, and the rest still ran.
    expect(t.sim.received.filter((l) => l.startsWith('CMD time set'))).toEqual(['CMD time set 5000', 'CMD time set 100']);
  });

  it('a step that throws a plain Error and a clean-up that fails are both reported', async () => {
    const t = await start([
      {
        name: 'messy',
        description: 'Fails, and fails to clean up.',
        uses: ['command'],
        run: async ({ defer }) => {
          defer(() => {
            throw new Error('could not tidy');
          });
          throw new Error('step broke');
        },
      },
    ]);
    const error = await t.callError('messy');
    expect(error.message).toMatch(/step broke/);
    expect(error.message).toMatch(/and its clean-up failed: internal error: could not tidy/);
  });
});

describe('invalid composites name the entry and the field', () => {
  it('a bad name, a missing description, an unknown key', async () => {
    const error = await refused([{ name: 'Bad-Name', description: '', run: async () => 1, timeout: 5 }]);
    expect(error.message).toMatch(/composites\[0\]\.name: must match \^\[a-z\]\[a-z0-9_\]\{0,47\}\$ .* \(composite 'Bad-Name'\)/);
    expect(error.message).toMatch(/composites\[0\]\.description: must say what the composite does/);
    expect(error.message).toMatch(/composites\[0\]: Unrecognized key: "timeout"/);
  });

  it('a missing run, an input that is not a zod object', async () => {
    const error = await refused([{ name: 'x', description: 'X.', input: { a: 1 } }]);
    expect(error.message).toMatch(/composites\[0\]\.input: expected a zod object schema/);
    expect(error.message).toMatch(/composites\[0\]\.run: expected a function run\(ctx\) => result/);
  });

  it('two composites with one name', async () => {
    const error = await refused([whereAmI, { ...sayHi, name: 'where_am_i' }]);
    expect(error.message).toMatch(/composites\[1\]\.name: 'where_am_i' is already the name of composites\[0\]/);
  });

  it('a name a plugin tool has, or a used tool nobody defines', async () => {
    expect((await refused([{ ...whereAmI, name: 'state' }])).message).toMatch(/composites\[0\]\.name: the tool 'state' is defined by both plugin 'state' and this composite; rename the composite/);
    expect((await refused([{ ...whereAmI, uses: ['state', 'teleport_everyone'] }])).message).toMatch(/composites\[0\]\.uses\[1\]: no loaded plugin defines the tool 'teleport_everyone'/);
  });
});

describe("the repository's own mcbridge.config.ts", () => {
  const ROOT_CONFIG = path.join(REPO, 'mcbridge.config.ts');

  it('summon_at summons at a player and returns the entity record the game reports', async () => {
    const t = await startTestHost({ config: ROOT_CONFIG, sim: { players: [{ name: 'Alex', x: 10.5, y: 70, z: -3.5 }] } });
    hosts.push(t);
    const result = await t.call('summon_at', { type: 'zombie', player: 'alex', offset: { x: 2 } });
    expect(result).toMatchObject({
      requested: { type: 'zombie', player: 'Alex', at: { x: 12.5, y: 70, z: -3.5 } },
      feedback: ['Summoned new Zombie'],
      verified: true,
      entity: { type: 'minecraft:zombie', x: 12.5, y: 70, z: -3.5, uuid: result.requested.uuid },
    });
    const error = await t.callError('summon_at', { type: 'zombie', player: 'Notch' });
    expect(error.message).toMatch(/no online player is called 'Notch' \(online: Alex\)/);
  });

  it("command_until runs a command and waits for a player's matching chat answer", async () => {
    const t = await startTestHost({ config: ROOT_CONFIG });
    hosts.push(t);
    const call = t.call('command_until', { command: 'say Ready?', category: 'chat', from: 'Steve', until: '^(yes|no)$', timeoutSeconds: 10 });
    await waitUntil(() => t.sim.received.includes('CMD say Ready?'), 5_000, 'the question');
    t.sim.chat('Steve', 'maybe');
    t.sim.chat('Steve', 'yes');
    expect(await call).toMatchObject({ command: 'say Ready?', event: { type: 'chat', text: 'yes', sender: 'Steve' } });
    expect(await t.call('command_until', { command: 'time set 2000', until: 'Set the time to 2000', timeoutSeconds: 5 })).toMatchObject({
      feedback: ['Set the time to 2000'],
      event: { category: 'game' },
    });
  });
});
