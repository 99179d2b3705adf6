/**
 * `mcbridge sim`: its port.txt goes away with it, and `mcbridge sim chat|join|leave|die` drives the
 * players of a `run --sim` daemon, so the README's `command_until` example completes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { REPO } from '../../../support/config-project.js';
import { ControlTestClient } from '../../../support/control-client.js';
import { waitUntil } from '../../../support/helpers.js';
import { startDaemonProcess } from '../../../faults/support.js';

const processes = new CliProcesses();
const dirs: string[] = [];

afterEach(async () => {
  await processes.stopAll();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-sim-cli-'));
  dirs.push(dir);
  return dir;
}

/** `mcbridge sim --dir <dir> --port 0`, once it printed where it listens. */
async function startSimProcess(dir: string) {
  const { child, out } = processes.start(['sim', '--dir', dir, '--port', '0']);
  await waitUntil(() => out.stdout.includes('\n') || child.exitCode !== null, 20_000, 'the sim to listen');
  return { child, out, info: JSON.parse(out.stdout) as { port: number; portFile: string } };
}

describe('mcbridge sim', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`removes its port.txt when it ends on ${signal}`, async () => {
      const dir = tempDir();
      const { child, info } = await startSimProcess(dir);
      expect(info.portFile).toBe(path.join(fs.realpathSync(dir), 'mc-agent-server', 'port.txt'));
      expect(fs.readFileSync(info.portFile, 'utf8')).toBe(String(info.port));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      expect(await exited).toBe(0);
      expect(fs.existsSync(info.portFile)).toBe(false);
      expect(fs.existsSync(path.dirname(info.portFile))).toBe(true);
    });
  }

  it('a daemon that discovered a separate sim has no sim_* tools, and `sim chat` says how to get them', async () => {
    const dir = tempDir();
    await startSimProcess(dir);
    const daemon = await startDaemonProcess(processes, ['--server-dir', dir]);
    const run = await runCli(['sim', 'chat', 'Steve', 'hello', '--api-port', String(daemon.port)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/does not run a simulated mod in its own process.*mcbridge run --sim.*\[unknown_method\]/);
  }, 60_000);
});

describe('mcbridge sim --control', () => {
  it('prints the control address with its pin and the bootstrap token once, logs neither token nor secret, and the token says hello', async () => {
    const dir = tempDir();
    const { child, out } = processes.start(['sim', '--dir', dir, '--port', '0', '--control']);
    await waitUntil(() => out.stdout.includes('token: ') || child.exitCode !== null, 20_000, 'the control lines');
    await waitUntil(() => out.stdout.endsWith('\n'), 5_000, 'the whole token line');
    const [json, control, tokenLine, ...rest] = out.stdout.split('\n');
    expect(JSON.parse(json)).toMatchObject({ vantage: 'server' });
    expect(rest).toEqual(['']);
    const [, address, fingerprint] = /^control: (127\.0\.0\.1:\d+) (sha256:[0-9a-f]{64})$/.exec(control)!;
    const token = /^token: (mca1\.tk_[0-9a-f]{12}\.[A-Za-z0-9_-]{43})$/.exec(tokenLine)![1];
    const certFile = path.join(dir, 'mc-agent-server', 'control', 'server.crt');
    expect(fs.readFileSync(path.join(dir, 'mc-agent-server', 'control', 'fingerprint.txt'), 'utf8').trim()).toBe(fingerprint);
    expect(out.stderr).not.toContain(token.split('.')[2]);
    const { client, first } = await ControlTestClient.hello(Number(address.split(':')[1]), certFile, { token });
    expect(first).toMatchObject({ type: 'welcome', permissions: ['read', 'write'] });
    expect(client.leafFingerprint()).toBe(fingerprint);
    client.close();

    // A second start on the same dir reuses the identity and the stored credential: no new token.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const again = processes.start(['sim', '--dir', dir, '--port', '0', '--control-port', '0']);
    await waitUntil(() => again.out.stdout.includes('control: ') && again.out.stdout.endsWith('\n'), 20_000, 'the control line');
    expect(again.out.stdout.split('\n').slice(1)).toEqual([expect.stringContaining(fingerprint), '']);
  }, 60_000);
});

describe('mcbridge sim chat|join|leave|die against `mcbridge run --sim`', () => {
  it('players join, die, leave and chat; each change shows in `state` or the event log', async () => {
    const daemon = await startDaemonProcess(processes, ['--sim']);
    const cli = async (...args: string[]) => {
      const run = await runCli([...args, '--api-port', String(daemon.port)]);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.code, args.join(' ')).toBe(0);
      return JSON.parse(run.stdout);
    };
    const names = async () => ((await cli('call', 'state')).playerList as Array<{ name: string }>).map((p) => p.name);

    expect(await cli('sim', 'join', 'Alex')).toMatchObject({ joined: { name: 'Alex', x: 0.5, y: 64, z: 0.5 } });
    expect(await names()).toEqual(['Steve', 'Alex']);
    await cli('call', 'command', '{"command": "tp Alex 40 70 40"}');
    expect(await cli('sim', 'die', 'alex')).toMatchObject({ respawned: { name: 'Alex', x: 0.5, y: 64, z: 0.5 } });
    expect(await cli('sim', 'chat', 'Alex', 'back', 'at', 'spawn')).toMatchObject({ event: { type: 'chat', sender: 'Alex', text: 'back at spawn' } });
    const events = await cli('call', 'events', '{"since": 0}');
    expect(events.events).toEqual(expect.arrayContaining([expect.objectContaining({ category: 'chat', sender: 'Alex', text: 'back at spawn' })]));
    expect(await cli('sim', 'leave', 'Alex')).toMatchObject({ left: { name: 'Alex' } });
    expect(await names()).toEqual(['Steve']);

    const refused = await runCli(['sim', 'chat', 'Alex', 'hi', '--api-port', String(daemon.port)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("no player 'Alex' is online in the simulated world (online: Steve); add one with sim_join [invalid_params]");
  }, 120_000); // eleven CLI processes in a row: slow on a loaded machine, never a timing claim

  it("the README's command_until example completes when Steve answers", async () => {
    // README.md, "Config: your own tools": `npm start` (run --sim with this repository's config),
    // the call in one shell, the answer from another.
    const daemon = await startDaemonProcess(processes, ['--sim', '--config', path.join(REPO, 'mcbridge.config.ts')]);
    const api = ['--api-port', String(daemon.port)];
    const call = processes.start(['call', 'command_until', '{"command": "say Ready?", "until": "^yes$", "category": "chat", "from": "Steve"}', ...api]);
    // The daemon logs a mutating call's start in the same turn that fixes where its wait looks from.
    await waitUntil(() => /"tool":"command_until"[^\n]*"msg":"command_until started/.test(daemon.out.stderr), 20_000, 'command_until to start');
    const chat = await runCli(['sim', 'chat', 'Steve', 'yes', ...api]);
    expect(chat.code).toBe(0);
    const code = await new Promise<number | null>((resolve) => {
      if (call.child.exitCode !== null) resolve(call.child.exitCode);
      else call.child.once('exit', (c) => resolve(c));
    });
    expect(call.out.stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(call.out.stdout)).toMatchObject({ command: 'say Ready?', feedback: ['[Server] Ready?'], event: { category: 'chat', sender: 'Steve', text: 'yes' } });
  }, 60_000);
});
