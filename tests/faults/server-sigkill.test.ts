/**
 * A daemon SIGKILLed while it starts a server and while it resets one (issue 36, "Nothing left
 * behind"): the next daemon on the same state folder finds the journal, stops what the dead one
 * left running (grandchildren included), and finds the world whole: the previous one, never a mix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { CliProcesses } from '../support/cli-process.js';
import { startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/helpers.js';
import { alive, FAKE_SERVER, serverFolder } from '../support/servers.js';

type Json = Record<string, any>;
const processes = new CliProcesses();
const roots: string[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function project(launch: Json): { root: string; config: string; env: NodeJS.ProcessEnv } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-sigkill-')));
  roots.push(root);
  serverFolder(root, 'lab');
  const config = path.join(root, 'mcbridge.config.json');
  fs.writeFileSync(config, JSON.stringify({ plugins: [['server', { killGraceMs: 300 }]], targets: { lab: { launch: { cwd: 'servers/lab', ...launch } } } }));
  return { root, config, env: { MCBRIDGE_STATE_DIR: path.join(root, 'state') } };
}

/** A daemon that need not be connected yet: its API port once it listens. */
async function listening(config: string, env: NodeJS.ProcessEnv): Promise<{ port: number; child: ReturnType<CliProcesses['start']>['child']; out: { stderr: string } }> {
  const { child, out } = processes.start(['run', '--api-port', '0', '--config', config], { env });
  let port = 0;
  await waitUntil(() => (port = Number(/mcbridge daemon listening on [^"]*:(\d+)"/.exec(out.stderr)?.[1] ?? 0)) > 0, 20_000, 'the daemon to listen');
  return { port, child, out };
}

describe('a daemon SIGKILLed', { timeout: 120_000 }, () => {
  it('during a start: the next run stops the server it left (and its grandchildren) and starts its own', async () => {
    const { config, env } = project({ command: [process.execPath, FAKE_SERVER, '--fork', '--slow', '4000', '--mod'] });
    const first = await listening(config, env);
    const api = await ApiClient.connect({ port: first.port });
    let status: Json = {};
    await waitUntil(async () => (status = (await api.call('server_status', {})) as Json).state === 'starting' && status.pid !== null, 20_000, 'the server to be starting');
    const logs = async () => ((await api.call('logs', { grep: 'grandchild' })) as Json).records.length;
    await waitUntil(async () => (await logs()) === 2, 20_000, 'the grandchildren');
    const left = [status.pid as number, ...((await api.call('logs', { grep: 'grandchild' })) as Json).records.map((r: Json) => Number(/\d+/.exec(r.message)![0]))];
    api.close();
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(left.every(alive)).toBe(true);

    const second = await startDaemonProcess(processes, [], env, config);
    expect(left.filter(alive)).toEqual([]);
    expect(second.out.stderr).toMatch(/stopped a server left running by an earlier daemon/);
    const api2 = await ApiClient.connect({ port: second.port });
    let now: Json = {};
    // The link's "connected" log line can come a poll before the plugin sees it.
    await waitUntil(async () => (now = (await api2.call('server_status', {})) as Json).state === 'running', 20_000, 'the new server to run');
    expect(left).not.toContain(now.pid);
    api2.close();
    await second.kill('SIGTERM');
    expect(alive(now.pid)).toBe(false);
  });

  it('with launch.adopt: the next run takes over the server it left (same pid), and stops it when asked', async () => {
    const { config, env } = project({ command: [process.execPath, FAKE_SERVER, '--mod'], adopt: true, stopTimeout: '2s' });
    const first = await startDaemonProcess(processes, [], env, config);
    const api = await ApiClient.connect({ port: first.port });
    const { pid } = (await api.call('server_status', {})) as Json;
    api.close();
    await first.kill('SIGKILL');
    expect(alive(pid)).toBe(true);

    const second = await startDaemonProcess(processes, [], env, config);
    const api2 = await ApiClient.connect({ port: second.port });
    let status: Json = {};
    await waitUntil(async () => (status = (await api2.call('server_status', {})) as Json).state === 'running', 20_000, 'the adopted server to run');
    expect(status).toMatchObject({ state: 'running', pid });
    expect(second.out.stderr).not.toMatch(/stopped a server left running/);
    expect(((await api2.call('state', {})) as Json).type).toBe('state');
    const events = ((await api2.call('events', { limit: 100 })) as Json).events.filter((e: Json) => e.type.startsWith('server_')).map((e: Json) => e.type);
    expect(events).toEqual(['server_adopted', 'server_started']);
    const stopped = (await api2.call('server_stop', {})) as Json;
    expect(stopped).toMatchObject({ state: 'stopped', stopped: { requested: true } });
    expect(alive(pid)).toBe(false);
    api2.close();
    await second.kill('SIGTERM');
  });

  it('during a reset: the next run finds the previous world whole and no partial copy', async () => {
    const { root, config, env } = project({ command: [process.execPath, FAKE_SERVER, '--mod'], world: { template: 'templates/big' }, stopTimeout: '5s' });
    // Big enough that the copy is still going when the test sees it begin.
    const template = path.join(root, 'templates', 'big');
    fs.mkdirSync(path.join(template, 'region'), { recursive: true });
    const block = Buffer.alloc(64 * 1024, 7);
    for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(template, 'region', `r.${i}.mca`), block);
    fs.writeFileSync(path.join(template, 'level.dat'), 'clean');
    const world = path.join(root, 'servers', 'lab', 'world');
    fs.mkdirSync(world, { recursive: true });
    fs.writeFileSync(path.join(world, 'level.dat'), 'played');
    fs.writeFileSync(path.join(world, 'ops.json'), '["bot"]');

    const first = await startDaemonProcess(processes, [], env, config);
    const api = await ApiClient.connect({ port: first.port });
    const reset = api.call('server_reset', {}).catch((err: unknown) => err);
    const incoming = path.join(root, 'servers', 'lab', '.world.mcbridge-incoming');
    await waitUntil(() => fs.existsSync(incoming), 30_000, 'the copy to begin');
    process.kill(first.pid, 'SIGKILL');
    await reset;
    api.close();
    expect(fs.existsSync(incoming)).toBe(true);

    const second = await startDaemonProcess(processes, [], env, config);
    expect(fs.existsSync(incoming)).toBe(false);
    expect(fs.readFileSync(path.join(world, 'level.dat'), 'utf8')).toBe('played');
    expect(fs.readFileSync(path.join(world, 'ops.json'), 'utf8')).toBe('["bot"]');
    expect(fs.existsSync(path.join(world, 'region'))).toBe(false);
    // And a reset that is let finish puts the template in place whole.
    const api2 = await ApiClient.connect({ port: second.port });
    const done = (await api2.call('server_reset', {}, { timeoutMs: 60_000 })) as Json;
    expect(done.reset).toMatchObject({ files: 3001, replaced: true, source: { kind: 'template' } });
    expect(fs.existsSync(path.join(world, 'ops.json'))).toBe(false);
    expect(fs.readdirSync(path.join(world, 'region'))).toHaveLength(3000);
    expect(fs.readdirSync(path.join(root, 'templates', 'big', 'region'))).toHaveLength(3000);
    api2.close();
    await second.kill('SIGTERM');
  });
});
