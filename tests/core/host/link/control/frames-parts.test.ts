/**
 * Control framing, each rule with the exact words a server or a log gets (issue 35, "Test
 * strength"): the frame written, each refusal and its code, and the credential cut out of frames.
 */
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameError, FrameReader, SCRUBBED } from '../../../../../core/host/link/control/frames.js';

function frameOf(text: string): Buffer {
  const body = Buffer.from(text);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

function refusal(reader: FrameReader, bytes: Buffer): FrameError {
  try {
    reader.push(bytes);
  } catch (err) {
    return err as FrameError;
  }
  throw new Error('the frame was taken');
}

describe('frames written', () => {
  it('are the UTF-8 JSON behind its byte length, big-endian', () => {
    const bytes = encodeFrame({ t: 'é' });
    expect(bytes.readUInt32BE(0)).toBe(10);
    expect(bytes.subarray(4).toString('utf8')).toBe('{"t":"é"}');
    expect(bytes).toHaveLength(14);
  });
});

describe('frames refused', () => {
  it('each with its code and words', () => {
    const cases: Array<[Buffer, string, string]> = [
      [Buffer.alloc(4), 'bad_request', 'a frame of 0 bytes: every frame holds one JSON object'],
      [frameOf('{'.repeat(5)), 'bad_request', 'a frame of 5 bytes is not JSON'],
      [frameOf('null'), 'bad_request', 'a frame holds no JSON object'],
      [frameOf('5'), 'bad_request', 'a frame holds no JSON object'],
      [frameOf('"text"'), 'bad_request', 'a frame holds no JSON object'],
      [frameOf('[1]'), 'bad_request', 'a frame holds no JSON object'],
      [frameOf(`${'['.repeat(129)}${']'.repeat(129)}`), 'bad_request', 'a frame nests deeper than 128 levels'],
    ];
    for (const [bytes, code, message] of cases) {
      const err = refusal(new FrameReader(1024), bytes);
      expect(err).toBeInstanceOf(FrameError);
      expect([err.name, err.code, err.message]).toEqual(['FrameError', code, message]);
    }
    const head = Buffer.alloc(4);
    head.writeUInt32BE(1025, 0);
    const big = refusal(new FrameReader(1024), head);
    expect([big.code, big.message]).toEqual(['frame_too_large', 'a frame of 1025 bytes is over the 1024-byte limit']);
  });

  it('a frame nested exactly 128 deep is taken', () => {
    const text = `{"a":${'['.repeat(127)}${']'.repeat(127)}}`;
    expect(new FrameReader(1024).push(frameOf(text))).toHaveLength(1);
  });
});

describe("the credential's secret", () => {
  const secret = 'S3cretS3cret_-x';

  it('is cut out of every frame before it is parsed, wherever and however often it is', () => {
    const reader = new FrameReader(1024, [secret]);
    const [frame] = reader.push(frameOf(JSON.stringify({ type: 'error', message: `bad token mca1.tk_a.${secret} (${secret})`, [secret]: 1 })));
    expect(frame).toEqual({ type: 'error', message: `bad token mca1.tk_a.${SCRUBBED} (${SCRUBBED})`, [SCRUBBED]: 1 });
    expect(SCRUBBED).toBe('[credential]');
  });

  it('an empty secret cuts nothing; without one a frame is as sent', () => {
    const text = JSON.stringify({ type: 'event', text: 'abc [credential] Stryker was here' });
    expect(new FrameReader(1024, ['']).push(frameOf(text))).toEqual([JSON.parse(text)]);
    expect(new FrameReader(1024).push(frameOf(text))).toEqual([JSON.parse(text)]);
    expect(new FrameReader(1024, [secret]).push(frameOf(text))).toEqual([JSON.parse(text)]);
  });
});
