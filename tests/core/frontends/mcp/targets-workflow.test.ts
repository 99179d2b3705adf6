/**
 * The fork → restore → verify workflow across two game servers, one daemon process of two
 * simulated targets (`live`, `lab`; neither the default), reached by MCP clients that are
 * processes too: the SDK over `mcbridge mcp` on stdio (one session for the whole workflow) and
 * over HTTP with `--target` pinning, and the MCP Inspector's CLI (docs/mcp.md, "Several game servers").
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { BIN, CliProcesses } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { allTargetsConnected, startDaemonProcess, type DaemonProcess } from '../../../support/daemon-process.js';
import { waitUntil } from '../../../support/helpers.js';
import { errorOf, runNode } from '../../../support/mcp.js';

const require = createRequire(import.meta.url);
const INSPECTOR = path.join(path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'cli', 'build', 'cli.js');
const daemonEnv = { MCBRIDGE_TARGET: '' };
const env = { ...daemonEnv, MCBRIDGE_LOG_LEVEL: 'warn' };

const processes = new CliProcesses();
let daemon: DaemonProcess;
let api: ApiClient;
const clients: Client[] = [];

beforeAll(async () => {
  const dir = project({ install: false });
  const config = dir.write('mcbridge.config.json', JSON.stringify({ targets: { live: { sim: true }, lab: { sim: true } } }));
  daemon = await startDaemonProcess(processes, [], daemonEnv, config);
  api = await ApiClient.connect({ port: daemon.port });
  await allTargetsConnected(api);
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  api?.close();
  await processes.stopAll();
  removeProjects();
});

async function stdioClient(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--api-port', String(daemon.port), ...args],
    env: { ...process.env, ...env } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'targets-workflow', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A tool's answer: its structured content, or the test fails with the error it carried. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await client.callTool({ name, arguments: args });
  const error = errorOf(result);
  if (error) throw new Error(`${name} ${JSON.stringify(args)}: ${error.code}: ${error.error}`);
  return result.structuredContent as Record<string, any>;
}

/** `mcp-inspector --cli node bin/mcbridge.js mcp ...`: its exit code and the JSON it printed. */
async function inspector(args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  const run = await runNode([INSPECTOR, '--cli', 'node', BIN, 'mcp', '--api-port', String(daemon.port), ...args], { env });
  let json: unknown = null;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    // not JSON: the caller looks at the code and stderr
  }
  return { code: run.code, json, stderr: run.stderr };
}

describe('fork on live, restore into lab, verify: one daemon, one MCP session', { timeout: 120_000 }, () => {
  it('the SDK over stdio does the whole workflow in one session, each call naming its target', async () => {
    const client = await stdioClient();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('mc_targets');
    const restoreTarget = tools.find((t) => t.name === 'mc_restore')!.inputSchema.properties!.target as { enum: string[] };
    expect(restoreTarget.enum).toEqual(['live', 'lab']);
    expect(errorOf(await client.callTool({ name: 'mc_state', arguments: {} }))?.code).toBe('target_required');

    const fork = await call(client, 'mc_fork', { name: 'before', target: 'live' });
    const liveWorld = (await call(client, 'mc_state', { target: 'live' })).worldDir as string;
    const labWorld = (await call(client, 'mc_state', { target: 'lab' })).worldDir as string;
    expect(labWorld).not.toBe(liveWorld);
    const dry = await call(client, 'mc_restore', { dir: fork.snapshotDir, target: 'lab' });
    expect(dry).toMatchObject({ verdict: 'dry-run', endpoint: { worldDir: labWorld } });
    // The lab runs the same world as live (as a copy would): the apply replaces what it would duplicate.
    const apply = await call(client, 'mc_restore', { dir: fork.snapshotDir, target: 'lab', dry_run: false, expect_world_dir: labWorld, replace_existing: true });
    expect(apply).toMatchObject({ verdict: 'ok', checks: { endpoint: { verified: true, proofs: ['world_dir'] } } });
    const verified = await call(client, 'mc_verify', { dir: fork.snapshotDir, target: 'lab' });
    expect(verified).toMatchObject({ verdict: 'ok', verification: { ok: true } });
    expect(verified.snapshotDir).toContain(path.dirname(labWorld.replace(/\/\.$/, '')));

    // The apply went to lab alone: the proof of live's world is refused there.
    const wrong = errorOf(await client.callTool({ name: 'mc_restore', arguments: { dir: fork.snapshotDir, target: 'lab', dry_run: false, expect_world_dir: liveWorld } }));
    expect(wrong).toMatchObject({ code: 'invalid_params', error: expect.stringContaining('destination endpoint check failed') });
  });

  it('over HTTP, `mcbridge mcp --target lab` sends a call that names no target to lab', async () => {
    const { child, out } = processes.start(['--api-port', String(daemon.port), '--target', 'lab', 'mcp', '--transport', 'http', '--port', '0'], { env });
    await waitUntil(() => out.stdout.includes('"url"'), 20_000, 'the HTTP endpoint');
    const { url } = JSON.parse(out.stdout.split('\n')[0]!) as { url: string };
    const client = new Client({ name: 'targets-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    const state = (await client.listTools()).tools.find((t) => t.name === 'mc_state')!;
    expect((state.inputSchema.properties!.target as { description: string }).description).toMatch(/goes to lab \(this MCP server's --target\)/);
    const labWorld = ((await api.call('state', { target: 'lab' })) as { worldDir: string }).worldDir;
    expect((await call(client, 'mc_state', {})).worldDir).toBe(labWorld);
    expect((await call(client, 'mc_state', { target: 'live' })).worldDir).not.toBe(labWorld);
    expect(child.exitCode).toBeNull();
  });

  it('the Inspector CLI sees the target argument and mc_targets, and runs the workflow call by call', async () => {
    const list = await inspector(['--method', 'tools/list']);
    expect(list.code, list.stderr).toBe(0);
    const fork = list.json.tools.find((t: { name: string }) => t.name === 'mc_fork');
    expect(fork.inputSchema.properties.target.enum).toEqual(['live', 'lab']);
    expect(list.json.tools.map((t: { name: string }) => t.name)).toContain('mc_targets');

    const targets = await inspector(['--method', 'tools/call', '--tool-name', 'mc_targets']);
    expect(targets.json.structuredContent).toMatchObject({ count: 2, default: null });

    const forked = await inspector(['--method', 'tools/call', '--tool-name', 'mc_fork', '--tool-arg', 'name=inspected', '--tool-arg', 'target=live']);
    expect(forked.json.isError, JSON.stringify(forked.json)).toBeFalsy();
    const dir = forked.json.structuredContent.snapshotDir as string;
    const labWorld = ((await api.call('state', { target: 'lab' })) as { worldDir: string }).worldDir;
    const dry = await inspector(['--method', 'tools/call', '--tool-name', 'mc_restore', '--tool-arg', `dir=${dir}`, '--tool-arg', 'target=lab']);
    expect(dry.json.structuredContent).toMatchObject({ verdict: 'dry-run' });
    const apply = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'mc_restore',
      '--tool-arg',
      `dir=${dir}`,
      '--tool-arg',
      'target=lab',
      '--tool-arg',
      'dry_run=false',
      '--tool-arg',
      'replace_existing=true',
      '--tool-arg',
      `expect_world_dir=${labWorld}`,
    ]);
    expect(apply.json.structuredContent, JSON.stringify(apply.json)).toMatchObject({ verdict: 'ok' });
    const verify = await inspector(['--method', 'tools/call', '--tool-name', 'mc_verify', '--tool-arg', `dir=${dir}`, '--tool-arg', 'target=lab']);
    expect(verify.json.structuredContent).toMatchObject({ verdict: 'ok', verification: { ok: true } });

    const resources = await inspector(['--method', 'resources/list']);
    expect(resources.json.resources.map((r: { uri: string }) => r.uri)).toEqual(expect.arrayContaining(['mcbridge://events/live', 'mcbridge://events/lab']));
  });
});
