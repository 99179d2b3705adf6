/**
 * The main connection's framing and routing (connection.ts): lines that are not a JSON object
 * are counted and dropped without disturbing the request they arrive beside, and what ends a
 * connection is told to the caller.
 */
import { describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../../../core/host/errors.js';
import { ModLink } from '../../../../core/host/link/mod-link.js';
import { silentLogger } from '../../../../core/util/log.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';
import { ScriptedMod } from '../../../support/scripted-mod.js';
import { builtinVerbs } from '../../../support/verbs.js';
import { waitUntil } from '../../../support/wait-until.js';

const startLink = useScriptedLinks();

describe('lines the mod sends that are not replies', () => {
  it('are dropped and counted as bad lines, a blank line silently; the reply after them is delivered', async () => {
    let deep = '{"type":"state"}';
    for (let i = 0; i < 130; i += 1) deep = `{"inner":${deep}}`;
    const junk = ['', '   ', 'null', '5', '"state"', '[{"type":"state"}]', 'not json {', deep];
    const { link } = await startLink({
      respond: (line) => (line === 'STATE' ? [...junk.map((text) => ({ line: text })), { line: { type: 'state', tick: 3 } }] : undefined),
    });
    await expect(link.request('STATE')).resolves.toEqual({ type: 'state', tick: 3 });
    expect(link.stats.badLines).toBe(6);
    expect(link.stats.strayReplies).toBe(0);
  });
});

describe('a connection that ends', () => {
  it('tells the waiting caller why, with the socket error', async () => {
    const { link, mod } = await startLink({ respond: (line, conn) => (line === 'STATE' ? void conn.socket.resetAndDestroy() : undefined) });
    const err = (await link.request('STATE').catch((e: McbridgeError) => e)) as McbridgeError;
    expect(err.code).toBe('not_connected');
    expect(err.message).toBe(`the mod connection on port ${mod.port} closed (read ECONNRESET) while waiting for the reply to 'STATE'`);
  });

  it('during capability negotiation is never reported ready; the next connection is', async () => {
    const mod = await ScriptedMod.start({
      respond: (line, conn) => {
        if (line !== 'CAPS' || mod.connections.length > 1) return undefined;
        conn.socket.destroy();
        return [];
      },
    });
    const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {}, reconnectMinMs: 20, reconnectMaxMs: 50 });
    const readyOn: number[] = [];
    link.on('state', (state: string) => {
      if (state === 'ready') readyOn.push(mod.connections.length);
    });
    link.start();
    try {
      await waitUntil(() => link.connected, 5_000, 'the second connection to be ready');
      expect(readyOn).toEqual([2]);
      expect(link.status().lastError).toBeNull();
    } finally {
      await link.stop();
      await mod.stop();
    }
  });
});
