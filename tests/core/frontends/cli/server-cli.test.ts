/**
 * `mcbridge server start|stop|restart|reset|status` (docs/servers.md) against a real daemon that
 * runs the test's server script: a line per server on stdout, progress on stderr, --json, a reset
 * from a template, a failing start with its exit code and last lines, and usage errors (exit 2).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { waitUntil } from '../../../support/helpers.js';
import type { DaemonProcess } from '../../../support/daemon-process.js';
import { configuredDaemon, FAKE_SERVER, serverFolder } from '../../../support/servers.js';

const processes = new CliProcesses();
let root: string;
let daemon: DaemonProcess;
const cli = (...args: string[]) => runCli(['--api-port', String(daemon.port), ...args], { timeoutMs: 60_000 });

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-server-cli-')));
  serverFolder(root, 'lab');
  serverFolder(root, 'broken');
  fs.mkdirSync(path.join(root, 'templates', 'clean'), { recursive: true });
  fs.writeFileSync(path.join(root, 'templates', 'clean', 'level.dat'), 'clean');
  const config = {
    targets: {
      lab: { default: true, launch: { command: [process.execPath, FAKE_SERVER, '--mod'], cwd: 'servers/lab' } },
      broken: { launch: { command: [process.execPath, '-e', "console.error('Error: no server.jar'); process.exit(2)"], cwd: 'servers/broken', autoStart: false } },
    },
  };
  daemon = await configuredDaemon(processes, root, config);
  // The link's "connected" log line can come a poll before the server plugin sees it.
  const api = await ApiClient.connect({ port: daemon.port });
  await waitUntil(async () => ((await api.call('server_status', { target: 'lab' })) as { state: string }).state === 'running', 20_000, 'the lab server to run');
  api.close();
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('mcbridge server', { timeout: 60_000 }, () => {
  it('status: one line with state, pid, uptime and restarts; --json the whole answer', async () => {
    const text = await cli('server', 'status');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^lab: running \(pid \d+, up \d+ s, restarts 0\)\n$/);
    const json = await cli('server', 'status', '--json', '--target', 'lab');
    expect(JSON.parse(json.stdout)).toMatchObject({ target: 'lab', launched: true, state: 'running' });
  });

  it('restart: progress on stderr as it comes, the new state on stdout', async () => {
    const run = await cli('server', 'restart');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/stopping the server \(restart\): asking it to save and stop\n(.*\n)*server started \(pid \d+\); waiting for its mod to answer\nready: the mod answered after \d+ ms/);
    expect(run.stdout).toMatch(/^lab: running \(pid \d+, up 0 s, restarts 0\)\n {2}last exit: code 0 \(asked\)\n$/);
  });

  it('reset --template: the world is the template, said on stdout', async () => {
    const run = await cli('server', 'reset', '--template', 'templates/clean');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/world from the template templates\/clean: 1 files, 5 bytes/);
    expect(fs.readFileSync(path.join(root, 'servers', 'lab', 'world', 'level.dat'), 'utf8')).toBe('clean');
  });

  it('a start that fails exits 1 with the code, the exit code and the last lines', async () => {
    const run = await cli('server', 'start', '--target', 'broken');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/exited before its mod answered \(exit code 2\)\. Last lines:\n.*Error: no server\.jar[\s\S]*\[server_failed\]/);
    expect(run.stdout).toBe('');
  });

  it('usage errors exit 2 and say what to write instead', async () => {
    const bad = await cli('server', 'launch');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown server action 'launch': use one of start, stop, restart, reset, status/);
    const misplaced = await cli('server', 'start', '--fork', 'x');
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/--template and --fork go with `server reset` only/);
    const both = await cli('server', 'reset', '--fork', 'x', '--template', 'y');
    expect(both.code).toBe(2);
  });

  it('stop: the server is stopped and says how it exited', async () => {
    const run = await cli('server', 'stop');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^lab: stopped \(restarts 0\)\n {2}last exit: code 0 \(asked\)\n$/);
  });
});
