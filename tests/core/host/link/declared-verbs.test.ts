import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, defineTool, validatePlugin } from '../../../../core/host/define.js';
import type { McbridgeError } from '../../../../core/host/errors.js';
import { Host } from '../../../../core/host/host.js';
import { ModLink, type ModLinkOptions } from '../../../../core/host/link/mod-link.js';
import { resolveVerb, TICK_MS } from '../../../../core/host/link/verbs.js';
import { silentLogger } from '../../../../core/util/log.js';
import { ScriptedMod, SERVER_HELLO, type ScriptedModOptions, type ScriptedReply } from '../../../support/scripted-mod.js';
import { caught } from '../../../support/errors.js';
import { builtinVerbs } from '../../../support/verbs.js';
import { waitUntil } from '../../../support/wait-until.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A stray reply of another type first, then the real one: only matching by type tells them apart. */
function strayFirst(stray: Record<string, unknown>, real: Record<string, unknown>): ScriptedReply[] {
  return [{ line: stray }, { delayMs: 20, line: real }];
}

async function linkTo(modOptions: ScriptedModOptions, linkOptions: Partial<ModLinkOptions> = {}) {
  const mod = await ScriptedMod.start(modOptions);
  const link = new ModLink({ vantage: 'server', modPort: mod.port, log: silentLogger(), onEvent: () => {}, ...linkOptions });
  link.start();
  cleanups.push(
    () => mod.stop(),
    () => link.stop(),
  );
  await waitUntil(() => link.connected, 3_000, 'the link to be ready');
  return { mod, link };
}

const frobTool = defineTool({
  name: 'frob',
  description: 'Sends FROB to the mod.',
  input: z.object({}),
  run: async (_args, ctx) => ctx.request('FROB now'),
});

async function hostWith(declares: boolean) {
  const mod = await ScriptedMod.start({
    respond: (line) => (line === 'FROB now' ? strayFirst({ type: 'pong', t: 1 }, { type: 'frob_ack', millis: 1, detail: 'now' }) : undefined),
  });
  const acme = definePlugin({
    name: 'acme-frob',
    version: '1.0.0',
    apiVersion: 1,
    ...(declares ? { verbs: { FROB: { replies: ['frob_ack'] } } } : {}),
    tools: [frobTool],
  });
  const host = new Host({ link: { modPort: mod.port, reconnectMinMs: 20 }, plugins: [{ plugin: acme, source: 'npm' }] });
  await host.start();
  cleanups.push(
    () => mod.stop(),
    () => host.stop(),
  );
  await waitUntil(() => host.link.connected, 3_000, 'the host to connect');
  return host;
}

describe('a third-party plugin declares its verb', () => {
  it('its tool gets the reply of the declared type; a stray reply of another type is not handed to it', async () => {
    const host = await hostWith(true);
    await expect(host.call('frob', {})).resolves.toMatchObject({ type: 'frob_ack', detail: 'now' });
    expect(host.link.stats.strayReplies).toBe(1);
    expect(host.link.stats.undeclaredVerbs).toBe(0);
  });

  it('undeclared, the verb takes whatever reply comes first, and the link counts it', async () => {
    const host = await hostWith(false);
    await expect(host.call('frob', {})).resolves.toMatchObject({ type: 'pong' });
    expect(host.link.stats.undeclaredVerbs).toBe(1);
  });

  it('ctx.request can still name the reply types itself', async () => {
    const { link } = await linkTo({
      respond: (line) => (line === 'FROB x' ? strayFirst({ type: 'pong', t: 1 }, { type: 'frob_ack', millis: 1 }) : undefined),
    });
    await expect(link.request('FROB x', { replies: ['frob_ack'] })).resolves.toMatchObject({ type: 'frob_ack' });
    expect(link.stats.undeclaredVerbs).toBe(0);
  });
});

describe('argument-dependent rules, declared by their plugins', () => {
  const contextCaps = { hello: { capabilities: [...SERVER_HELLO.capabilities, 'context'] } };

  it('CONTEXT <id> expects a context, a bare CONTEXT the cache stats', async () => {
    const { link } = await linkTo(
      {
        ...contextCaps,
        respond: (line) => {
          if (line === 'CAPS') return [{ line: { type: 'capabilities', millis: 1, capabilities: contextCaps.hello.capabilities } }];
          if (line === 'CONTEXT ctx-1') return strayFirst({ type: 'context_stats', millis: 1 }, { type: 'context', millis: 1, context_id: 'ctx-1' });
          if (line === 'CONTEXT') return strayFirst({ type: 'context', millis: 1 }, { type: 'context_stats', millis: 1, cache: {} });
          return undefined;
        },
      },
      { verbs: builtinVerbs() },
    );
    await expect(link.request('CONTEXT ctx-1')).resolves.toMatchObject({ type: 'context', context_id: 'ctx-1' });
    await expect(link.request('CONTEXT')).resolves.toMatchObject({ type: 'context_stats' });
    expect(link.stats.strayReplies).toBe(2);
  });

  it('a declared verb whose CAPS the mod does not advertise is refused and never sent', async () => {
    const { link, mod } = await linkTo({}, { verbs: builtinVerbs() });
    const err = (await link.request('CONTEXT ctx-1').catch((e: McbridgeError) => e)) as McbridgeError;
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toMatch(/'CONTEXT ctx-1' needs 'context'.*nothing was sent/);
    expect(mod.received).toEqual(['CAPS']);
  });

  it('WAIT n waits n ticks plus slack, and only n > 0 blocks', () => {
    const verbs = builtinVerbs();
    expect(resolveVerb('WAIT 40', verbs)).toMatchObject({ replies: ['wait_ack'], timeoutMs: 40 * TICK_MS + 20_000, blocking: true });
    expect(resolveVerb('WAIT 0', verbs)).toMatchObject({ timeoutMs: 20_000, blocking: false });
    expect(resolveVerb('WAIT soon', verbs)).toMatchObject({ timeoutMs: 20_000, blocking: false });
  });

  it('without the plugins the link knows no WAIT: it goes on the main connection, like any verb', async () => {
    const { link, mod } = await linkTo({});
    await expect(link.request('WAIT 2')).resolves.toMatchObject({ type: 'wait_ack' });
    expect(mod.connections).toHaveLength(1);
    expect(link.stats.undeclaredVerbs).toBe(1);
  });
});

describe('verbs the mod answers at once (immediate)', () => {
  it('the built-in reader-thread verbs are immediate, and only with an argument the mod accepts', () => {
    const verbs = builtinVerbs();
    const immediate = (line: string) => resolveVerb(line, verbs).immediate;
    for (const line of ['PING', 'CAPS', 'MARK experiment 3', 'CONTEXT', 'WAIT 0', 'WAIT -3']) expect(immediate(line), line).toBe(true);
    // Server-thread verbs, a blocking WAIT, and a WAIT whose argument the mod's parseInt refuses.
    for (const line of ['STATE', 'CMD time query day', 'CONTEXT ctx-1', 'ENTITIES', 'PLAYER Steve', 'WAIT 5', 'WAIT abc', 'WAIT -99999999999', 'FROB']) {
      expect(immediate(line), line).toBe(false);
    }
  });

  it('a verb cannot be declared both blocking and immediate', () => {
    const plugin = definePlugin({ name: 'both', version: '1.0.0', apiVersion: 1, verbs: { SLOW: { replies: ['slow_ack'], blocking: true, immediate: true } } });
    const err = caught(() => validatePlugin(plugin, 'config'));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/verbs\.SLOW\.immediate cannot be both blocking .* and immediate .*: keep one/);
  });
});
