/**
 * Issue 36's workflow in one MCP session (the real SDK client, `mcbridge mcp` over stdio in front
 * of a daemon process) with two simulated servers the daemon launched as child processes: fork
 * `live`, reset `lab` from that fork, call on `lab`, read `lab`'s start in `logs`, reset it again
 * from the template. The template and the fork are never changed.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { BIN, CliProcesses } from '../support/cli-process.js';
import { allTargetsConnected, type DaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/helpers.js';
import { runNode } from '../support/mcp.js';
import { alive, configuredDaemon } from '../support/servers.js';

type Json = Record<string, any>;
const require = createRequire(import.meta.url);
const INSPECTOR = path.join(path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'cli', 'build', 'cli.js');
const processes = new CliProcesses();
let root: string;
let daemon: DaemonProcess;
let client: Client;

const files = (dir: string) =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

async function tool(name: string, args: Json, progress?: string[]): Promise<Json> {
  const result = await client.callTool({ name: `mc_${name}`, arguments: args }, undefined, {
    timeout: 60_000,
    ...(progress ? { onprogress: (p: { message?: string }) => progress.push(String(p.message)) } : {}),
  });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return JSON.parse(text) as Json;
}

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-lab-')));
  fs.mkdirSync(path.join(root, 'templates', 'clean'), { recursive: true });
  fs.writeFileSync(path.join(root, 'templates', 'clean', 'level.dat'), 'clean');
  fs.writeFileSync(path.join(root, 'templates', 'clean', 'template.txt'), 'from the template');
  const config = { targets: { live: { launch: { sim: true } }, lab: { default: true, launch: { sim: true, world: { template: 'templates/clean' } } } } };
  daemon = await configuredDaemon(processes, root, config);
  const api = await ApiClient.connect({ port: daemon.port });
  await allTargetsConnected(api);
  for (const target of ['live', 'lab']) {
    await waitUntil(async () => ((await api.call('server_status', { target })) as Json).state === 'running', 20_000, `${target} to run`);
  }
  api.close();
  client = new Client({ name: 'lab-workflow', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--api-port', String(daemon.port)], cwd: root, stderr: 'pipe' }));
}, 90_000);

afterAll(async () => {
  await client?.close();
  await processes.stopAll();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('fork live, reset a lab from it, work on it, reset it from the template: one MCP session', { timeout: 120_000 }, () => {
  it('runs start to end', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['mc_server_status', 'mc_server_start', 'mc_server_stop', 'mc_server_restart', 'mc_server_reset', 'mc_logs']));
    const live = await tool('server_status', { target: 'live' });
    const lab = await tool('server_status', { target: 'lab' });
    expect([live.state, lab.state]).toEqual(['running', 'running']);
    // The lab's first start put the template in place.
    expect(files(lab.world.dir)).toEqual(expect.arrayContaining(['level.dat', 'template.txt']));

    const fork = await tool('fork', { target: 'live', name: 'before' });
    expect(fork.forkDir).toMatch(/snapshots[/\\]before[/\\]world$/);
    const forked = files(fork.forkDir);
    expect(forked).toContain('level.dat');

    const progress: string[] = [];
    const reset = await tool('server_reset', { target: 'lab', from: { fork: 'before' } }, progress);
    expect(reset).toMatchObject({ state: 'running', started: true, reset: { source: { kind: 'fork', name: 'before' }, files: forked.length } });
    expect(reset.pid).not.toBe(lab.pid);
    expect(alive(lab.pid)).toBe(false);
    // (The last one, `ready`, may be lost by the SDK client when it comes in one read with the result.)
    expect(progress).toEqual(expect.arrayContaining(['copying the fork before into place', expect.stringMatching(/^server started \(pid \d+\); waiting for its mod to answer$/)]));
    const labWorld = files(reset.world.dir).filter((f) => f !== 'session.lock');
    expect(labWorld).toEqual(expect.arrayContaining(forked));
    expect(labWorld).not.toContain('template.txt');

    expect((await tool('mark', { target: 'lab', text: 'in the lab' })).type).toBe('mark_ack');
    expect((await tool('state', { target: 'lab' })).type).toBe('state');
    const started = await tool('logs', { target: 'lab', grep: 'Done (' });
    // Two starts so far: the daemon's and the reset's, each in the lab's own log.
    expect(started.records).toHaveLength(2);
    expect(started.records[0]).toMatchObject({ level: 'INFO', thread: 'Server thread' });
    expect((await tool('logs', { target: 'live', grep: 'Done (' })).records).toHaveLength(1);

    const again = await tool('server_reset', { target: 'lab' });
    expect(again.reset).toMatchObject({ source: { kind: 'template' }, files: 2 });
    expect(files(again.world.dir).filter((f) => f !== 'session.lock' && !f.startsWith('level.dat_'))).toEqual(expect.arrayContaining(['level.dat', 'template.txt']));
    expect(files(again.world.dir)).not.toEqual(expect.arrayContaining(forked.filter((f) => f.startsWith('dimensions'))));
    expect(fs.readFileSync(path.join(root, 'templates', 'clean', 'template.txt'), 'utf8')).toBe('from the template');
    expect(files(path.join(root, 'templates', 'clean'))).toEqual(['level.dat', 'template.txt']);
    expect(files(fork.forkDir)).toEqual(forked);
    expect((await tool('state', { target: 'lab' })).type).toBe('state');
  });

  it('the MCP Inspector (a client not ours) sees the lab server and restarts it', async () => {
    const target = [process.execPath, BIN, 'mcp', '--api-port', String(daemon.port)];
    const inspector = async (...args: string[]) => {
      const run = await runNode([INSPECTOR, '--cli', ...target, '--method', 'tools/call', ...args], { env: { MCBRIDGE_LOG_LEVEL: 'warn' } });
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { content: Array<{ text: string }>; isError?: boolean };
      expect(result.isError ?? false).toBe(false);
      return JSON.parse(result.content[0]!.text) as Json;
    };
    const before = await inspector('--tool-name', 'mc_server_status', '--tool-arg', 'target=lab');
    expect(before).toMatchObject({ target: 'lab', state: 'running' });
    const after = await inspector('--tool-name', 'mc_server_restart', '--tool-arg', 'target=lab');
    expect(after).toMatchObject({ state: 'running', started: true });
    expect(after.pid).not.toBe(before.pid);
  });
});
