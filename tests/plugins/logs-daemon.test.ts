/**
 * The logs plugin in a daemon on the sim, over the local API: a log file it follows while the test
 * appends to it, rotates and truncates it; a 10 MB line and a binary flood bounded and counted,
 * with `ping` answered meanwhile; the records read back after a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serverConsole } from '../../core/kit/index.js';
import { createLogsPlugin } from '../../plugins/logs/index.js';
import { startStack, type Stack, waitUntil } from '../support/helpers.js';

type Page = {
  records: Array<{ seq: number; source: string; message: string; level: string | null; hash?: string; cut?: true; bytes?: number; binary?: object }>;
  next: number;
  dropped: boolean;
  evicted: number;
  truncated: boolean;
};

const stacks: Stack[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function start(dir: string): Promise<Stack> {
  const stack = await startStack({
    daemon: { builtins: false, plugins: [{ plugin: createLogsPlugin(), source: 'config', options: { logFile: path.join(dir, 'logs', 'latest.log'), stateDir: path.join(dir, 'state'), pollMs: 20 } }] },
  });
  stacks.push(stack);
  return stack;
}

async function until(stack: Stack, args: Record<string, unknown>, check: (p: Page) => boolean, what: string): Promise<Page> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = (await stack.client.call('logs', args)) as Page;
    if (check(page)) return page;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(page).slice(0, 500)}`);
    // Each try is a real answer over the API; the next asks again once the event loop turned.
    await new Promise((r) => setImmediate(r));
  }
}

describe('logs in a daemon', () => {
  it('follows a log file across rotation and truncation, folds traces, and keeps its records over a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-logsd-'));
    dirs.push(dir);
    const log = path.join(dir, 'logs', 'latest.log');
    const stack = await start(dir);
    const crash = (n: number) => `[10:00:0${n}] [Server thread/ERROR]: tick failed\njava.lang.IllegalStateException: n=${n}\n\tat net.minecraft.server.MinecraftServer.tick(MinecraftServer.java:1)\n`;
    fs.mkdirSync(path.dirname(log));
    fs.writeFileSync(log, '[10:00:00] [Server thread/INFO]: Starting minecraft server\n' + crash(1));
    let page = await until(stack, { since: 0 }, (p) => p.records.length === 2, 'the first records');
    expect(page.records[0]).toMatchObject({ seq: 1, level: 'INFO', message: 'Starting minecraft server' });
    fs.renameSync(log, `${log}.1`);
    fs.writeFileSync(log, crash(2));
    page = await until(stack, { since: page.next }, (p) => p.records.length === 1, 'a record of the rotated file');
    fs.truncateSync(log, 0);
    fs.appendFileSync(log, `[10:00:08] [Server thread/INFO]: Preparing level "world"\n${crash(3)}[10:00:09] [Server thread/INFO]: Done\n`);
    page = await until(stack, { since: page.next }, (p) => p.records.some((r) => r.message === 'Done'), 'records after the truncation');
    const summary = (await stack.client.call('logs_summary', {})) as { traces: Array<{ hash: string; count: number }>; byLevel: Record<string, number> };
    expect(summary.traces[0], JSON.stringify(summary)).toMatchObject({ count: 3 });
    expect(summary.byLevel).toMatchObject({ ERROR: 3, INFO: 3 });
    const trace = (await stack.client.call('log_trace', { hash: summary.traces[0]!.hash })) as { trace: string };
    expect(trace.trace).toContain('IllegalStateException: n=3');
    await expect(stack.client.call('log_trace', { hash: '000000000000' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(stack.client.call('logs', { grep: '(a+)+', regex: true })).rejects.toMatchObject({ code: 'invalid_params' });
    const errors = (await stack.client.call('logs', { level: 'ERROR', grep: 'n=2' })) as Page;
    expect(errors.records).toHaveLength(1);

    await stack.close();
    stacks.splice(0);
    const again = await start(dir);
    const restored = (await again.client.call('logs', { since: 0 })) as Page;
    expect(restored.records.map((r) => r.message)).toContain('Done');
    expect(restored.records.at(-1)!.seq).toBe(6);
  }, 30_000);

  it('bounds a 10 MB line and a binary flood, counts them, and answers ping meanwhile', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-logsd-'));
    dirs.push(dir);
    const log = path.join(dir, 'logs', 'latest.log');
    fs.mkdirSync(path.dirname(log));
    fs.writeFileSync(log, '');
    const stack = await start(dir);
    // Following first: a follower that opens a file already 10 MB long starts near its end (its backlog).
    await waitUntil(async () => ((await stack.client.call('logs_summary', {})) as { logFile: { state: string } }).logFile.state === 'following', 10_000, 'the follower to open the file');
    const fd = fs.openSync(log, 'a');
    fs.writeSync(fd, Buffer.alloc(10 * 1024 * 1024, 'x'));
    fs.writeSync(fd, '\n');
    for (let i = 0; i < 200; i += 1) fs.writeSync(fd, Buffer.concat([Buffer.alloc(4096, 0), Buffer.from([0xff, 10])]));
    fs.writeSync(fd, '[10:00:00] [main/INFO]: after\n');
    fs.closeSync(fd);
    let pinged = 0;
    const page = await until(
      stack,
      { since: 0 },
      (p) => {
        pinged += 1;
        return p.records.some((r) => r.message === 'after');
      },
      'the line after the flood',
    );
    expect(await stack.client.call('ping', {})).toBeDefined();
    expect(pinged).toBeGreaterThan(0);
    expect(page.records).toHaveLength(3);
    expect(page.records[0]).toMatchObject({ cut: true, bytes: 10 * 1024 * 1024 });
    expect(page.records[0]!.message.length).toBe(16 * 1024);
    expect(page.records[1]!.binary).toEqual({ lines: 200, bytes: 200 * 4097 });
    const summary = (await stack.client.call('logs_summary', {})) as { sources: Record<string, { cut: number; binaryLines: number }> };
    expect(summary.sources.file).toMatchObject({ cut: 1, binaryLines: 200 });
  }, 30_000);

  it("reads a launched server's console: stdout split into records, mcbridge's own lines as they are", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-logsd-'));
    dirs.push(dir);
    const stack = await start(dir);
    const console = serverConsole(stack.daemon.host.view());
    console.publish({ stream: 'mcbridge', data: Buffer.from('[mcbridge] server started, pid 123'), at: 1 });
    console.publish({ stream: 'stdout', data: Buffer.from('[12:00:00] [Server thread/INFO]: Star'), at: 2 });
    console.publish({ stream: 'stdout', data: Buffer.from('ting minecraft server\n[12:00:01] [Server thread/WARN]: Can'), at: 3 });
    console.publish({ stream: 'stderr', data: Buffer.from('oops on stderr\n'), at: 4 });
    console.publish({ stream: 'stdout', data: Buffer.from("'t keep up!\n"), at: 5 });
    const page = await until(stack, { since: 0 }, (p) => p.records.length === 4, 'the console records');
    // In order per stream; across streams a record is placed when it is complete.
    const of = (source: string) => page.records.filter((r) => r.source === source).map((r) => [r.level, r.message]);
    expect(of('mcbridge')).toEqual([[null, '[mcbridge] server started, pid 123']]);
    expect(of('stdout')).toEqual([
      ['INFO', 'Starting minecraft server'],
      ['WARN', "Can't keep up!"],
    ]);
    expect(of('stderr')).toEqual([[null, 'oops on stderr']]);
  });
});
