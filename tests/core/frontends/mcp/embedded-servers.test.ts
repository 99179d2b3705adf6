/**
 * `mcbridge mcp --embedded` runs the daemon in the MCP server's own process, launched servers and
 * all: when its client goes away (stdin closed) the servers it started go with it, grandchildren
 * included (issue 36, "Nothing left behind").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../../../support/cli-process.js';
import { waitUntil } from '../../../support/helpers.js';
import { alive, FAKE_SERVER, serverFolder } from '../../../support/servers.js';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-mcp-servers-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('an embedded daemon that runs a server', { timeout: 60_000 }, () => {
  it('stops the server and its grandchildren when the MCP client goes away', async () => {
    serverFolder(root, 'lab');
    fs.writeFileSync(path.join(root, 'mcbridge.config.json'), JSON.stringify({ targets: { lab: { launch: { command: [process.execPath, FAKE_SERVER, '--mod', '--fork'], cwd: 'servers/lab' } } } }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--api-port', '0', 'mcp', '--embedded', '--config', path.join(root, 'mcbridge.config.json')],
      cwd: root,
      env: { ...process.env, MCBRIDGE_STATE_DIR: path.join(root, 'state') } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'embedded-servers', version: '1.0.0' });
    await client.connect(transport);
    const status = async () => JSON.parse(((await client.callTool({ name: 'mc_server_status', arguments: {} })).content as Array<{ text: string }>)[0]!.text);
    await waitUntil(async () => (await status()).state === 'running', 30_000, 'the server to run');
    const { pid } = await status();
    const grandchildren = async () => JSON.parse(((await client.callTool({ name: 'mc_logs', arguments: { grep: 'grandchild' } })).content as Array<{ text: string }>)[0]!.text);
    // The newest record is held a moment for a trace that may follow it: wait for both lines.
    await waitUntil(async () => (await grandchildren()).records.length === 2, 10_000, 'both grandchild lines');
    const logs = await grandchildren();
    const tree = [pid, ...logs.records.map((r: { message: string }) => Number(/\d+/.exec(r.message)![0]))];
    expect(tree).toHaveLength(3);
    expect(tree.every(alive)).toBe(true);
    const mcp = transport.pid!;
    await client.close();
    await waitUntil(() => !alive(mcp), 30_000, 'the MCP server to exit');
    expect(tree.filter(alive)).toEqual([]);
  });
});
