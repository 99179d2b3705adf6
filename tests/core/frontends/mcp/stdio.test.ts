import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { defaultSurface } from '../../../../core/daemon/default-surface.js';
import type { Manifest } from '../../../../core/host/plugin-api.js';
import { project, REPO, removeProjects } from '../../../support/config-project.js';
import { freePort, type startStack, waitUntil, type Stack } from '../../../support/helpers.js';
import { assertTableMatches, assertWaitCancels, cleanupsAfterEach, errorOf, probeStack, runNode, TABLE_CAPS, text } from '../../../support/mcp.js';
import { BIN } from '../../../support/cli-process.js';

const defer = cleanupsAfterEach();
const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const stack = (options: Parameters<typeof startStack>[0] = {}): Promise<Stack> => probeStack(defer, options);

/** The real CLI (`node bin/mcbridge.js mcp ...`) behind the SDK's stdio client transport. */
async function connectStdio(args: string[], cwd?: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], stderr: 'pipe', cwd });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'mcbridge-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  defer(() => client.close());
  return { client, stderr: () => stderr };
}

function availableNames(manifest: Manifest): string[] {
  return manifest.tools
    .filter((t) => t.available)
    .map((t) => `mc_${t.name}`)
    .sort();
}

describe('mcbridge mcp over stdio (the real CLI)', { timeout: 60_000 }, () => {
  it('initializes, lists the CAPS-filtered tools and answers the call table like the local API', async () => {
    const s = await stack({ sim: { capabilities: TABLE_CAPS } });
    const { client, stderr } = await connectStdio(['--api-port', String(s.daemon.apiAddress.port)]);
    // The bundled front-end (dist/core/frontends/mcp/run.bundle.js) reports the package's version.
    expect(client.getServerVersion()).toEqual(expect.objectContaining({ name: 'mcbridge', version: PACKAGE_VERSION }));
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(availableNames(s.daemon.host.manifest()));
    expect(names).not.toContain('mc_mark');
    await assertTableMatches(client, s.client);
    expect(stderr()).toMatch(/"msg":"mcbridge MCP server on stdio"/);
  });

  it('cancels mc_wait through the process: the daemon stops waiting', async () => {
    const s = await stack();
    const { client } = await connectStdio(['--api-port', String(s.daemon.apiAddress.port)]);
    await assertWaitCancels(client, s);
    expect(JSON.parse(text(await client.callTool({ name: 'mc_state', arguments: {} })))).toMatchObject({ type: 'state' });
  });

  it.each([
    ['in front of a daemon', async () => ['--api-port', String((await stack()).daemon.apiAddress.port)]],
    ['--embedded on the simulated mod', async () => ['--embedded', '--sim', '--api-port', String(await freePort())]],
  ])('writes nothing but JSON-RPC on stdout (%s), survives garbage, and exits when stdin closes', async (_label, argsFor) => {
    const child = spawn(process.execPath, [BIN, 'mcp', ...(await argsFor())], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    defer(() => child.exitCode === null && child.kill('SIGKILL'));
    const send = (message: unknown) => child.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send('this is not json');
    const ids = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id?: number }).id);
    // tools/list answers once the surface is in (with --embedded: the daemon and its mod are up).
    await waitUntil(() => ids().includes(2), 15_000, 'the tool list');
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'mc_entities', arguments: { radius: 'far' } } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'mc_nope', arguments: {} } });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'mc_status', arguments: {} } });
    send({ jsonrpc: '2.0', id: 6, method: 'no/such/method' });
    send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'mc_wait', arguments: { ticks: 50 }, _meta: { progressToken: 'p7' } } });
    await waitUntil(() => [1, 2, 3, 4, 5, 6, 7].every((id) => ids().includes(id)), 15_000, 'answers to every request');
    child.stdin.end();
    expect(await exited).toBe(0);

    const lines = stdout.split('\n').filter(Boolean);
    for (const line of lines) expect(JSON.parse(line), line).toMatchObject({ jsonrpc: '2.0' });
    const byId = new Map(
      lines
        .map((l) => JSON.parse(l))
        .filter((m) => 'id' in m)
        .map((m) => [m.id, m]),
    );
    expect(byId.get(2).result.tools.length).toBeGreaterThan(0);
    expect(byId.get(3).result).toMatchObject({ isError: true });
    expect(errorOf(byId.get(3).result)).toMatchObject({ code: 'invalid_params' });
    expect(errorOf(byId.get(4).result)).toMatchObject({ code: 'unknown_method' });
    expect(JSON.parse(byId.get(5).result.content[0].text)).toMatchObject({ connected: true });
    expect(byId.get(6).error.code).toBe(-32601);
    expect(JSON.parse(byId.get(7).result.content[0].text)).toMatchObject({ type: 'wait_ack', ticks: 50 });
    const progress = lines.map((l) => JSON.parse(l)).filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((m) => m.params.progressToken === 'p7' && m.params.total === 50)).toBe(true);
    // Logs went to stderr.
    expect(stderr).toMatch(/"level":30/);
  });

  it('with no daemon: serves the default surface and says how to start one', async () => {
    const { client } = await connectStdio(['--api-port', String(await freePort()), '--startup-wait', '0.2']);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(availableNames(defaultSurface('server').manifest));
    const status = JSON.parse(text(await client.callTool({ name: 'mc_status', arguments: {} })));
    expect(status).toMatchObject({ connected: false, daemon: { reachable: false } });
    expect(status.hint).toMatch(/`mcbridge run`/);
    expect(status.hint).not.toMatch(/npx/);
    expect(errorOf(await client.callTool({ name: 'mc_state', arguments: {} }))).toMatchObject({ code: 'unavailable' });
  });

  // One embedded process for both promises: its start (daemon, sim, config) is most of the test.
  it('--embedded hosts a daemon on the simulated mod when none answers, with the project config, reachable over the API too', async () => {
    const p = project();
    defer(() => removeProjects());
    p.write(
      'mcbridge.config.ts',
      `import { defineConfig, defineComposite } from 'mcbridge';
export default defineConfig({
  plugins: ['sky'],
  composites: [defineComposite({ name: 'tick_now', description: 'The current tick.', uses: ['state'], run: async ({ state }) => (await state()).tick })],
});
`,
    );
    const apiPort = await freePort();
    const { client, stderr } = await connectStdio(['--embedded', '--sim', '--api-port', String(apiPort)], p.dir);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mc_state', 'mc_command', 'mc_wait', 'mc_tick_now', 'mc_sky_time']));
    expect(JSON.parse(text(await client.callTool({ name: 'mc_state', arguments: {} })))).toMatchObject({ type: 'state', instance: 'server' });
    expect(typeof JSON.parse(text(await client.callTool({ name: 'mc_tick_now', arguments: {} })))).toBe('number');
    expect(stderr()).toMatch(/starting one in this process/);
    const api = await ApiClient.connect({ port: apiPort });
    expect(await api.call('ping')).toMatchObject({ pong: true, connected: true });
    api.close();
  });

  it('usage errors (exit 2): daemon options without --embedded, HTTP options on stdio', async () => {
    const sim = await runNode([BIN, 'mcp', '--sim']);
    expect(sim.code).toBe(2);
    expect(sim.stderr).toMatch(/--sim configure the daemon that --embedded starts/);
    const token = await runNode([BIN, 'mcp', '--token', 'x'.repeat(20)]);
    expect(token.code).toBe(2);
    expect(token.stderr).toMatch(/--token apply to --transport http only/);
    expect(sim.stdout + token.stdout).toBe('');
  });
});
