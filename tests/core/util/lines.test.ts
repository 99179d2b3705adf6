import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../../../core/util/lines.js';

function splitter(maxLineBytes?: number) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const s = new LineSplitter({
    ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
    onLine: (line) => lines.push(line),
    onOverflow: (bytes) => overflows.push(bytes),
  });
  const push = (...chunks: Array<string | Buffer>) => {
    for (const c of chunks) s.push(typeof c === 'string' ? Buffer.from(c, 'utf8') : c);
  };
  return { s, lines, overflows, push };
}

describe('LineSplitter', () => {
  it('has a generous default bound', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(16 * 1024 * 1024);
  });

  it('splits on \\n', () => {
    const t = splitter();
    t.push('{"a":1}\n{"b":2}\n');
    expect(t.lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('strips the \\r of \\r\\n, and only a trailing one', () => {
    const t = splitter();
    t.push('one\r\ntw\ro\r\n');
    expect(t.lines).toEqual(['one', 'tw\ro']);
  });

  it('strips \\r when the \\r and \\n arrive in different chunks', () => {
    const t = splitter();
    t.push('hello\r', '\nworld\r', '\n');
    expect(t.lines).toEqual(['hello', 'world']);
  });

  it('holds a partial line until its newline arrives', () => {
    const t = splitter();
    t.push('{"type":"he');
    expect(t.lines).toEqual([]);
    t.push('llo"');
    expect(t.lines).toEqual([]);
    t.push('}\n{"x"');
    expect(t.lines).toEqual(['{"type":"hello"}']);
    t.push(':1}\n');
    expect(t.lines).toEqual(['{"type":"hello"}', '{"x":1}']);
  });

  it('delivers one line fed a byte at a time', () => {
    const t = splitter();
    for (const byte of Buffer.from('abc\r\ndef\n')) t.push(Buffer.from([byte]));
    expect(t.lines).toEqual(['abc', 'def']);
  });

  it('reassembles a multibyte UTF-8 character split across chunks', () => {
    const t = splitter();
    const bytes = Buffer.from('{"msg":"h€llo 🎉"}\n', 'utf8');
    const euro = bytes.indexOf(Buffer.from('€', 'utf8'));
    const party = bytes.indexOf(Buffer.from('🎉', 'utf8'));
    // Cut inside the 3-byte euro sign and inside the 4-byte emoji.
    t.push(bytes.subarray(0, euro + 1), bytes.subarray(euro + 1, party + 2), bytes.subarray(party + 2));
    expect(t.lines).toEqual(['{"msg":"h€llo 🎉"}']);
    expect(t.lines[0]).not.toContain('\uFFFD');
  });

  it('delivers many lines from one chunk, in order', () => {
    const t = splitter();
    const sent = Array.from({ length: 500 }, (_, i) => JSON.stringify({ seq: i }));
    t.push(sent.join('\n') + '\n');
    expect(t.lines).toEqual(sent);
  });

  it('passes empty lines through as empty strings (the caller ignores them)', () => {
    const t = splitter();
    t.push('\n\r\na\n\n');
    expect(t.lines).toEqual(['', '', 'a', '']);
  });

  it('delivers nothing for a final line without a newline', () => {
    const t = splitter();
    t.push('no newline yet');
    expect(t.lines).toEqual([]);
    expect(t.overflows).toEqual([]);
  });

  it('accepts a line of exactly the bound', () => {
    const t = splitter(10);
    t.push('x'.repeat(10) + '\n');
    t.push('y'.repeat(5), 'y'.repeat(5) + '\n');
    expect(t.lines).toEqual(['x'.repeat(10), 'y'.repeat(10)]);
    expect(t.overflows).toEqual([]);
  });

  it('discards an oversize line within one chunk and keeps the next one intact', () => {
    const t = splitter(10);
    t.push('ok\n' + 'z'.repeat(11) + '\nafter\n');
    expect(t.lines).toEqual(['ok', 'after']);
    expect(t.overflows).toEqual([11]);
  });

  it('discards an oversize line spanning chunks and reports all of its bytes', () => {
    const t = splitter(16);
    t.push('a'.repeat(9));
    t.push('a'.repeat(9)); // 18 > 16: now discarding
    t.push('a'.repeat(100));
    expect(t.lines).toEqual([]);
    expect(t.overflows).toEqual([]); // reported when the line ends
    t.push('a'.repeat(3) + '\n{"next":true}\n');
    expect(t.overflows).toEqual([9 + 9 + 100 + 3]);
    expect(t.lines).toEqual(['{"next":true}']);
  });

  it('discards an oversize line whose held part fits but whose tail does not', () => {
    const t = splitter(10);
    t.push('b'.repeat(8));
    t.push('b'.repeat(8) + '\nnext\n');
    expect(t.overflows).toEqual([16]);
    expect(t.lines).toEqual(['next']);
  });

  it('recovers for the line right after an oversize one even when it starts in the same chunk', () => {
    const t = splitter(10);
    t.push('c'.repeat(30));
    t.push('c\nne');
    t.push('xt\n');
    expect(t.overflows).toEqual([31]);
    expect(t.lines).toEqual(['next']);
  });

  it('reports each of several oversize lines separately', () => {
    const t = splitter(4);
    t.push('aaaaa\nbb\ncccccc\ndd\n');
    expect(t.overflows).toEqual([5, 6]);
    expect(t.lines).toEqual(['bb', 'dd']);
  });

  it('works without an onOverflow callback', () => {
    const lines: string[] = [];
    const s = new LineSplitter({ maxLineBytes: 3, onLine: (l) => lines.push(l) });
    s.push(Buffer.from('toolong\nok\n'));
    expect(lines).toEqual(['ok']);
  });
});
