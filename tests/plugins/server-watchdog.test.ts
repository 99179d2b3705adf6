/**
 * The server plugin's watchdog over a real daemon process (docs/servers.md, "Watchdog"): a crash
 * loop restarted with backoff until the watchdog gives up, an idle server stopped and started
 * again by the next call (saying so in its progress), a server not started with the daemon
 * started by its first call, and a frozen server (SIGSTOP) reported hung, then responding.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { CliProcesses } from '../support/cli-process.js';
import type { DaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/helpers.js';
import { configuredDaemon, FAKE_SERVER as FAKE, serverFolder } from '../support/servers.js';

type Json = Record<string, any>;
const node = process.execPath;

describe('the watchdog', { timeout: 120_000 }, () => {
  const processes = new CliProcesses();
  let root: string;
  let daemon: DaemonProcess;
  let api: ApiClient;
  const call = async (tool: string, target: string, params: Json = {}, options = {}) => (await api.call(tool, { ...params, target }, options)) as Json;
  const serverEvents = async (target: string) => (await call('events', target, { limit: 1000 })).events.filter((e: Json) => e.type.startsWith('server_'));

  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-watchdog-')));
    for (const name of ['loop', 'idle', 'lazy', 'frozen']) serverFolder(root, name);
    const config = {
      plugins: [['server', { killGraceMs: 300, maxCrashes: 3, minBackoffMs: 50, maxBackoffMs: 200 }]],
      targets: {
        frozen: { default: true, launch: { command: [node, FAKE, '--mod'], cwd: 'servers/frozen', hungAfter: '1500ms' } },
        loop: { launch: { command: [node, FAKE, '--mod', '--crash-after', '1500'], cwd: 'servers/loop', restart: 'on-crash' } },
        idle: { launch: { command: [node, FAKE, '--mod'], cwd: 'servers/idle', idleStop: '1s', stopTimeout: '5s' } },
        lazy: { launch: { command: [node, FAKE, '--mod'], cwd: 'servers/lazy', autoStart: false } },
      },
    };
    daemon = await configuredDaemon(processes, root, config);
    api = await ApiClient.connect({ port: daemon.port });
    await waitUntil(async () => (await call('server_status', 'frozen')).state === 'running', 30_000, 'the frozen server to be up');
  }, 60_000);

  afterAll(async () => {
    api?.close();
    await processes.stopAll();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('restarts a crashing server with backoff, then gives up after maxCrashes and says why', async () => {
    await waitUntil(async () => (await call('server_status', 'loop')).gaveUp !== null, 30_000, 'the watchdog to give up');
    const status = await call('server_status', 'loop');
    expect(status).toMatchObject({ state: 'crashed', restarts: 2, pid: null, lastExit: { code: 1, requested: false } });
    expect(status.gaveUp).toMatch(/crashed 3 times within 60 s/);
    expect(status.lastCrash).toMatch(/exit code 1/);
    const types = (await serverEvents('loop')).map((e: Json) => e.type);
    expect(types.filter((t: string) => t === 'server_crashed')).toHaveLength(3);
    expect(types.filter((t: string) => t === 'server_restarting')).toHaveLength(2);
    expect(types.at(-1)).toBe('server_gave_up');
    // It stays down: no further start after the give-up.
    const { restarts } = await call('server_status', 'loop');
    await new Promise((r) => setTimeout(r, 500));
    expect((await call('server_status', 'loop')).restarts).toBe(restarts);
  });

  it('stops an idle server (it saved and stopped) and the next call starts it again, saying so in its progress', async () => {
    await waitUntil(async () => (await call('server_status', 'idle')).idle.stoppedForIdle === true && (await call('server_status', 'idle')).state === 'stopped', 20_000, 'the idle stop');
    const stopped = await call('server_status', 'idle');
    expect(stopped).toMatchObject({ pid: null, lastExit: { code: 0, requested: true }, idle: { startsOnNextCall: true } });
    const progress: string[] = [];
    const state = await call('state', 'idle', {}, { onProgress: (p: Json) => progress.push(String(p.message)) });
    expect(state.type).toBe('state');
    expect(progress.join('\n')).toMatch(/starting the server of 'idle' for this call \(stopped after 1 s without a call\)/);
    expect((await call('server_status', 'idle')).state).toBe('running');
    const types = (await serverEvents('idle')).map((e: Json) => e.type);
    expect(types).toEqual(['server_started', 'server_idle_stop', 'server_stopped', 'server_started']);
  });

  it('a server not started with the daemon is started by the first call that needs the game, not by status', async () => {
    expect(await call('server_status', 'lazy')).toMatchObject({ state: 'stopped', idle: { startsOnNextCall: true } });
    await call('logs', 'lazy');
    expect((await call('server_status', 'lazy')).state).toBe('stopped');
    expect((await call('state', 'lazy')).type).toBe('state');
    expect((await call('server_status', 'lazy')).state).toBe('running');
    // Stopped by hand, it stays stopped: a call is refused rather than starting it.
    await call('server_stop', 'lazy');
    await expect(call('state', 'lazy')).rejects.toMatchObject({ code: 'not_connected' });
  });

  it('reports a frozen server hung, and responding again once it runs', async () => {
    const { pid } = await call('server_status', 'frozen');
    process.kill(pid, 'SIGSTOP');
    try {
      await waitUntil(async () => (await call('server_status', 'frozen')).hung === true, 20_000, 'the hung report');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitUntil(async () => (await call('server_status', 'frozen')).hung === false, 20_000, 'the server to answer again');
    const types = (await serverEvents('frozen')).map((e: Json) => e.type);
    expect(types).toEqual(['server_started', 'server_hung', 'server_responding']);
    const hung = (await serverEvents('frozen')).find((e: Json) => e.type === 'server_hung');
    expect(hung).toMatchObject({ pid, origin: 'mcbridge' });
    expect(hung.silentMs).toBeGreaterThanOrEqual(1500);
  });
});
