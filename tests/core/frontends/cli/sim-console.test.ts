/**
 * `mcbridge sim --console`: the sim run as a dedicated server is run (issue 36): Log4j console
 * lines on stdout that the logs plugin reads as records, the server console on stdin.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { readNbt } from '../../../../core/sim/index.js';
import { parseLine } from '../../../../plugins/logs/log4j.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { waitUntil } from '../../../support/helpers.js';
import { useTemps } from '../../../support/restore.js';

const tempDir = useTemps('mcbridge-sim-console-');
const processes = new CliProcesses();
// Registered after the temps: hooks run in reverse, so the processes end before their folders go.
afterEach(() => processes.stopAll());

/** A field of level.dat's `Data`, as the sim last saved it. */
function levelField(dir: string, name: string): unknown {
  const data = readNbt(zlib.gunzipSync(fs.readFileSync(path.join(dir, 'world', 'level.dat')))).root.entries.get('Data');
  if (data?.kind !== 'compound') throw new Error('level.dat has no Data compound');
  const tag = data.entries.get(name) as { value?: unknown } | undefined;
  return typeof tag?.value === 'bigint' ? Number(tag.value) : tag?.value;
}

async function startConsole(dir: string) {
  const started = processes.start(['sim', '--console', '--dir', dir, '--port', '0']);
  const { child, out } = started;
  await waitUntil(() => out.stdout.includes('For help, type "help"\n') || child.exitCode !== null, 20_000, 'the Done line');
  const messages = () =>
    out.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map(parseLine);
  const portFile = path.join(fs.realpathSync(dir), 'mc-agent-server', 'port.txt');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const type = (line: string) => child.stdin!.write(`${line}\n`);
  return { child, out, messages, portFile, exited, type };
}

describe('mcbridge sim --console', { timeout: 60_000 }, () => {
  it('prints the ready lines as Log4j INFO records, not the JSON line; Done comes once the port file names the port', async () => {
    const dir = tempDir();
    const sim = await startConsole(dir);
    const records = sim.messages();
    expect(records.every((r) => r.level === 'INFO' && r.thread === 'Server thread' && /^\d{2}:\d{2}:\d{2}$/.test(r.time ?? ''))).toBe(true);
    expect(records.map((r) => r.message)).toEqual([
      'Starting minecraft server version 26.2',
      'Loading properties',
      'Default game type: SURVIVAL',
      expect.stringMatching(/^\[mc-agent-interface\] listening on 127\.0\.0\.1:\d+, port file /),
      'Preparing level "world"',
      expect.stringMatching(/^Done \(\d+\.\d{3}s\)! For help, type "help"$/),
    ]);
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(records[3]!.message)![1]);
    expect(fs.readFileSync(sim.portFile, 'utf8')).toBe(String(port));
    expect(sim.out.stdout).not.toContain('{');
  });

  it('runs console lines as game commands with their feedback as INFO lines, unknown ones as vanilla says; save-all saves, stop saves and exits 0', async () => {
    const dir = tempDir();
    const sim = await startConsole(dir);
    sim.type('time set 1234');
    sim.type('frobnicate now');
    sim.type('save-all flush');
    await waitUntil(() => sim.out.stdout.includes('Saved the game'), 10_000, 'save-all');
    expect(levelField(dir, 'DayTime')).toBe(1234);
    const messages = sim.messages().map((r) => r.message);
    expect(messages).toEqual(
      expect.arrayContaining(['Set the time to 1234', 'Unknown or incomplete command, see below for error', 'frobnicate now<--[HERE]', 'Saving the game (this may take a moment!)']),
    );
    expect(sim.messages().every((r) => r.level === 'INFO')).toBe(true);

    sim.type('weather thunder');
    sim.type('stop');
    expect(await sim.exited).toBe(0);
    expect(levelField(dir, 'thundering')).toBe(1);
    const tail = sim.messages().map((r) => r.message);
    expect(tail).toEqual(expect.arrayContaining(['Set the weather to rain & thunder', 'Stopping the server', 'Saving worlds']));
    expect(tail.indexOf('Stopping the server')).toBeGreaterThan(tail.indexOf('Set the weather to rain & thunder'));
    expect(fs.existsSync(sim.portFile)).toBe(false);
  });

  it('keeps running when stdin closes (as a server started with < /dev/null); SIGTERM still stops it and saves', async () => {
    const dir = tempDir();
    const sim = await startConsole(dir);
    sim.type('weather rain');
    sim.child.stdin!.end();
    await waitUntil(() => sim.out.stdout.includes('Set the weather to rain'), 10_000, 'the command before EOF');
    // Still serving after the EOF: the mod port greets a new connection.
    const port = Number(fs.readFileSync(sim.portFile, 'utf8'));
    const greeting = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('data', (d) => {
        socket.destroy();
        resolve(String(d));
      });
      socket.once('error', reject);
    });
    expect(greeting).toContain('"mod":"mc-agent-interface"');
    await waitUntil(() => /agent disconnected: 127\.0\.0\.1:\d+ \(0 open\)/.test(sim.out.stdout), 10_000, 'the disconnect line');
    expect(sim.messages().map((r) => r.message)).toContainEqual(expect.stringMatching(/^\[mc-agent-interface\] agent connected from 127\.0\.0\.1:\d+ \(1 open\)$/));
    expect(sim.child.exitCode).toBe(null);
    sim.child.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
    expect(levelField(dir, 'raining')).toBe(1);
    expect(sim.out.stdout).toContain('Saving worlds');
    expect(fs.existsSync(sim.portFile)).toBe(false);
  });

  it('refuses a console line longer than its bound with a WARN line and goes on', async () => {
    const dir = tempDir();
    const sim = await startConsole(dir);
    sim.type(`say ${'x'.repeat(40_000)}`);
    sim.type('list');
    await waitUntil(() => sim.out.stdout.includes('players online'), 10_000, 'the command after the long line');
    const warn = sim.messages().find((r) => r.level === 'WARN');
    expect(warn?.message).toBe('Ignored a console line of 40004 bytes (at most 32768)');
    expect(sim.out.stdout).not.toContain('xxxxxxxx');
  });

  it('has no client vantage', async () => {
    const run = await runCli(['sim', '--console', '--vantage', 'client', '--dir', tempDir(), '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--console runs the sim as a dedicated server');
    expect(run.stdout).toBe('');
  });
});
