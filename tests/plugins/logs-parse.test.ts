import { describe, expect, it } from 'vitest';
import { grepMatcher } from '../../plugins/logs/grep.js';
import { LineSplitter, type BinaryNote, type Line } from '../../plugins/logs/lines.js';
import { parseLine, RecordAssembler, type LogEntry } from '../../plugins/logs/log4j.js';
import type { LogRecord } from '../../plugins/logs/ring.js';

function assemble(lines: string[]): LogEntry[] {
  const out: LogEntry[] = [];
  const a = new RecordAssembler((e) => out.push(e), { now: () => 1 });
  for (const text of lines) a.line({ text, bytes: text.length, cut: false }, 'file');
  a.flush();
  return out;
}

describe('log4j layouts', () => {
  it('reads thread, level, logger and message', () => {
    expect(parseLine('[12:34:56] [Server thread/INFO]: Done (3.2s)!')).toEqual({ time: '12:34:56', level: 'INFO', thread: 'Server thread', logger: null, message: 'Done (3.2s)!' });
    expect(parseLine('[12:34:56] [Worker-Main-2/WARN] [minecraft/RecipeManager]: Parsing error')).toMatchObject({
      thread: 'Worker-Main-2',
      level: 'WARN',
      logger: 'minecraft/RecipeManager',
      message: 'Parsing error',
    });
    expect(parseLine('[07Dec2026 12:34:56.789] [main/ERROR] [net.minecraft.server.Main/]: boom')).toMatchObject({ time: '07Dec2026 12:34:56.789', level: 'ERROR', thread: 'main' });
    expect(parseLine('[12:34:56.001] [main/DEBUG]: x').time).toBe('12:34:56.001');
  });
  it('keeps anything else as a plain line', () => {
    expect(parseLine('Starting net.minecraft.server.Main')).toEqual({ time: null, level: null, thread: null, logger: null, message: 'Starting net.minecraft.server.Main' });
  });
});

const trace = (msg: string, line: number) => [
  `[10:00:0${line}] [Server thread/ERROR]: Encountered an unexpected exception`,
  `java.lang.IllegalStateException: ${msg}`,
  '\tat net.minecraft.server.MinecraftServer.tick(MinecraftServer.java:812)',
  'Caused by: java.lang.NullPointerException: Cannot read field "x"',
  '\tat a.b.C.d(C.java:1)',
  '\t... 3 more',
];

describe('stack traces', () => {
  it('joins a header and its frames to the record before it, with a hash of the frames', () => {
    const records = assemble(['[10:00:00] [Server thread/INFO]: before', ...trace('boom', 1), '[10:00:02] [Server thread/INFO]: after']);
    expect(records.map((r) => r.message)).toEqual(['before', 'Encountered an unexpected exception', 'after']);
    expect(records[1]!.trace).toContain('java.lang.IllegalStateException: boom');
    expect(records[1]!.trace!.split('\n')).toHaveLength(5);
    expect(records[1]!.hash).toMatch(/^[0-9a-f]{12}$/);
    expect(records[0]!.hash).toBeUndefined();
  });
  it('hashes the same exception the same at another time and with another message, another one otherwise', () => {
    const [a] = assemble(trace('boom at 1,2,3', 1));
    const [b] = assemble(trace('boom at 4,5,6', 2));
    expect(a!.hash).toBe(b!.hash);
    const other = trace('boom', 3);
    other[2] = '\tat other.Place.run(Place.java:9)';
    expect(assemble(other)[0]!.hash).not.toBe(a!.hash);
  });
  it('keeps a header without frames as a plain record', () => {
    const records = assemble(['[10:00:00] [main/INFO]: x', 'java.lang.String: not an exception', '[10:00:01] [main/INFO]: y']);
    expect(records.map((r) => [r.message, r.trace])).toEqual([
      ['x', undefined],
      ['java.lang.String: not an exception', undefined],
      ['y', undefined],
    ]);
  });
  it('bounds the lines of one trace', () => {
    const lines = ['[10:00:00] [main/ERROR]: deep', 'java.lang.StackOverflowError', ...Array.from({ length: 1000 }, (_, i) => `\tat a.B.f${i}(B.java:1)`)];
    const [r] = new Array(1).fill(0).map(() => {
      const out: LogEntry[] = [];
      const a = new RecordAssembler((e) => out.push(e), { maxTraceLines: 50 });
      for (const text of lines) a.line({ text, bytes: text.length, cut: false }, 'file');
      a.flush();
      return out[0];
    });
    expect(r!.trace!.split('\n')).toHaveLength(51);
    expect(r!.trace).toContain('951 lines cut by mcbridge');
  });
});

describe('line splitting', () => {
  const split = (chunks: Buffer[], maxLine = 16) => {
    const out: Array<Line | BinaryNote> = [];
    const s = new LineSplitter((i) => out.push(i), maxLine);
    for (const c of chunks) s.push(c);
    s.flush();
    return { out, counters: s.counters };
  };
  it('joins lines across chunks and strips CR', () => {
    const { out, counters } = split([Buffer.from('ab'), Buffer.from('c\r\nde'), Buffer.from('f\n')]);
    expect(out).toEqual([
      { text: 'abc', bytes: 3, cut: false },
      { text: 'def', bytes: 3, cut: false },
    ]);
    expect(counters).toMatchObject({ lines: 2, bytes: 9, cut: 0 });
  });
  it('cuts a long line at the bound and keeps its length', () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'x');
    const { out, counters } = split([big.subarray(0, 5), big.subarray(5), Buffer.from('\nok\n')], 16 * 1024);
    expect(out[0]).toMatchObject({ bytes: 10 * 1024 * 1024, cut: true });
    expect((out[0] as Line).text.length).toBe(16 * 1024);
    expect(out[1]).toEqual({ text: 'ok', bytes: 2, cut: false });
    expect(counters.cut).toBe(1);
  });
  it('does not call a character cut at the bound binary', () => {
    const { out } = split([Buffer.from(`${'a'.repeat(15)}é more\n`)], 16);
    expect(out[0]).toMatchObject({ text: 'a'.repeat(15), cut: true });
  });
  it('folds a run of binary lines into one counted note', () => {
    const junk = Buffer.concat(Array.from({ length: 100 }, () => Buffer.from([0, 0xff, 0xfe, 10])));
    const { out, counters } = split([Buffer.from('a\n'), junk, Buffer.from('b\n')]);
    expect(out).toEqual([
      { text: 'a', bytes: 1, cut: false },
      { binary: true, lines: 100, bytes: 300 },
      { text: 'b', bytes: 1, cut: false },
    ]);
    expect(counters).toMatchObject({ lines: 2, binaryLines: 100, binaryBytes: 300 });
  });
});

describe('grep', () => {
  const rec = (message: string, trace?: string) => ({ seq: 1, message, trace, time: null, level: null, thread: null, logger: null, at: 0, source: 'file' }) as LogRecord;
  it('matches a case-insensitive substring of the message or the trace by default', () => {
    const m = grepMatcher('(a+)+', false);
    expect(m(rec('x (A+)+ y'))).toBe(true);
    expect(grepMatcher('nullpointer', false)(rec('boom', 'java.lang.NullPointerException'))).toBe(true);
    expect(grepMatcher('nullpointer', false)(rec('boom'))).toBe(false);
  });
  it('refuses nested quantifiers, backreferences, long and broken patterns with invalid_params', () => {
    for (const p of ['(a+)+', '(\\w*)*$', '(x{2,})+', '(a)\\1', 'x'.repeat(257), '(']) {
      expect(() => grepMatcher(p, true), p).toThrow(expect.objectContaining({ code: 'invalid_params' }));
    }
    expect(grepMatcher('ti(ck|me)s? \\d+', true)(rec('Tick 12'))).toBe(true);
  });
});
