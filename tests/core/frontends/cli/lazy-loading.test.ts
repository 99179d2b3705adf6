/**
 * Each command loads what it uses (docs/decisions.md, "Client commands load no zod" and "run
 * loads what it uses"): a client command loads the API client and not zod, the plugins, the
 * config loader, the sim or the MCP SDK; `run` loads the sim only with --sim and jiti and
 * cosmiconfig only when there is a config; `mcp` in front of a running daemon serves the daemon's
 * tools without loading the built-in plugins (the default surface is for when none answers).
 * Checked by what the process really imported.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, CliProcesses, runCli } from '../../../support/cli-process.js';
import { freePort, startStack, waitUntil, type Stack } from '../../../support/helpers.js';
import { moduleTrace } from '../../../support/module-trace.js';

const processes = new CliProcesses();
const stacks: Stack[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const s of stacks.splice(0)) await s.close();
});

/** A directory with no config from it up to its root, so nothing is found there. */
function bareDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-lazy-'));
}

/** What a client command must never load. */
const HEAVY = [
  '/node_modules/zod/',
  '/node_modules/@modelcontextprotocol/',
  '/node_modules/jiti/',
  '/node_modules/cosmiconfig/',
  '/node_modules/pino/',
  '/dist/core/sim/',
  '/dist/plugins/',
  '/dist/core/host/host.js',
  '/dist/core/api/server.js',
];

describe('what each command loads', { timeout: 90_000 }, () => {
  it('call loads the API client, and none of commander, zod, the plugins, the config loader, the sim, pino or the MCP SDK', async () => {
    const stack = await startStack();
    stacks.push(stack);
    const trace = moduleTrace();
    const result = await runCli(['call', 'state', '--api-port', String(stack.daemon.apiAddress.port)], { cwd: bareDir(), env: trace.env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ type: 'state' });
    expect(trace.matching('/dist/core/api/client.js')).toHaveLength(1);
    for (const heavy of HEAVY) expect(trace.matching(heavy), heavy).toEqual([]);
    // The plain form runs without commander too (quick-call.ts).
    expect(trace.matching('/node_modules/commander/')).toEqual([]);
  });

  it('--help, tools and completion lookups load none of them either', async () => {
    const stack = await startStack();
    stacks.push(stack);
    const port = String(stack.daemon.apiAddress.port);
    for (const args of [['--help'], ['tools', '--api-port', port], ['__complete', '--', 'mcbridge', 'call', '--api-port', port, 'st']]) {
      const trace = moduleTrace();
      const result = await runCli(args, { cwd: bareDir(), env: trace.env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(trace.loaded().length, args.join(' ')).toBeGreaterThan(0);
      for (const heavy of HEAVY) expect(trace.matching(heavy), `${args.join(' ')}: ${heavy}`).toEqual([]);
    }
  });

  it('mcp in front of a running daemon lists its tools from the bundle, without loading the built-in plugins, the HTTP transport or the daemon', async () => {
    const stack = await startStack();
    stacks.push(stack);
    const trace = moduleTrace();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--api-port', String(stack.daemon.apiAddress.port)],
      cwd: bareDir(),
      env: { ...process.env, MCBRIDGE_API_TOKEN: '', ...trace.env } as Record<string, string>,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'lazy-loading-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('mc_state');
    } finally {
      await client.close();
    }
    // The front-end and its libraries come from the build's bundle (scripts/bundle-mcp.mjs), and
    // over stdio none of it is the SDK's runtime code or zod: the protocol layer is ours
    // (protocol.ts), the SDK's schemas were half of the start-up (docs/decisions.md).
    expect(trace.matching('/dist/core/frontends/mcp/run.bundle.js')).toHaveLength(1);
    for (const file of trace.matching('/dist/core/frontends/mcp/')) {
      const code = fs.readFileSync(new URL(file), 'utf8');
      for (const library of ['// node_modules/zod/', '// node_modules/@modelcontextprotocol/', '// node_modules/ajv/']) expect(code.includes(library), `${file}: ${library}`).toBe(false);
    }
    expect(trace.matching('/dist/core/frontends/mcp/run.js')).toEqual([]);
    // Started as MCP clients start it (global flags only), it skips commander (quick-call.ts).
    expect(trace.matching('/node_modules/commander/')).toEqual([]);
    for (const absent of [
      '/dist/plugins/',
      '/dist/core/daemon/builtins.js',
      '/dist/core/daemon/daemon.js',
      '/dist/core/host/host.js',
      'bundle-http-',
      '/node_modules/jiti/',
      '/node_modules/@modelcontextprotocol/',
      '/node_modules/zod/',
      '/node_modules/ajv/',
      '/node_modules/pino/',
    ]) {
      expect(trace.matching(absent), absent).toEqual([]);
    }
  });

  it('run without a config or --sim loads neither the sim nor jiti, cosmiconfig or the MCP SDK; --sim loads the sim', async () => {
    const stack = await startStack();
    stacks.push(stack);
    const plain = moduleTrace();
    const daemon = processes.start(['run', '--mod-port', String(stack.sim.port), '--api-port', String(await freePort())], { cwd: bareDir(), env: plain.env });
    await waitUntil(() => /connected to server mod/.test(daemon.out.stderr), 30_000, 'the daemon to connect');
    expect(plain.matching('/node_modules/zod/').length).toBeGreaterThan(0);
    for (const absent of ['/dist/core/sim/', '/node_modules/jiti/', '/node_modules/cosmiconfig/', '/node_modules/@modelcontextprotocol/']) {
      expect(plain.matching(absent), absent).toEqual([]);
    }

    const withSim = moduleTrace();
    const simDaemon = processes.start(['run', '--sim', '--api-port', String(await freePort())], { cwd: bareDir(), env: withSim.env });
    await waitUntil(() => /connected to server mod/.test(simDaemon.out.stderr), 30_000, 'the --sim daemon to connect');
    expect(withSim.matching('/dist/core/sim/index.js')).toHaveLength(1);
    expect(withSim.matching('/node_modules/jiti/')).toEqual([]);
  });
});
