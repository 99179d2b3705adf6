import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../core/host/define.js';
import { startDaemon, type Daemon } from '../../core/daemon/daemon.js';
import { silentLogger } from '../../core/util/log.js';
import net from 'node:net';
import { waitUntil } from '../support/helpers.js';
import { plugin } from '../support/host.js';
import { ScriptedMod } from '../support/scripted-mod.js';

// A passthrough tool's answer is the mod's own reply text, spliced into the response frame.
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Written as the real mod (Gson) writes numbers, which JSON.stringify would not: 64.0, 10.50. */
const STATE_TEXT = '{"type":"state","millis":5,"tick":7,"playerList":[{"name":"Alex","x":10.50,"y":64.0}],"note":"caf\\u00e9"}';

async function daemonWith(stateLine: string): Promise<{ daemon: Daemon }> {
  const mod = await ScriptedMod.start({ respond: (line) => (line === 'STATE' ? [{ line: stateLine }] : undefined) });
  cleanups.push(() => mod.stop());
  const daemon = await startDaemon({
    log: silentLogger(),
    vantage: 'server',
    link: { modPort: mod.port, reconnectMinMs: 20, reconnectMaxMs: 200 },
    api: { port: 0 },
    plugins: [
      {
        source: 'config',
        plugin: plugin(
          'copies',
          [
            // Returns the reply it got, but does not declare passthrough: encoded again.
            defineTool({ name: 'state_copy', description: 'the state reply, not declared passthrough', input: z.object({}), annotations: { readOnly: true }, run: (_a, ctx) => ctx.request('STATE') }),
            // Declares passthrough yet builds its own result: no mod text belongs to it, so it is encoded.
            defineTool({ name: 'built', description: 'a built result', input: z.object({}), passthrough: true, run: async () => ({ type: 'built', y: 64.0 }) }),
          ],
          { requires: { caps: [] } },
        ),
      },
    ],
  });
  cleanups.push(() => daemon.stop());
  await waitUntil(() => daemon.host.link.connected, 5_000, 'the daemon to connect to the scripted mod');
  return { daemon };
}

describe('passthrough tools', () => {
  it("answer state with the mod's own text, numbers and escapes as the mod wrote them", async () => {
    const { daemon } = await daemonWith(STATE_TEXT);
    const text = await answerText(daemon.apiAddress.port, '{"id":"s1","method":"state"}');
    expect(text).toBe(`{"type":"response","id":"s1","ok":true,"result":${STATE_TEXT}}`);
  });

  it('encode again a tool that returns the reply without declaring passthrough', async () => {
    const { daemon } = await daemonWith(STATE_TEXT);
    const text = await answerText(daemon.apiAddress.port, '{"id":2,"method":"state_copy"}');
    expect(text).toBe(`{"type":"response","id":2,"ok":true,"result":${JSON.stringify(JSON.parse(STATE_TEXT))}}`);
    expect(text).not.toContain('64.0');
  });

  it("encode a passthrough tool's result that is not a mod reply", async () => {
    const { daemon } = await daemonWith(STATE_TEXT);
    const text = await answerText(daemon.apiAddress.port, '{"id":3,"method":"built"}');
    expect(JSON.parse(text)).toEqual({ type: 'response', id: 3, ok: true, result: { type: 'built', y: 64 } });
  });

  it('encode again a reply that has a raw carriage return between its tokens', async () => {
    const withCr = '{"type":"state",\r"tick":9}';
    const { daemon } = await daemonWith(withCr);
    const text = await answerText(daemon.apiAddress.port, '{"id":4,"method":"state"}');
    expect(text).toBe('{"type":"response","id":4,"ok":true,"result":{"type":"state","tick":9}}');
  });

  it('give the same object to callers inside the daemon (composites see a parsed reply)', async () => {
    const { daemon } = await daemonWith(STATE_TEXT);
    const reply = await daemon.host.call('state', {});
    expect(reply).toEqual(JSON.parse(STATE_TEXT));
  });
});

/** Send one request line on a fresh connection; the answer line exactly as written. */
async function answerText(port: number, request: string): Promise<string> {
  const socket = net.connect({ host: '127.0.0.1', port });
  cleanups.push(() => {
    socket.destroy();
  });
  socket.setEncoding('utf8');
  socket.write(request + '\n');
  let buffered = '';
  for await (const chunk of socket) {
    buffered += chunk as string;
    const nl = buffered.indexOf('\n');
    if (nl !== -1) return buffered.slice(0, nl);
  }
  throw new Error(`the connection closed before an answer; got ${JSON.stringify(buffered)}`);
}
