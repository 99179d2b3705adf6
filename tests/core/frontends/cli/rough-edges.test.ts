/**
 * The CLI's rough edges of issue 35, item 22, each against real processes: `status` says which
 * target it checked when none is the default; `targets` keeps a row to one line (--json keeps the
 * error whole); `mcp --transport http` on a taken port, or on 0.0.0.0 without a token, is a usage
 * error (exit 2) that says what to do; the predecessor's MC_AGENT_IPC_TOKEN is a client's token;
 * `request-status` of an id nobody knows exits 1 with its answer on stdout.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { startDaemonProcess, type DaemonProcess } from '../../../support/daemon-process.js';
import { ERROR_CELL_CHARS } from '../../../../core/frontends/cli/targets.js';

const processes = new CliProcesses();
const clean = { MCBRIDGE_TARGET: '', MCBRIDGE_API_TOKEN: '', MC_AGENT_IPC_TOKEN: '', MCBRIDGE_MCP_TOKEN: '' };
afterAll(async () => {
  await processes.stopAll();
  removeProjects();
});

describe('a daemon of two targets, none the default, one whose mod is never found', { timeout: 90_000 }, () => {
  let daemon: DaemonProcess;
  const cli = (args: string[]) => runCli(['--api-port', String(daemon.port), ...args], { env: clean });
  beforeAll(async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-lost-'));
    const dir = project({ install: false });
    const config = dir.write('mcbridge.config.json', JSON.stringify({ targets: { live: { sim: true }, lost: { serverDir: empty } } }));
    daemon = await startDaemonProcess(processes, [], clean, config);
  }, 60_000);

  it('status names the target whose checks it shows: the first listed, since none is the default', async () => {
    const status = await cli(['status']);
    expect(status.stdout).toMatch(/^FAIL\s+targets\s+2 targets: live connected, lost not connected \(.*\); no target is the default, so the checks below are live's, the first listed/m);
    expect(status.stdout).toMatch(/^ok\s+mod\s+connected on 127\.0\.0\.1:\d+/m);
    // One line per target's error there too: the discovery error runs over six lines.
    expect(status.stdout.split('\n').find((l) => l.includes(' targets '))!.length).toBeLessThan(400);
  });

  it('targets cuts the multi-line discovery error to one short line; --json keeps it whole', async () => {
    const json = JSON.parse((await cli(['targets', '--json'])).stdout) as { targets: Array<{ name: string; lastError: string | null }> };
    const whole = json.targets.find((t) => t.name === 'lost')!.lastError!;
    expect(whole.split('\n').length).toBeGreaterThan(2);
    const table = await cli(['targets']);
    expect(table.code).toBe(0);
    const row = table.stdout.split('\n').find((l) => l.startsWith('lost '))!;
    const cell = /no \((.*?)\)\s+server/.exec(row)?.[1];
    const first = whole.split('\n')[0]!;
    expect(cell).toBe(`${first.slice(0, ERROR_CELL_CHARS - 1).trimEnd()}…`);
    expect(table.stdout).not.toContain(whole.split('\n')[1]!.trim());
    expect(table.stdout).toContain('errors are cut to one line here: `mcbridge targets --json` has them whole');
  });

  it('request-status of an id nobody knows exits 1, the answer still on stdout; a known one exits 0', async () => {
    const unknown = await cli(['--target', 'live', 'request-status', 'nobody-knows-1']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/^nobody-knows-1: unknown: this daemon has no record of it/);
    const json = await cli(['--target', 'live', 'request-status', 'nobody-knows-1', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ requestId: 'nobody-knows-1', state: 'unknown' });
    expect((await cli(['--target', 'live', 'call', 'mark', '{"text": "known", "request_id": "known-1"}'])).code).toBe(0);
    const known = await cli(['--target', 'live', 'request-status', 'known-1']);
    expect(known.stdout).toMatch(/^known-1: completed: it ran\n/);
    expect(known.code).toBe(0);
  });
});

describe("the predecessor's client token variable, MC_AGENT_IPC_TOKEN", { timeout: 90_000 }, () => {
  const TOKEN = 'a-token-of-enough-length-0123';
  let daemon: DaemonProcess;
  beforeAll(async () => {
    daemon = await startDaemonProcess(processes, ['--sim', '--api-token', TOKEN], clean);
  }, 60_000);
  const call = (args: string[], env: NodeJS.ProcessEnv) => runCli([...args, '--api-port', String(daemon.port)], { env: { ...clean, ...env } });

  it('is the token of call (its quick path) and of the other client commands when MCBRIDGE_API_TOKEN is unset', async () => {
    expect((await call(['call', 'state'], {})).code).toBe(1);
    const quick = await call(['call', 'state'], { MC_AGENT_IPC_TOKEN: TOKEN });
    expect(quick.code, quick.stderr).toBe(0);
    expect(JSON.parse(quick.stdout)).toMatchObject({ type: 'state' });
    const tools = await call(['tools'], { MC_AGENT_IPC_TOKEN: TOKEN });
    expect(tools.code, tools.stderr).toBe(0);
  });

  it('comes after MCBRIDGE_API_TOKEN and the flag', async () => {
    const ours = await call(['call', 'state'], { MCBRIDGE_API_TOKEN: 'the-wrong-token-0123456789', MC_AGENT_IPC_TOKEN: TOKEN });
    expect(ours.code).toBe(1);
    expect(ours.stderr).toMatch(/\[unauthorized\]/);
    expect((await call(['call', 'state', '--api-token', TOKEN], { MC_AGENT_IPC_TOKEN: 'the-wrong-token-0123456789' })).code).toBe(0);
  });

  it('is not a token `run` requires: a daemon started with it set lets a client without one in', async () => {
    const open = await startDaemonProcess(processes, ['--sim'], { ...clean, MC_AGENT_IPC_TOKEN: TOKEN });
    const state = await runCli(['call', 'state', '--api-port', String(open.port)], { env: clean });
    expect(state.code, state.stderr).toBe(0);
  });
});

describe('mcp --transport http refusals are usage errors (exit 2) that say what to do', { timeout: 60_000 }, () => {
  it('on a taken port: who holds it and --port, coded, no bare EADDRINUSE', async () => {
    const other = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as net.AddressInfo).port;
    try {
      const mcp = await runCli(['mcp', '--transport', 'http', '--port', String(port), '--api-port', '1'], { env: clean });
      expect(mcp.code).toBe(2);
      expect(mcp.stderr).toContain(`error: the MCP HTTP port 127.0.0.1:${port} is taken by a process that is not an mcbridge daemon already listening there.`);
      expect(mcp.stderr).toContain(`ss -ltnp 'sport = :${port}'`);
      expect(mcp.stderr).toMatch(/start this MCP endpoint on another port: --port <port> \(0 picks a free one; its URL is printed on stdout\)\. \[unavailable\]\n$/);
      expect(mcp.stderr).not.toMatch(/EADDRINUSE/);
    } finally {
      other.close();
    }
  });

  it('on 0.0.0.0 without a token: says to pass --token, and nothing listens', async () => {
    const mcp = await runCli(['mcp', '--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--api-port', '1'], { env: clean });
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toMatch(/^error: refusing to serve MCP on 0\.0\.0\.0 without a token: .*Pass --token auto \(generates one and stores it\) or --token <secret>, or bind 127\.0\.0\.1\.\n$/);
    expect(mcp.stdout).toBe('');
  });
});
