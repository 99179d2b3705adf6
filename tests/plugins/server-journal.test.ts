/** The process journal: a SIGKILLed daemon's servers found and stopped by the next run; a corrupt file set aside. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ProcessJournal } from '../../plugins/server/journal.js';
import { killMarked, reapLeftovers } from '../../plugins/server/process.js';
import { alive, MARKER_ENV } from '../../plugins/server/procfs.js';
import { waitUntil } from '../support/wait-until.js';

const DRIVER = path.resolve(import.meta.dirname, '../support/server-driver.mjs');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-journal-'));

describe('ProcessJournal', () => {
  it('after a SIGKILLed daemon, reapLeftovers finds its server and stops it with both grandchildren', async () => {
    const file = path.join(tmp(), 'state', 'processes.json');
    const driver = spawn(process.execPath, [DRIVER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    driver.stdout.on('data', (d) => (out += d));
    await waitUntil(() => /ready \d+ \d+ \d+/.test(out) || driver.exitCode !== null, 30_000, 'the driver to launch and fork');
    const pids = /ready (\d+) (\d+) (\d+)/.exec(out)!.slice(1).map(Number);
    const ended = new Promise((r) => driver.once('exit', r));
    driver.kill('SIGKILL');
    await ended;
    expect(pids.every(alive)).toBe(true);

    const journal = new ProcessJournal(file);
    const [leftover, ...more] = journal.leftovers();
    expect(more).toEqual([]);
    expect(leftover!.entry).toMatchObject({ target: 'lab', pid: pids[0], pgid: pids[0], daemonPid: driver.pid });
    expect(leftover!.pids.sort()).toEqual([...pids].sort());

    const warned: unknown[] = [];
    const found = await reapLeftovers(journal, { info() {}, warn: (o) => warned.push(o), error() {} }, 500);
    expect(found).toEqual([{ pid: pids[0], command: leftover!.entry.command, target: 'lab', killed: true }]);
    expect(pids.map(alive)).toEqual([false, false, false]);
    expect(warned).toHaveLength(1);
    expect(journal.entries()).toEqual([]);
    expect(await reapLeftovers(journal, { info() {}, warn() {}, error() {} })).toEqual([]);
  });

  it('does not count its own live entries as leftovers, and clears entries whose processes are gone', async () => {
    const journal = new ProcessJournal(path.join(tmp(), 'processes.json'));
    await journal.record({ id: 'mine', target: 'lab', command: ['x'], cwd: '/', startedAt: 1, marker: 'marker-of-mine-0001' });
    expect(journal.leftovers()).toEqual([]);
    expect(journal.orphaned()).toEqual([]);
    // A gone daemon's entry whose server is gone too: nothing to kill, the entry goes.
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.once('exit', r));
    const entries = journal.entries();
    fs.writeFileSync(journal.file, JSON.stringify({ version: 1, entries: [...entries, { ...entries[0], id: 'old', daemonPid: dead.pid, marker: 'marker-of-old-0001' }] }));
    expect(journal.leftovers()).toEqual([]);
    expect(await reapLeftovers(journal, { info() {}, warn() {}, error() {} })).toEqual([{ pid: null, command: ['x'], target: 'lab', killed: false }]);
    expect(journal.entries().map((e) => e.id)).toEqual(['mine']);
  });

  it.each([
    ['not JSON', '{"version":1,"entr', /not JSON/],
    ['the wrong shape', JSON.stringify({ version: 1, entries: [{ id: 'x' }] }), /not a process journal: entries\.0/],
    ['too big', 'x'.repeat(300 * 1024), /over the/],
  ])('sets a journal that is %s aside, says so, and reads it as empty', async (_what, content, problem) => {
    const dir = tmp();
    const file = path.join(dir, 'processes.json');
    fs.writeFileSync(file, content);
    const warned: unknown[] = [];
    const journal = new ProcessJournal(file, { warn: (o) => warned.push(o) });
    expect(journal.entries()).toEqual([]);
    expect(journal.problem).toMatch(problem);
    expect(warned).toHaveLength(1);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('processes.json.corrupt-'))).toHaveLength(1);
    await journal.record({ id: 'a', target: 'lab', command: ['x'], cwd: '/', startedAt: 1, marker: 'marker-000000001' });
    expect(journal.entries().map((e) => e.id)).toEqual(['a']);
  });

  it('killMarked ends every process carrying the marker, in whatever group, and no other', async () => {
    const forever = ['-e', 'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1 << 30)'];
    const marked = spawn(process.execPath, forever, { detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, [MARKER_ENV]: 'marker-kill-0001' } });
    const other = spawn(process.execPath, forever, { detached: true, stdio: 'ignore', env: { ...process.env, [MARKER_ENV]: 'marker-kill-0002' } });
    const markedExit = new Promise((r) => marked.once('exit', (_c, signal) => r(signal)));
    // Signalled only once it ignores SIGTERM (its handler set), so only SIGKILL can end it.
    let ready = '';
    marked.stdout!.on('data', (d) => (ready += d));
    await waitUntil(() => ready.includes('ready') && alive(other.pid!), 10_000, 'both to run');
    onTestFinished(() => void other.kill('SIGKILL'));
    expect(await killMarked('marker-kill-0001', 300)).toBe(true);
    expect(await markedExit).toBe('SIGKILL');
    expect(alive(other.pid!)).toBe(true);
    expect(await killMarked('marker-kill-0001', 300)).toBe(false);
  });
});
