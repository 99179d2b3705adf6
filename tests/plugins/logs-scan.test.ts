import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogCapture } from '../../plugins/logs/capture.js';
import { type BinaryNote, type Line, LineSplitter } from '../../plugins/logs/lines.js';
import { LAYOUT, type Level, parseLine } from '../../plugins/logs/log4j.js';
import { RecordFile } from '../../plugins/logs/persist.js';
import { LogRing, lineJson, recordBytes } from '../../plugins/logs/ring.js';

/** A small seeded generator: the same cases every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NORMAL: Record<string, Level> = { WARNING: 'WARN', SEVERE: 'ERROR' };
/** What the layout regex makes of a line: the reference for the scanner. */
function byRegex(text: string) {
  const m = LAYOUT.exec(text);
  if (!m) return { time: null, level: null, thread: null, logger: null, message: text };
  return { time: m[1]!, level: NORMAL[m[3]!] ?? (m[3] as Level), thread: m[2]!, logger: m[4] ?? null, message: m[5]! };
}

const SEEDS = [
  '[12:34:56] [Server thread/INFO]: Done (3.2s)! For help, type "help"',
  '[12:34:56] [Worker-Main-2/WARN] [minecraft/RecipeManager]: Parsing error',
  '[07Dec2026 12:34:56.789] [main/ERROR] [net.minecraft.server.Main/]: boom',
  '[12:34:56,001] [a/b/WARNING]: x',
  '[12:34:56.001] [/SEVERE] []:',
  '[12:34:56] [t/FATAL]:no space',
  '[12:34:56] [t/TRACE] [l]x: not a logger',
  '[12:34:56] [t/DEBUG]: multi\nline',
  '[1:34:56] [t/INFO]: short clock',
  '[12:34:56] [t/info]: lower case',
  '[12:34:56] [t/INFO]',
];
const ALPHABET = '[]/:., 0123456789AaZz\n"\\\tINFOWARNG';

function mutate(r: () => number, text: string): string {
  let t = text;
  for (let n = Math.floor(r() * 3); n >= 0; n -= 1) {
    const at = Math.floor(r() * (t.length + 1));
    const op = r();
    if (op < 0.4) t = t.slice(0, at) + t.slice(at + 1);
    else if (op < 0.8) t = t.slice(0, at) + ALPHABET[Math.floor(r() * ALPHABET.length)] + t.slice(at);
    else t = t.slice(0, at) + t.slice(at).replace(/INFO|WARN|ERROR/, ['TRACE', 'WARNING', 'SEVERE', 'FATAL', 'DEBUG', 'INF'][Math.floor(r() * 6)]!);
  }
  return t;
}

describe('the layout scanner', () => {
  it('reads every line as the layout regex does, fields and all, over 20,000 mutated lines', () => {
    const r = rng(36);
    let layouts = 0;
    for (let i = 0; i < 20_000; i += 1) {
      const text = i < SEEDS.length ? SEEDS[i]! : mutate(r, SEEDS[Math.floor(r() * SEEDS.length)]!);
      const expected = byRegex(text);
      expect(parseLine(text), JSON.stringify(text)).toEqual(expected);
      if (expected.level !== null) layouts += 1;
    }
    // Both kinds were tried, many times.
    expect(layouts).toBeGreaterThan(3000);
    expect(layouts).toBeLessThan(19_000);
  });
});

describe('records kept as their lines', () => {
  it('read back, and count, exactly as the JSON line written for them', () => {
    const r = rng(7);
    const ring = new LogRing(100_000, 1 << 30);
    const expected: string[] = [];
    const sources = ['stdout', 'stderr', 'file', 'odd "name"'];
    let asLines = 0;
    for (let i = 0; i < 5000; i += 1) {
      const text = mutate(r, SEEDS[Math.floor(r() * SEEDS.length)]!).replace(/\n/g, '') + (i % 97 === 0 ? ' Grüße' : '');
      const at = i % 500 === 0 ? 5 : 1_796_675_574_444 + i;
      const source = sources[i % 4]!;
      const { level, asLine } = ring.pushLine(text, at, source);
      const p = parseLine(text);
      expect(level).toBe(p.level);
      const json = JSON.stringify({ time: p.time, level: p.level, thread: p.thread, logger: p.logger, message: p.message, at, source, seq: ring.lastSeq });
      expected.push(json);
      if (asLine) {
        asLines += 1;
        expect(lineJson(text, at, source, ring.lastSeq)).toBe(json);
      } else expect(ring.newestJson).toBe(json);
      expect(ring.newestSize).toBe(Buffer.byteLength(json) + 1);
    }
    // Most took the line's way; lines with `"`, `\`, a tab or non-ASCII the other.
    expect(asLines).toBeGreaterThan(2500);
    expect(asLines).toBeLessThan(5000);
    const records = [...ring.all()];
    expect(records.map((x) => JSON.stringify(x))).toEqual(expected);
    expect(ring.stats().bytes).toBe(records.reduce((n, x) => n + recordBytes(x), 0));
    const page = ring.page({ since: 4000, limit: 2000, maxBytes: 1 << 30 });
    expect(page.bytes).toBe(page.records.reduce((n, x) => n + recordBytes(x), 0));
    expect(ring.at(4321)).toEqual(JSON.parse(expected[4320]!));
  });
  it('bounds the ring by those bytes, evicting the oldest', () => {
    const ring = new LogRing(1000, 2000);
    for (let i = 0; i < 100; i += 1) ring.pushLine(`[10:00:00] [main/INFO]: line ${i}`, 1, 'file');
    const records = [...ring.all()];
    const bytes = records.reduce((n, x) => n + recordBytes(x), 0);
    expect(ring.stats().bytes).toBe(bytes);
    expect(bytes).toBeLessThanOrEqual(2000);
    expect(bytes + recordBytes(ring.at(ring.oldestSeq)!)).toBeGreaterThan(2000 - 100);
    expect(records.at(-1)?.message).toBe('line 99');
  });
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the records file', () => {
  it('writes a record kept as its line as the JSON line the ring reads back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-logscan-'));
    dirs.push(dir);
    const file = path.join(dir, 'logs', 't.jsonl');
    const rf = new RecordFile(file, 1 << 20);
    const c = new LogCapture({ maxRecords: 100, maxBytes: 1 << 20, file: rf });
    c.write(
      'stdout',
      Buffer.from('[10:00:00] [main/INFO]: plain\n[10:00:01] [main/WARN]: "quoted"\nnot a layout\n[10:00:02] [main/ERROR]: boom\njava.lang.RuntimeException: x\n\tat a.B.c(B.java:1)\n'),
    );
    c.stop();
    await rf.flush();
    const written = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(written).toEqual([...c.ring.all()].map((x) => JSON.stringify(x)));
    expect(written).toHaveLength(4);
    expect(c.folds.byLevel).toEqual({ INFO: 1, WARN: 1, plain: 1, ERROR: 1 });
    expect(rf.status.written).toBe(4);
  });
});

describe('the splitter on whole chunks', () => {
  const collect = (bytes: Buffer, cuts: number[], maxLine: number) => {
    const out: Array<Line | BinaryNote> = [];
    const s = new LineSplitter((item) => out.push(item), maxLine);
    let from = 0;
    for (const at of [...cuts, bytes.length]) {
      s.push(bytes.subarray(from, at));
      from = at;
    }
    s.flush();
    return { out, counters: s.counters };
  };
  it('cuts any chunking the same as byte by byte: CRs, long lines, NULs, bad UTF-8, non-ASCII', () => {
    const r = rng(11);
    const pieces = [
      Buffer.from('[10:00:00] [main/INFO]: ok\n'),
      Buffer.from('crlf line\r\n'),
      Buffer.from('Grüße 世界 😀\n'),
      Buffer.from(`${'x'.repeat(40)}\n`),
      Buffer.from(`${'y'.repeat(31)}\r\n`),
      Buffer.from([0x61, 0x00, 0x62, 0x0a]),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from('\n'),
      Buffer.from(`${'é'.repeat(20)}\n`),
      Buffer.from('\r\n'),
    ];
    for (let round = 0; round < 200; round += 1) {
      const parts: Buffer[] = [];
      for (let n = 0; n < 30; n += 1) parts.push(pieces[Math.floor(r() * pieces.length)]!);
      if (r() < 0.5) parts.push(Buffer.from('tail without a break'));
      const bytes = Buffer.concat(parts);
      const reference = collect(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
        32,
      );
      const cuts = Array.from({ length: Math.floor(r() * 4) }, () => Math.floor(r() * bytes.length)).sort((a, b) => a - b);
      expect(collect(bytes, cuts, 32)).toEqual(reference);
    }
    const { out } = collect(Buffer.from('a\r\nb\n'), [], 32);
    expect(out).toEqual([
      { text: 'a', bytes: 1, cut: false },
      { text: 'b', bytes: 1, cut: false },
    ]);
  });
});
