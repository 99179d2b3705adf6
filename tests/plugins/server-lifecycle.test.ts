/**
 * The server plugin over a real daemon process (docs/servers.md): targets whose `launch` runs the
 * test's own server script (tests/support/fake-server.mjs, serving the simulated mod with --mod):
 * start with the daemon, stop, restart, a server that ignores `stop` and SIGTERM, one that fails
 * before its mod answers, one whose mod never answers, grandchildren, read-only mode, a target
 * mcbridge does not run, and the daemon's own exit taking its servers with it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import type { McbridgeError } from '../../core/host/errors.js';
import { CliProcesses } from '../support/cli-process.js';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/helpers.js';
import { alive, configuredDaemon, FAKE_SERVER as FAKE, serverFolder } from '../support/servers.js';

type Json = Record<string, any>;
const node = process.execPath;

async function failure(p: Promise<unknown>): Promise<McbridgeError> {
  try {
    await p;
  } catch (err) {
    return err as McbridgeError;
  }
  throw new Error('expected the call to fail');
}

describe('launched servers of one daemon', { timeout: 120_000 }, () => {
  const processes = new CliProcesses();
  let root: string;
  let daemon: DaemonProcess;
  let api: ApiClient;
  const call = async (tool: string, target: string, params: Json = {}) => (await api.call(tool, { ...params, target })) as Json;

  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-servers-')));
    for (const name of ['lab', 'stubborn', 'broken', 'mute', 'plain', 'slow']) serverFolder(root, name);
    const config = {
      plugins: [['server', { killGraceMs: 300 }]],
      targets: {
        lab: { default: true, launch: { command: [node, FAKE, '--mod', '--fork'], cwd: 'servers/lab', stopTimeout: '5s' } },
        stubborn: { launch: { command: [node, FAKE, '--mod', '--ignore-stop', '--ignore-term'], cwd: 'servers/stubborn', stopTimeout: '300ms' } },
        broken: {
          launch: {
            command: [node, '-e', "console.log('[12:00:00] [main/ERROR]: Failed to load eula.txt'); process.exit(3)"],
            cwd: 'servers/broken',
            autoStart: false,
          },
        },
        mute: { launch: { command: [node, FAKE], cwd: 'servers/mute', readyTimeout: '1s', autoStart: false } },
        plain: { serverDir: 'servers/plain' },
        slow: { launch: { command: [node, FAKE, '--slow', '3000', '--mod'], cwd: 'servers/slow', autoStart: false } },
      },
    };
    daemon = await configuredDaemon(processes, root, config);
    api = await ApiClient.connect({ port: daemon.port });
    for (const name of ['lab', 'stubborn']) await waitUntil(async () => (await call('server_status', name)).state === 'running', 30_000, `the ${name} server to be up`);
  }, 60_000);

  afterAll(async () => {
    api?.close();
    await processes.stopAll();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('starts with the daemon: running, its pid, its console in `logs`, and the game answers', async () => {
    const status = await call('server_status', 'lab');
    expect(status).toMatchObject({ launched: true, state: 'running', restarts: 0, lastExit: null });
    expect(alive(status.pid)).toBe(true);
    expect(((await call('state', 'lab')) as Json).type).toBe('state');
    const logs = await call('logs', 'lab', { grep: 'Starting minecraft server' });
    expect(logs.records.length).toBe(1);
    expect(logs.records[0]).toMatchObject({ level: 'INFO', thread: 'Server thread' });
  });

  it('restart: a new process once the old one and its grandchildren are gone, and events say so', async () => {
    const before = await call('server_status', 'lab');
    // The newest record is held a moment for a trace that may follow it: wait for both lines.
    await waitUntil(async () => (await call('logs', 'lab', { grep: 'grandchild' })).records.length === 2, 10_000, 'both grandchild lines in the log');
    const grandchildren = (await call('logs', 'lab', { grep: 'grandchild' })).records.map((r: Json) => Number(/grandchild (\d+)/.exec(r.message)![1]));
    expect(grandchildren.every(alive)).toBe(true);
    const after = await call('server_restart', 'lab');
    expect(after).toMatchObject({ state: 'running', started: true });
    expect(after.pid).not.toBe(before.pid);
    expect(alive(before.pid)).toBe(false);
    // The one in its group and the one that left it (its own group, found by the launch marker).
    expect(grandchildren.filter(alive)).toEqual([]);
    expect(after.lastExit).toMatchObject({ code: 0, requested: true });
    const events = (await call('events', 'lab', { limit: 500 })).events.map((e: Json) => e.type).filter((t: string) => t.startsWith('server_'));
    // The daemon's start, then the restart: each stop before the start that follows it.
    expect(events).toEqual(['server_started', 'server_stopped', 'server_started']);
    expect(((await call('state', 'lab')) as Json).type).toBe('state');
  });

  it('stop: it stays stopped (a call on it is refused), and start brings it back', async () => {
    const { pid } = await call('server_status', 'lab');
    const stopped = await call('server_stop', 'lab');
    expect(stopped).toMatchObject({ state: 'stopped', stopped: { code: 0, requested: true } });
    expect(alive(pid)).toBe(false);
    expect((await failure(call('state', 'lab'))).code).toBe('not_connected');
    expect((await call('server_status', 'lab')).state).toBe('stopped');
    expect(await call('server_start', 'lab')).toMatchObject({ state: 'running', started: true });
    expect(await call('server_start', 'lab')).toMatchObject({ state: 'running', started: false });
  });

  it('a server that ignores stop and SIGTERM is killed with its group after stopTimeout and the grace', async () => {
    const { pid } = await call('server_status', 'stubborn');
    const stopped = await call('server_stop', 'stubborn');
    expect(stopped.stopped).toMatchObject({ signal: 'SIGKILL', requested: true });
    expect(alive(pid)).toBe(false);
    const lines = (await call('logs', 'stubborn', { grep: 'SIGKILL' })).records;
    expect(lines.length).toBeGreaterThan(0);
  });

  it('a server that exits before its mod answers: server_failed with its exit code and last lines', async () => {
    const err = await failure(call('server_start', 'broken'));
    expect(err.code).toBe('server_failed');
    expect(err.message).toMatch(/exited before its mod answered \(exit code 3\)/);
    expect(err.message).toMatch(/Failed to load eula\.txt/);
    expect(err.details).toMatchObject({ exitCode: 3, lastLines: expect.arrayContaining([expect.stringContaining('Failed to load eula.txt')]) });
    expect(await call('server_status', 'broken')).toMatchObject({ state: 'crashed', lastExit: { code: 3, requested: false } });
  });

  it('a server whose mod never answers: timeout after readyTimeout, and nothing of it left running', async () => {
    const err = await failure(call('server_start', 'mute'));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/did not answer within 1000 ms, so it was stopped/);
    expect(err.message).toMatch(/Done \(/);
    const status = await call('server_status', 'mute');
    expect(status.state).toBe('stopped');
    expect(status.pid).toBeNull();
    expect(alive(err.details!.pid as number)).toBe(false);
  });

  it('a stop during a start ends its wait at once, and no start asked before the stop runs after it', async () => {
    const starts = Promise.allSettled([call('server_start', 'slow'), call('server_start', 'slow')]);
    let status: Json = {};
    await waitUntil(async () => (status = await call('server_status', 'slow')).state === 'starting' && status.pid !== null, 20_000, 'the slow start');
    const stopped = await call('server_stop', 'slow');
    // The start it preempted stopped what it had started: this stop found it stopped.
    expect(stopped).toMatchObject({ state: 'stopped', pid: null, lastExit: { requested: true } });
    expect(alive(status.pid)).toBe(false);
    const [a, b] = await starts;
    expect(a).toMatchObject({ status: 'rejected', reason: { code: 'cancelled' } });
    expect(b).toMatchObject({ status: 'rejected', reason: { code: 'cancelled' } });
    expect(await call('server_status', 'slow')).toMatchObject({ state: 'stopped', pid: null });
    // Asked after the stop, a start runs; two at once share one process.
    const [c, d] = await Promise.all([call('server_start', 'slow'), call('server_start', 'slow')]);
    expect([c.started, d.started]).toEqual([true, false]);
    expect(c.pid).toBe(d.pid);
    await call('server_stop', 'slow');
    expect(alive(c.pid)).toBe(false);
  });

  it('a call that needs the game, made while its server starts, waits for the start instead of failing', async () => {
    const starting = call('server_start', 'slow');
    await waitUntil(async () => (await call('server_status', 'slow')).state === 'starting', 20_000, 'the slow start');
    const progress: string[] = [];
    const state = (await api.call('state', { target: 'slow' }, { onProgress: (p) => progress.push(String(p.message)) })) as Json;
    expect(state.type).toBe('state');
    expect(progress).toEqual(["waiting for the server of 'slow' to start"]);
    expect((await starting).state).toBe('running');
    await call('server_stop', 'slow');
  });

  it('a target mcbridge does not run: status says so, the lifecycle tools are refused with what to do', async () => {
    expect(await call('server_status', 'plain')).toMatchObject({ launched: false });
    const err = await failure(call('server_start', 'plain'));
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/give the target a launch in the config/);
  });

  it('a reset from a template outside the config folder is refused, the world untouched', async () => {
    const err = await failure(call('server_reset', 'lab', { from: { template: '/etc' } }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/outside the config folder/);
    expect((await call('server_status', 'lab')).state).toBe('running');
  });

  it('the daemon stopping (SIGTERM) stops every server it runs, and its journal is left empty', async () => {
    const pids = [(await call('server_status', 'lab')).pid as number];
    expect(pids.every(alive)).toBe(true);
    await daemon.kill('SIGTERM');
    expect(pids.filter(alive)).toEqual([]);
    const journal = JSON.parse(fs.readFileSync(path.join(root, 'state', 'servers', 'processes.json'), 'utf8'));
    expect(journal.entries).toEqual([]);
  });
});

describe('read-only mode', { timeout: 60_000 }, () => {
  const processes = new CliProcesses();
  afterAll(() => processes.stopAll());

  it('hides the lifecycle tools that change a server; server_status stays', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-servers-ro-')));
    serverFolder(root, 'lab');
    fs.writeFileSync(path.join(root, 'mcbridge.config.json'), JSON.stringify({ targets: { lab: { launch: { command: [node, FAKE, '--mod'], cwd: 'servers/lab' } } } }));
    const daemon = await startDaemonProcess(processes, ['--read-only'], { MCBRIDGE_STATE_DIR: path.join(root, 'state') }, path.join(root, 'mcbridge.config.json'));
    const api = await ApiClient.connect({ port: daemon.port });
    try {
      await waitUntil(async () => ((await api.call('server_status', {})) as Json).state === 'running', 20_000, 'the server to run');
      for (const tool of ['server_stop', 'server_restart', 'server_reset', 'server_start']) {
        expect((await failure(api.call(tool, {}))).code).toBe('tool_disabled');
      }
      expect(await api.call('server_status', {})).toMatchObject({ state: 'running' });
    } finally {
      api.close();
      await daemon.kill('SIGTERM');
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
