/**
 * The predecessor's CLI contract (mc-agent-bridge `mc-bridge`, docs/compatibility.md), kept where
 * its scripts depend on it: watch's record lines, --limit, a global --timeout, run
 * --reconnect-delay, mcp --transport streamable-http.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimulatedMod } from '../../../../core/sim/index.js';
import { predecessorJson } from '../../../../core/frontends/cli/watch-format.js';
import { BIN, CliProcesses, runCli } from '../../../support/cli-process.js';
import { freePort, startStack, waitUntil, type Stack } from '../../../support/helpers.js';

const processes = new CliProcesses();
const stacks: Stack[] = [];
const sims: SimulatedMod[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const stack of stacks.splice(0)) await stack.close();
  for (const sim of sims.splice(0)) await sim.stop();
});

async function stack(): Promise<{ s: Stack; port: string }> {
  const s = await startStack();
  stacks.push(s);
  return { s, port: String(s.daemon.apiAddress.port) };
}

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('predecessor compatibility of the CLI', { timeout: 90_000 }, () => {
  it("predecessorJson spells JSON as Python's json.dumps(ensure_ascii=False) did", () => {
    expect(predecessorJson({ type: 'chat', seq: 3, text: 'héllo "x"', nested: { a: [1, 2.5, null, true] }, empty: {}, none: [] })).toBe(
      '{"type": "chat", "seq": 3, "text": "héllo \\"x\\"", "nested": {"a": [1, 2.5, null, true]}, "empty": {}, "none": []}',
    );
  });

  it('watch prints each recorded event as the predecessor did; --frames prints whole frames; --format text is for people', async () => {
    const { port } = await stack();
    await runCli(['call', 'mark', '{"text": "first"}', '--api-port', port]);
    const records = processes.start(['watch', '--events', 'mark', '--since', '0', '--api-port', port]);
    const frames = processes.start(['watch', '--events', 'mark', '--since', '0', '--frames', '--api-port', port]);
    const text = processes.start(['watch', '--events', 'mark', '--since', '0', '--format', 'text', '--api-port', port]);
    await waitUntil(() => [records, frames, text].every((w) => w.out.stdout.includes('first')), 20_000, 'the replayed mark');
    await runCli(['call', 'mark', '{"text": "second"}', '--api-port', port]);
    await waitUntil(() => [records, frames, text].every((w) => w.out.stdout.includes('second')), 20_000, 'the pushed mark');

    const recordLines = lines(records.out.stdout);
    expect(recordLines.map((l) => JSON.parse(l).text)).toEqual(['first', 'second']);
    expect(recordLines[0]).toMatch(/^\{"type": "mark", .*"seq": \d+, .*"category": "mark"/);
    expect(recordLines[0]).toBe(predecessorJson(JSON.parse(recordLines[0]!)));

    const frameLines = lines(frames.out.stdout).map((l) => JSON.parse(l));
    expect(frameLines.map((f) => [f.type, f.event, f.data.text])).toEqual([
      ['event', 'mark', 'first'],
      ['event', 'mark', 'second'],
    ]);

    const textLines = lines(text.out.stdout);
    expect(textLines).toHaveLength(2);
    expect(textLines[0]).toMatch(/^\d\d:\d\d:\d\d #\d+ mark\s+first$/);
  });

  it('watch --since --limit N replays only the newest N buffered events, then follows', async () => {
    const { port } = await stack();
    for (const text of ['m1', 'm2', 'm3', 'm4']) await runCli(['call', 'mark', JSON.stringify({ text }), '--api-port', port]);
    const watch = processes.start(['watch', '--events', 'mark', '--since', '0', '--limit', '2', '--api-port', port]);
    await waitUntil(() => watch.out.stdout.includes('m4'), 20_000, 'the replay');
    await runCli(['call', 'mark', '{"text": "m5"}', '--api-port', port]);
    await waitUntil(() => watch.out.stdout.includes('m5'), 20_000, 'the pushed mark');
    expect(lines(watch.out.stdout).map((l) => JSON.parse(l).text)).toEqual(['m3', 'm4', 'm5']);
  });

  it('a global --timeout, before or after the command, gives up on the call and cancels it in the daemon', async () => {
    const { s, port } = await stack();
    for (const args of [
      ['--timeout', '0.2', 'call', 'wait', '{"ticks": 6000}'],
      ['call', 'wait', '{"ticks": 6000}', '--timeout', '0.2'],
    ]) {
      const result = await runCli([...args, '--api-port', port]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/no answer from the daemon for 'wait' within 200 ms \[timeout\]/);
    }
    await waitUntil(() => s.daemon.host.link.status().stats.cancelled >= 2, 10_000, 'both WAITs cancelled in the daemon');
  });

  it('run --reconnect-delay: the daemon keeps trying at that pace and connects once the mod appears', async () => {
    const modPort = await freePort();
    const apiPort = String(await freePort());
    const daemon = processes.start(['run', '--no-config', '--mod-port', String(modPort), '--reconnect-delay', '0.1', '--api-port', apiPort]);
    await waitUntil(() => /cannot reach interface mod/.test(daemon.out.stderr), 20_000, 'a failed attempt');
    sims.push(await startSim({ port: modPort }));
    await waitUntil(() => /connected to server mod/.test(daemon.out.stderr), 20_000, 'the daemon to connect');
    const bad = await runCli(['run', '--sim', '--reconnect-delay', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--reconnect-delay.*expected a number of seconds/);
  });

  it("the predecessor's harness config works: mcp with MC_AGENT_API_PORT in its environment reaches that daemon", async () => {
    const { port } = await stack();
    const env = Object.fromEntries(Object.entries({ ...process.env, MCBRIDGE_API_PORT: '', MCBRIDGE_API_TOKEN: '', MC_AGENT_API_PORT: port }).filter((e): e is [string, string] => e[1] !== undefined));
    const client = new Client({ name: 'predecessor-harness', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'pipe' }));
    try {
      const result = (await client.callTool({ name: 'mc_status', arguments: {} })) as { content: Array<{ text: string }> };
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({ connected: true, api: { port: Number(port) } });
    } finally {
      await client.close();
    }
  });

  it('mcp --transport streamable-http is the http transport', async () => {
    const { port } = await stack();
    const mcp = processes.start(['mcp', '--transport', 'streamable-http', '--port', '0', '--api-port', port]);
    await waitUntil(() => mcp.out.stdout.includes('\n'), 20_000, 'the endpoint line');
    const endpoint = JSON.parse(lines(mcp.out.stdout)[0]!) as { url: string };
    const client = new Client({ name: 'compat', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('mc_state');
    } finally {
      await client.close();
    }
    const bad = await runCli(['mcp', '--transport', 'sse']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected stdio, http or streamable-http/);
  });
});
