/**
 * Control protocol 1 framing (docs/control.md): a big-endian uint32 length, then that many bytes
 * of UTF-8 JSON holding one object. A frame of 0 bytes or over the bound is fatal to the session.
 */
import { exceedsJsonDepth, MAX_MOD_LINE_DEPTH } from '../../../util/json-depth.js';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class FrameError extends Error {
  constructor(
    readonly code: 'frame_too_large' | 'bad_request',
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

export function encodeFrame(payload: Record<string, unknown>): Buffer {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/**
 * Cuts a byte stream into frames. It keeps at most one frame's bytes (plus its header) and
 * refuses a length over `maxBytes` as soon as the header says so, before any body arrives.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private need = -1;

  constructor(
    private readonly maxBytes: number = DEFAULT_MAX_FRAME_BYTES,
    /** Texts cut out of every frame before it is parsed (the credential's secret), as `[credential]`. */
    private readonly secrets: readonly string[] = [],
  ) {}

  /** The whole frames `chunk` completes, parsed; throws a FrameError on a frame that breaks the rules. */
  push(chunk: Buffer): Array<Record<string, unknown>> {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: Array<Record<string, unknown>> = [];
    for (;;) {
      if (this.need < 0) {
        if (this.buffered < 4) break;
        const length = this.take(4).readUInt32BE(0);
        if (length === 0) throw new FrameError('bad_request', 'a frame of 0 bytes: every frame holds one JSON object');
        if (length > this.maxBytes) throw new FrameError('frame_too_large', `a frame of ${length} bytes is over the ${this.maxBytes}-byte limit`);
        this.need = length;
      }
      if (this.buffered < this.need) break;
      const body = this.take(this.need);
      this.need = -1;
      out.push(parseFrame(body, this.secrets));
    }
    return out;
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const head = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return head;
  }
}

export const SCRUBBED = '[credential]';

function parseFrame(body: Buffer, secrets: readonly string[]): Record<string, unknown> {
  let text = body.toString('utf8');
  // A secret is of [A-Za-z0-9_-]: it needs no JSON escape, so the text holds it verbatim if at all.
  for (const secret of secrets) if (secret !== '' && text.includes(secret)) text = text.split(secret).join(SCRUBBED);
  // Game data nests (NBT-like trees), but nothing recursive may meet a tree deeper than the mod's lines may be.
  if (exceedsJsonDepth(text, MAX_MOD_LINE_DEPTH)) throw new FrameError('bad_request', `a frame nests deeper than ${MAX_MOD_LINE_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FrameError('bad_request', `a frame of ${body.length} bytes is not JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FrameError('bad_request', 'a frame holds no JSON object');
  return value as Record<string, unknown>;
}
