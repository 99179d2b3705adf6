import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameError, FrameReader } from '../../../../../core/host/link/control/frames.js';
import { parsePin } from '../../../../../core/host/link/control/trust.js';
import { parseAddress } from '../../../../../core/host/link/control/control-link.js';

function frameOf(length: number, body = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(length, 0);
  return Buffer.concat([head, body]);
}

describe('control protocol framing', () => {
  it('reads frames split anywhere and several in one chunk', () => {
    const bytes = Buffer.concat([encodeFrame({ type: 'reply', id: 'a' }), encodeFrame({ type: 'event', seq: 1, event: { type: 'chat', text: 'é' } })]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const reader = new FrameReader(1024);
      const out = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
      expect(out).toEqual([
        { type: 'reply', id: 'a' },
        { type: 'event', seq: 1, event: { type: 'chat', text: 'é' } },
      ]);
    }
  });

  it('takes a frame of exactly the limit and refuses one byte over from its header alone', () => {
    const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(100 - 10) }));
    expect(body.length).toBe(100);
    expect(new FrameReader(100).push(frameOf(100, body))).toHaveLength(1);
    const over = new FrameReader(100);
    expect(() => over.push(frameOf(101))).toThrow(FrameError);
    expect(() => new FrameReader(100).push(frameOf(101))).toThrow(/101 bytes is over the 100-byte limit/);
  });

  it('refuses an empty frame, a frame that is not JSON, not an object, or nests too deep', () => {
    expect(() => new FrameReader().push(frameOf(0))).toThrow(/0 bytes/);
    expect(() => new FrameReader().push(frameOf(3, Buffer.from('{{{')))).toThrow(/not JSON/);
    expect(() => new FrameReader().push(frameOf(2, Buffer.from('[]')))).toThrow(/no JSON object/);
    const deep = Buffer.from(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`);
    expect(() => new FrameReader().push(frameOf(deep.length, deep))).toThrow(/deeper than 128/);
  });
});

describe('pins and addresses', () => {
  const hex = 'ab'.repeat(32);
  it.each([`sha256:${hex}`, hex, hex.toUpperCase(), `SHA256: ${hex.match(/../g)!.join(':')}`, `sha-256=${hex.match(/../g)!.join(' ')}`])('reads %s', (pin) => {
    expect(parsePin(pin)).toBe(hex);
  });

  it.each(['', 'sha256:', 'ab'.repeat(31), `${hex}00`, 'sha1:' + hex, 'zz'.repeat(32)])('refuses %j', (pin) => {
    expect(parsePin(pin)).toBeNull();
  });

  it('reads host:port and [v6]:port, and refuses the rest', () => {
    expect(parseAddress('mc.example.org:25565')).toEqual({ host: 'mc.example.org', port: 25565 });
    expect(parseAddress('[::1]:25565')).toEqual({ host: '::1', port: 25565 });
    expect(parseAddress('127.0.0.1:1')).toEqual({ host: '127.0.0.1', port: 1 });
    expect(parseAddress('  [::ffff:10.0.0.2]:65535\n')).toEqual({ host: '::ffff:10.0.0.2', port: 65535 });
    expect(parseAddress('[FE80::A]:99999')).toBeNull();
    for (const bad of [
      'mc.example.org',
      'host:0',
      'host:65536',
      '::1:25565',
      'a b:1',
      'host:port',
      'host:123456',
      'x.org:25565/path',
      'x/y:1',
      'a]:1',
      '[::1]',
      '[g::1]:1',
      '[::1]x:1',
      ':25565',
      'host:',
    ]) {
      expect(parseAddress(bad)).toBeNull();
    }
  });
});
