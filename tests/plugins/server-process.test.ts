/** ServerProcess with real processes: tests/support/fake-server.mjs as the game server. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessJournal } from '../../plugins/server/journal.js';
import { type OutputChunk, ServerProcess, type ServerProcessOptions } from '../../plugins/server/process.js';
import { alive } from '../../plugins/server/procfs.js';
import { waitUntil } from '../support/wait-until.js';

const FAKE = path.resolve(import.meta.dirname, '../support/fake-server.mjs');
const quiet = { info() {}, warn() {}, error() {} };
const started: ServerProcess[] = [];

/** A fake server, its output counted and its recent text kept (bounded). */
function server(args: string[] = [], opts: Partial<ServerProcessOptions> = {}) {
  const out = { text: '', bytes: 0 };
  const proc = new ServerProcess({
    target: 'lab',
    command: [process.execPath, FAKE, ...args],
    cwd: os.tmpdir(),
    stopTimeoutMs: 5_000,
    killGraceMs: 2_000,
    journal: null,
    log: quiet,
    onOutput(chunk: OutputChunk) {
      out.bytes += chunk.data.length;
      out.text = (out.text + chunk.data.toString('latin1')).slice(-64 * 1024);
    },
    ...opts,
  });
  started.push(proc);
  return { proc, out };
}

/** Gone: no such process, or a zombie (this container's pid 1 never reaps orphans). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return !alive(pid);
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => (p.pid !== null ? p.stop('test end').catch(() => undefined) : undefined)));
});

describe('ServerProcess', () => {
  it('starts in its own process group and stops on `stop`: exit 0, requested, its last lines kept', async () => {
    const { proc, out } = server();
    const { pid } = await proc.start();
    expect(proc.pid).toBe(pid);
    await waitUntil(() => out.text.includes('Done ('), 10_000, 'the server to be ready');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])).toBe(pid);
    const info = await proc.stop();
    expect(info).toMatchObject({ code: 0, signal: null, requested: true });
    expect(info.uptimeMs).toBeGreaterThanOrEqual(0);
    expect(info.lastLines.some((l) => l.includes('[Server thread/INFO]: Stopping server'))).toBe(true);
    expect(gone(pid)).toBe(true);
    expect(await proc.exited).toBe(info);
  });

  it('terminates a server that ignores `stop` after stopTimeout, and kills one that ignores SIGTERM after the grace', async () => {
    const term = server(['--ignore-stop'], { stopTimeoutMs: 300, killGraceMs: 300 });
    await term.proc.start();
    await waitUntil(() => term.out.text.includes('Done ('), 10_000, 'ready');
    let t0 = Date.now();
    expect(await term.proc.stop()).toMatchObject({ signal: 'SIGTERM', requested: true });
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(term.out.text).toContain('ignoring stop');
    expect(term.out.text).toContain('SIGTERM to its process group');

    const kill = server(['--ignore-stop', '--ignore-term'], { stopTimeoutMs: 300, killGraceMs: 300 });
    await kill.proc.start();
    await waitUntil(() => kill.out.text.includes('Done ('), 10_000, 'ready');
    t0 = Date.now();
    const info = await kill.proc.stop();
    expect(info).toMatchObject({ signal: 'SIGKILL', requested: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(kill.out.text).toContain('ignoring SIGTERM');
    expect(info.lastLines.some((l) => l.includes('SIGKILL to its process group'))).toBe(true);
  });

  it('leaves no grandchild running: neither one in its group nor one that left it', async () => {
    const { proc, out } = server();
    await proc.start();
    proc.send('fork');
    await waitUntil(() => [...out.text.matchAll(/grandchild \d+/g)].length === 2, 10_000, 'two grandchildren');
    const pids = [...out.text.matchAll(/grandchild (\d+)/g)].map((m) => Number(m[1]));
    expect(pids.every((pid) => !gone(pid))).toBe(true);
    await proc.stop();
    expect(pids.map(gone)).toEqual([true, true]);
  });

  it('a crash resolves `exited` with code 1, not requested, and the stack trace in its last lines', async () => {
    const { proc, out } = server();
    await proc.start();
    await waitUntil(() => out.text.includes('Done ('), 10_000, 'ready');
    proc.send('crash');
    const info = await proc.exited;
    expect(info).toMatchObject({ code: 1, signal: null, requested: false });
    expect(info.lastLines).toContain('Exception in thread "Server thread" java.lang.IllegalStateException: boom');
    expect(info.lastLines).toContain('\tat net.minecraft.Foo.bar(Foo.java:12)');
    expect(proc.send('stop')).toBe(false);
  });

  it('a crash loop server (--crash-after) exits on its own with code 1', async () => {
    const { proc } = server(['--crash-after', '50']);
    await proc.start();
    expect(await proc.exited).toMatchObject({ code: 1, requested: false });
  });

  it('refuses to launch with spawn_failed saying what to fix, and leaves no journal entry', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-spawn-'));
    const journal = new ProcessJournal(path.join(dir, 'state', 'processes.json'));
    const noExec = path.join(dir, 'server.sh');
    fs.writeFileSync(noExec, '#!/bin/sh\n', { mode: 0o644 });
    const cases: Array<[string[], string, RegExp]> = [
      [['no-such-server-binary'], dir, /was not found: give its full path, or put it on PATH/],
      [[noExec], dir, /may not be run: make it executable/],
      [[process.execPath], path.join(dir, 'missing'), /is not a folder: create it or fix cwd/],
      [[], dir, /is empty/],
    ];
    for (const [command, cwd, message] of cases) {
      const proc = new ServerProcess({ target: 'lab', command, cwd, stopTimeoutMs: 100, journal, log: quiet, onOutput() {} });
      await expect(proc.start()).rejects.toMatchObject({ code: 'spawn_failed', message: expect.stringMatching(message) });
      expect(proc.pid).toBeNull();
    }
    expect(journal.entries()).toEqual([]);
  });

  it('records its intent before spawning: a journal that cannot be written means nothing is launched', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-intent-'));
    fs.writeFileSync(path.join(dir, 'state'), 'a file where the folder should be');
    const seen: OutputChunk[] = [];
    const proc = new ServerProcess({
      target: 'lab',
      command: [process.execPath, FAKE],
      cwd: dir,
      stopTimeoutMs: 100,
      journal: new ProcessJournal(path.join(dir, 'state', 'processes.json')),
      log: quiet,
      onOutput: (c) => seen.push(c),
    });
    await expect(proc.start()).rejects.toMatchObject({ code: 'journal_failed', message: expect.stringContaining('nothing was launched') });
    expect(proc.pid).toBeNull();
    expect(seen).toEqual([]);
  });

  it('hands on a 10 MB line and a 32 MB binary flood in chunks, counted, memory bounded, last lines cut', async () => {
    const { proc, out } = server();
    await proc.start();
    await waitUntil(() => out.text.includes('Done ('), 10_000, 'ready');
    const before = process.memoryUsage().rss;
    const base = out.bytes;
    proc.send(`bigline ${10 * 1024 * 1024}`);
    await waitUntil(() => out.text.includes('bigline done'), 15_000, 'the big line');
    expect(out.bytes - base).toBeGreaterThan(10 * 1024 * 1024);
    proc.send(`binary ${32 * 1024 * 1024}`);
    await waitUntil(() => out.text.includes('binary done'), 15_000, 'the binary flood');
    expect(out.bytes - base).toBeGreaterThan(42 * 1024 * 1024);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
    const info = await proc.stop();
    expect(info.lastLines.length).toBeLessThanOrEqual(50);
    expect(info.lastLines.every((l) => l.length <= 1025)).toBe(true);
    expect(info.lastLines.some((l) => l.includes('binary done'))).toBe(true);
  });
});
