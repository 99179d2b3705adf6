import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { startDaemon } from '../../core/daemon/daemon.js';
import { silentLogger } from '../../core/util/log.js';
import { waitUntil } from '../support/helpers.js';
import { SERVER_HELLO, ScriptedMod } from '../support/scripted-mod.js';
import { cart, useTemps, writeRecording } from '../support/restore.js';

/**
 * The endpoint a restore reports, from a STATE the simulated mod never sends (odd `levels`): a
 * scripted mod over a real socket, an in-process daemon with the built-in plugins.
 */
const tmp = useTemps();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A call of `tool` on a recording, through an in-process daemon linked to a scripted mod that
 * advertises `snapshot` (in the greeting and the CAPS answer) and answers with `answer` first.
 */
async function callAgainst(tool: string, answer: (line: string) => Array<{ line: Record<string, unknown> }> | undefined): Promise<Record<string, any>> {
  const capabilities = [...SERVER_HELLO.capabilities, 'snapshot'];
  const mod = await ScriptedMod.start({
    hello: { ...SERVER_HELLO, capabilities },
    respond: (line) => answer(line) ?? (line === 'CAPS' ? [{ line: { type: 'capabilities', protocol: 1, instance: 'server', capabilities } }] : undefined),
  });
  cleanups.push(() => mod.stop());
  const daemon = await startDaemon({ log: silentLogger(), vantage: 'server', link: { modPort: mod.port, reconnectMinMs: 20, reconnectMaxMs: 200 }, api: { port: 0 }, configDir: tmp() });
  cleanups.push(() => daemon.stop());
  await waitUntil(() => daemon.host.link.connected, 5_000, 'the daemon to connect to the scripted mod');
  const client = await ApiClient.connect({ port: daemon.apiAddress.port });
  cleanups.push(() => client.close());
  const dir = writeRecording(tmp(), [cart('00000000-0000-4000-8000-000000000001', [0, 64, 0])]);
  return (await client.call(tool, { dir })) as Record<string, any>;
}

/** A dry run against a mod that answers STATE with `state`. */
const dryRunAgainst = (state: Record<string, unknown>) => callAgainst('restore', (line) => (line === 'STATE' ? [{ line: { type: 'state', ...state } }] : undefined));

describe('the endpoint report from an odd STATE', () => {
  it('levels that are not objects, or name no dimension, are left out of dimensions', async () => {
    const dry = await dryRunAgainst({ levels: [null, 'minecraft:the_end', { dimension: 'minecraft:overworld' }, { entities: 3 }, { dimension: 7 }] });
    expect(dry.verdict).toBe('dry-run');
    expect(dry.endpoint.dimensions).toEqual(['minecraft:overworld']);
  });

  it('no levels list: no dimensions, and the fields it lacks are null', async () => {
    const dry = await dryRunAgainst({ levels: 'minecraft:overworld' });
    expect(dry.endpoint).toMatchObject({ dimensions: [], worldDir: null, levelName: null, serverVersion: null, tick: null, players: null });
  });
});

/** `order` against a mod whose SNAPSHOT answers with a folder written here: meta fields the simulated mod always writes. */
function orderAgainst(freshMeta: Record<string, unknown>): Promise<Record<string, any>> {
  const fresh = writeRecording(tmp(), [cart('00000000-0000-4000-8000-000000000001', [0, 64, 0])], freshMeta);
  return callAgainst('order', (line) => (line.startsWith('SNAPSHOT') ? [{ line: { type: 'snapshot_ack', id: 'order-check', dir: fresh, entities: 1 } }] : undefined));
}

describe('order against a snapshot whose meta.json lacks fields', () => {
  it('no orderHash: no match, actual null; no entity count: the lines are counted', async () => {
    const r = await orderAgainst({ orderHash: undefined, entities: undefined });
    expect(r).toMatchObject({ match: false, actual: null, entities: 1, target: null });
    expect(r.expected).toMatch(/^[0-9a-f]{16}$/);
    const empty = await orderAgainst({ orderHash: '' });
    expect([empty.match, empty.actual]).toEqual([false, null]);
    const number = await orderAgainst({ orderHash: 5 });
    expect([number.match, number.actual]).toEqual([false, null]);
  });
});
