/**
 * `mcbridge logs` (docs/logs.md, "From the command line") against a daemon process whose target
 * follows a log file the test writes: a page as JSON and as text, --follow seeing appended lines,
 * records lost before they were read said on stderr, an unknown target a usage error.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { startDaemonProcess, type DaemonProcess } from '../../../support/daemon-process.js';
import { waitUntil } from '../../../support/helpers.js';

const processes = new CliProcesses();
let daemon: DaemonProcess;
let log: string;
const env = { MCBRIDGE_TARGET: '' };
const cli = (args: string[]) => runCli(['--api-port', String(daemon.port), ...args], { env });

const START = [
  '[10:00:00] [Server thread/INFO]: Starting minecraft server version 26.2',
  '[10:00:01] [Server thread/ERROR]: Encountered an unexpected exception',
  'java.lang.IllegalStateException: boom',
  '\tat net.minecraft.server.MinecraftServer.tick(MinecraftServer.java:1)',
  '[10:00:02] [Worker-Main-2/WARN] [minecraft/RecipeManager]: odd \u001b[31mred',
];

beforeAll(async () => {
  const dir = project({ install: false });
  log = dir.write('logs/latest.log', START.join('\n') + '\n');
  // A ring of 6 records, so that a burst evicts some before --follow reads them.
  const config = dir.write('mcbridge.config.json', JSON.stringify({ targets: { live: { sim: true, logFile: 'logs/latest.log' } }, plugins: [['logs', { maxRecords: 6, pollMs: 20 }]] }));
  daemon = await startDaemonProcess(processes, [], env, config);
  // waitUntil checks synchronously: ask the daemon until the follower has read the three records.
  const deadline = Date.now() + 20_000;
  while (JSON.parse((await cli(['logs', '--json'])).stdout).records.length < 3) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the log file to be read');
  }
}, 60_000);
afterAll(async () => {
  await processes.stopAll();
  removeProjects();
});

describe('mcbridge logs', { timeout: 60_000 }, () => {
  it('prints a page as JSON with its cursor, and as text lines with the trace and control characters escaped', async () => {
    const json = await cli(['logs', '--json', '--level', 'warn']);
    expect(json.code).toBe(0);
    const page = JSON.parse(json.stdout);
    expect(page).toMatchObject({ next: 3, dropped: false, evicted: 0 });
    expect(page.records.map((r: { level: string; message: string }) => [r.level, r.message])).toEqual([
      ['ERROR', 'Encountered an unexpected exception'],
      ['WARN', 'odd \u001b[31mred'],
    ]);

    const text = await cli(['logs']);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    expect(text.stdout).toBe(
      [
        '10:00:00 INFO [Server thread]: Starting minecraft server version 26.2',
        '10:00:01 ERROR [Server thread]: Encountered an unexpected exception',
        'java.lang.IllegalStateException: boom',
        '\tat net.minecraft.server.MinecraftServer.tick(MinecraftServer.java:1)',
        '10:00:02 WARN [Worker-Main-2] minecraft/RecipeManager: odd \\x1b[31mred',
        '',
      ].join('\n'),
    );

    const grep = await cli(['logs', '--grep', 'illegalstate']);
    expect(grep.stdout.split('\n')[0]).toBe('10:00:01 ERROR [Server thread]: Encountered an unexpected exception');
    const cut = await cli(['logs', '--since', '0', '--limit', '1']);
    expect(cut.stdout).toBe('10:00:00 INFO [Server thread]: Starting minecraft server version 26.2\n');
    expect(cut.stderr).toBe('mcbridge logs: more records than this page holds (items): go on with --since 1\n');

    const summary = await cli(['logs', '--summary']);
    expect(summary.stdout).toMatch(/^records by level: INFO 1, ERROR 1, WARN 1\nstack traces: 1 distinct\n {6}1x [0-9a-f]{12} java\.lang\.IllegalStateException: boom\n$/);
  });

  it('--follow prints the newest, then each appended record, says on stderr when some were evicted unread, and ends 130 on Ctrl-C', async () => {
    const { child, out } = processes.start(['--api-port', String(daemon.port), 'logs', '--follow'], { env });
    await waitUntil(() => out.stdout.includes('odd \\x1b[31mred\n'), 20_000, 'the newest records');
    fs.appendFileSync(log, '[10:00:03] [Server thread/INFO]: Steve joined the game\n');
    await waitUntil(() => out.stdout.includes('10:00:03 INFO [Server thread]: Steve joined the game\n'), 20_000, 'the appended line');
    expect(out.stderr).toBe('');

    // Twenty lines at once into a ring of six: most are gone before the next page is read.
    fs.appendFileSync(log, Array.from({ length: 20 }, (_, i) => `[10:01:${String(i).padStart(2, '0')}] [Server thread/INFO]: burst ${i}\n`).join(''));
    await waitUntil(() => out.stdout.includes('burst 19\n'), 20_000, 'the end of the burst');
    expect(out.stderr).toMatch(/^mcbridge logs: \d+ records were dropped before they were read \(evicted from the buffer\)\n/);
    expect(out.stdout).not.toContain('burst 0\n');

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });

  it('--follow --json prints one record per line', async () => {
    const { out } = processes.start(['--api-port', String(daemon.port), 'logs', '--follow', '--json', '--grep', 'burst 19'], { env });
    await waitUntil(() => out.stdout.endsWith('\n'), 20_000, 'a record');
    expect(JSON.parse(out.stdout)).toMatchObject({ message: 'burst 19', level: 'INFO', thread: 'Server thread' });
  });

  it('exits 2 for an unknown target, and for a usage mistake', async () => {
    const unknown = await cli(['--target', 'staging', 'logs']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('this daemon serves: live [target_unknown]');
    const level = await cli(['logs', '--level', 'loud']);
    expect(level.code).toBe(2);
    expect(level.stderr).toContain("expected one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL (any case), got 'loud'");
    const regex = await cli(['logs', '--regex']);
    expect(regex.code).toBe(2);
    expect(regex.stderr).toContain('--regex says how to read --grep');
  });
});
