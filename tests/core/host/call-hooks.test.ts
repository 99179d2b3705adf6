/**
 * `ctx.beforeCall(hook)` and `host.retryLink()` (the server plugin's two needs of the host):
 * a hook sees every call ahead of the CAPS gate, can fail it with its own code, reports progress,
 * and ends with its plugin; retryLink ends the link's backoff pause at once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../core/host/errors.js';
import type { BeforeCall, HostView } from '../../../core/host/plugin-api.js';
import { ScriptedMod } from '../../support/scripted-mod.js';
import { waitUntil } from '../../support/wait-until.js';
import { callError, makeHost, plugin, stopHostsAfterEach, tool } from '../../support/host.js';

stopHostsAfterEach();
const mods: ScriptedMod[] = [];
afterEach(async () => {
  for (const mod of mods.splice(0)) await mod.stop();
});

describe('beforeCall', () => {
  it('sees every call, with the CAPS its tool needs, before the CAPS gate refuses one', async () => {
    const seen: Array<Pick<BeforeCall, 'tool' | 'requires'>> = [];
    let ran = 0;
    const host = makeHost([
      plugin('watcher', [], { setup: (ctx) => void ctx.beforeCall((call) => void seen.push({ tool: call.tool, requires: call.requires })) }),
      plugin('game', [tool('plain', { run: async () => ++ran }), tool('fancy', { requires: ['teleport:exotic'], run: async () => ++ran })]),
    ]);
    await host.start();
    await host.call('plain', {});
    expect((await callError(host.call('fancy', {}))).code).toBe('unsupported_capability');
    expect(seen).toEqual([
      { tool: 'plain', requires: [] },
      { tool: 'fancy', requires: ['teleport:exotic'] },
    ]);
    expect(ran).toBe(1);
  });

  it("fails the call with the hook's own error, before the tool runs; its progress reaches the caller", async () => {
    let ran = false;
    const host = makeHost([
      plugin('gate', [], {
        setup: (ctx) =>
          void ctx.beforeCall((call) => {
            call.progress(`checking ${call.tool}`);
            if (call.tool === 'guarded') throw new McbridgeError('busy', 'the server is being reset; try again when it ends');
          }),
      }),
      plugin('game', [tool('guarded', { run: async () => (ran = true) }), tool('open', { run: async () => 'ok' })]),
    ]);
    await host.start();
    const progress: string[] = [];
    const err = await callError(host.call('guarded', {}, { onProgress: (p) => progress.push(String(p.message)) }));
    expect([err.code, err.message]).toEqual(['busy', 'the server is being reset; try again when it ends']);
    expect(ran).toBe(false);
    expect(progress).toEqual(['checking guarded']);
    await expect(host.call('open', {})).resolves.toBe('ok');
  });

  it('waits for an async hook, and stops running hooks once their plugin is gone or removed them', async () => {
    const order: string[] = [];
    let remove: (() => void) | null = null;
    const host = makeHost([
      plugin('slow', [], {
        setup: (ctx) =>
          void ctx.beforeCall(async (call) => {
            await new Promise((r) => setTimeout(r, 20));
            order.push(`slow:${call.tool}`);
          }),
      }),
      plugin('once', [], { setup: (ctx) => void (remove = ctx.beforeCall((call) => void order.push(`once:${call.tool}`))) }),
      plugin('game', [tool('t', { run: async () => void order.push('ran') })]),
    ]);
    await host.start();
    await host.call('t', {});
    remove!();
    await host.call('t', {});
    await host.stop();
    expect(order).toEqual(['slow:t', 'once:t', 'ran', 'slow:t', 'ran']);
  });
});

describe('retryLink', () => {
  it('connects at once to a mod that appeared during a long backoff pause', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-retry-'));
    const portFile = path.join(dir, 'port.txt');
    let view: HostView | null = null;
    const host = makeHost([plugin('peek', [], { setup: (ctx) => void (view = ctx.host) })], { link: { portFile, reconnectMinMs: 60_000, reconnectMaxMs: 60_000 } });
    try {
      await host.start();
      // The first attempt finds no port file; the next would be a minute away.
      await waitUntil(() => host.status().lastError !== null, 5_000, 'the first attempt to fail');
      const mod = await ScriptedMod.start();
      mods.push(mod);
      fs.writeFileSync(portFile, String(mod.port));
      view!.retryLink();
      await waitUntil(() => host.view().connected, 5_000, 'the link to connect after retryLink');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
