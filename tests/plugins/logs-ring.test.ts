import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogCapture } from '../../plugins/logs/capture.js';
import { FileFollower } from '../../plugins/logs/follow.js';
import type { LogEntry } from '../../plugins/logs/log4j.js';
import { RecordFile } from '../../plugins/logs/persist.js';
import { LogRing, recordBytes } from '../../plugins/logs/ring.js';
import { waitUntil } from '../support/helpers.js';

const entry = (message: string, at = 0): LogEntry => ({ time: null, level: 'INFO', thread: 't', logger: null, message, at, source: 'file' });
const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-logs-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the record ring', () => {
  it('pages with exact cursors and says what was evicted', () => {
    const ring = new LogRing(3, 1 << 20);
    for (let i = 1; i <= 5; i += 1) ring.push(entry(`m${i}`));
    expect(ring.page({ since: 0, limit: 10, maxBytes: 1 << 20 })).toMatchObject({ next: 5, dropped: true, evicted: 2, truncated: false });
    const first = ring.page({ since: 2, limit: 2, maxBytes: 1 << 20 });
    expect(first.records.map((r) => r.seq)).toEqual([3, 4]);
    expect(first).toMatchObject({ next: 4, truncated: true, truncatedBy: 'items', evicted: 0 });
    expect(ring.page({ since: first.next, limit: 2, maxBytes: 1 << 20 }).records.map((r) => r.seq)).toEqual([5]);
    expect(ring.page({ limit: 2, maxBytes: 1 << 20 }).records.map((r) => r.seq)).toEqual([4, 5]);
    expect(ring.page({ since: 99, limit: 10, maxBytes: 1 << 20 })).toMatchObject({ reset: true });
  });
  it('is bounded in bytes, keeps the newest record however big, and a filtered page goes on past what it looked at', () => {
    const ring = new LogRing(1000, 1000);
    for (let i = 0; i < 50; i += 1) ring.push(entry(`line ${i}`));
    expect(ring.stats().bytes).toBeLessThanOrEqual(1000);
    ring.push(entry('x'.repeat(5000)));
    expect(ring.size).toBe(1);
    const r = new LogRing(100, 1 << 20);
    for (let i = 1; i <= 10; i += 1) r.push(entry(i % 2 ? 'odd' : 'even'));
    const page = r.page({ since: 0, limit: 2, maxBytes: 1 << 20, filter: (x) => x.message === 'even' });
    expect(page.records.map((x) => x.seq)).toEqual([2, 4]);
    expect(page.next).toBe(5);
    expect(r.page({ since: 0, limit: 10, maxBytes: 1 << 20, deadline: performance.now() - 1 })).toMatchObject({ truncatedBy: 'time', next: 0, records: [] });
  });
  it("keeps records as their JSON lines: each read back whole, counted at exactly its line's bytes", () => {
    const texts = ['plain', 'quote " and \\ backslash', 'tab\tand\u001b[31m', 'Grüße, 世界', 'emoji 😀', 'lone \ud800 surrogate', ''];
    const ring = new LogRing(100, 1 << 20);
    const pushed = texts.map((text) => structuredClone(ring.push({ ...entry(text, 1796675574444), thread: text, logger: text === '' ? null : 'minecraft/x' })));
    pushed.push(structuredClone(ring.push({ ...entry('boom'), trace: 'java.lang.X: "y"\n\tat a.b(C.java:1)', hash: 'e4ae1c11c661', cut: true, bytes: 20_000, binary: { lines: 2, bytes: 9 } })));
    const page = ring.page({ since: 0, limit: 100, maxBytes: 1 << 20 });
    expect(page.records).toEqual(pushed.map((r) => JSON.parse(JSON.stringify(r))));
    expect(ring.at(2)?.message).toBe('quote " and \\ backslash');
    const lineBytes = pushed.reduce((n, r) => n + recordBytes(r as never), 0);
    expect(ring.stats().bytes).toBe(lineBytes);
    expect(page.bytes).toBe(lineBytes);
  });
  it('takes restored seqs and counts a hole before them as evicted', () => {
    const ring = new LogRing(10, 1 << 20);
    ring.push(entry('a'), 5);
    ring.push(entry('b'));
    expect(ring.page({ since: 2, limit: 10, maxBytes: 1 << 20 })).toMatchObject({ evicted: 2, dropped: true });
    expect(ring.lastSeq).toBe(6);
  });
});

describe('capture, folds and the records file', () => {
  it('folds repeats of a trace and survives a restart through the file', async () => {
    const file = path.join(tmp(), 'logs', 't.jsonl');
    const rf = new RecordFile(file, 1 << 20);
    const c = new LogCapture({ maxRecords: 100, maxBytes: 1 << 20, file: rf });
    const crash = (n: number) => `[10:00:0${n}] [Server thread/ERROR]: oops ${n}\njava.lang.RuntimeException: n=${n}\n\tat a.B.c(B.java:1)\n`;
    c.write('file', Buffer.from(crash(1) + crash(2) + crash(3) + '[10:00:09] [main/INFO]: done\n'));
    c.flush();
    const [top] = c.folds.top(1);
    expect(top).toMatchObject({ count: 3, first: 'java.lang.RuntimeException: n=1', level: 'ERROR' });
    expect(c.folds.byLevel).toEqual({ ERROR: 3, INFO: 1 });
    c.stop();
    await rf.flush();
    const reloaded = new LogCapture({ maxRecords: 100, maxBytes: 1 << 20, file: new RecordFile(file, 1 << 20) });
    expect(reloaded.ring.lastSeq).toBe(4);
    expect(reloaded.folds.get(top!.hash)?.count).toBe(3);
    reloaded.note('mcbridge', '[mcbridge] server started, pid 1');
    expect(reloaded.ring.at(5)?.message).toBe('[mcbridge] server started, pid 1');
  });
  it('keeps the file and its rotation within the bound', async () => {
    const file = path.join(tmp(), 'r.jsonl');
    const f = new RecordFile(file, 8192);
    const ring = new LogRing(10_000, 1 << 24);
    for (let i = 0; i < 2000; i += 1) {
      f.append(ring.push(entry(`line number ${i}`)));
      if (i % 50 === 0) await f.flush();
    }
    await f.flush();
    const total = fs.statSync(file).size + fs.statSync(`${file}.1`).size;
    expect(total).toBeLessThanOrEqual(8192);
    const { records } = new RecordFile(file, 8192).load();
    expect(records.at(-1)!.seq).toBe(2000);
    expect(records.length).toBeGreaterThan(10);
  });
});

describe('following a log file', () => {
  it('reads appends, a truncation, a rotation and a file that comes back after it was missing', async () => {
    const dir = tmp();
    const log = path.join(dir, 'latest.log');
    let text = '';
    const f = new FileFollower(log, (chunk) => (text += chunk.toString()), { pollMs: 10 });
    f.start();
    try {
      await waitUntil(() => f.status.problem !== null, 5000, 'the follower to report the missing file');
      expect(f.status.state).toBe('waiting');
      fs.writeFileSync(log, 'one\n');
      await waitUntil(() => text === 'one\n', 5000, 'the first line');
      fs.appendFileSync(log, 'two\n');
      await waitUntil(() => text.endsWith('two\n'), 5000, 'an appended line');
      fs.truncateSync(log, 0);
      await waitUntil(() => f.status.truncations === 1, 5000, 'the truncation');
      fs.appendFileSync(log, 'three\n');
      await waitUntil(() => text.endsWith('three\n'), 5000, 'a line after the truncation');
      fs.renameSync(log, `${log}.1`);
      fs.writeFileSync(log, 'four\n');
      await waitUntil(() => text.endsWith('four\n') && f.status.rotations === 1, 5000, 'a line of the new file');
      expect(text).toBe('one\ntwo\nthree\nfour\n');
    } finally {
      await f.stop();
    }
  });
});
