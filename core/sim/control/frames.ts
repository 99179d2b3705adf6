/**
 * Control protocol 1 framing: a uint32 big-endian length, then that many bytes of a UTF-8 JSON
 * object. The reader never holds more than one frame of at most `maxFrameBytes` (plus the chunk
 * that carried its end), and reports the first violation as the fatal error the server sends.
 */
import { toJavaJson } from '../json.js';

export type Frame = Record<string, unknown>;

/** A framing violation: fatal for the session (the server sends it as an `error` frame, then closes). */
export class FrameError extends Error {
  constructor(
    readonly code: 'frame_too_large' | 'bad_request',
    message: string,
  ) {
    super(message);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class FrameReader {
  private chunks: Buffer[] = [];
  private held = 0;
  private failed = false;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly onFrame: (frame: Frame) => void,
    private readonly onError: (error: FrameError) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed) return;
    this.chunks.push(chunk);
    this.held += chunk.length;
    while (!this.failed && this.held >= 4) {
      // Joined only when a whole frame is there (or for the 4-byte head), so a big frame costs one copy.
      if (this.chunks[0].length < 4) this.chunks = [Buffer.concat(this.chunks)];
      const length = this.chunks[0].readUInt32BE(0);
      if (length === 0) return this.fail(new FrameError('bad_request', 'a frame must hold at least one byte of JSON'));
      if (length > this.maxFrameBytes) return this.fail(new FrameError('frame_too_large', `a frame of ${length} bytes is over the limit of ${this.maxFrameBytes}`));
      if (this.held < 4 + length) return;
      const joined = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
      const rest = joined.subarray(4 + length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.held = rest.length;
      const frame = parsePayload(joined.subarray(4, 4 + length));
      if (frame instanceof FrameError) return this.fail(frame);
      this.onFrame(frame);
    }
  }

  private fail(error: FrameError): void {
    this.failed = true;
    this.chunks = [];
    this.held = 0;
    this.onError(error);
  }
}

function parsePayload(payload: Buffer): Frame | FrameError {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(payload));
  } catch {
    return new FrameError('bad_request', 'a frame must hold UTF-8 JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return new FrameError('bad_request', 'a frame must hold a JSON object');
  return value as Frame;
}

/** A frame around already-encoded JSON (an event is encoded once for every session). */
export function frameOf(json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** A frame on the wire, Gson-like numbers kept (results are the mod's legacy reply objects). */
export function encodeFrame(frame: Frame): Buffer {
  return frameOf(toJavaJson(frame));
}
