/**
 * Binary NBT (big-endian, Java's modified UTF-8 strings), the encoding inside `level.dat`, the
 * `.dat` files and the Anvil chunks of the world folder. Same Tag model as snbt.ts.
 */
import type { CompoundTag, Tag } from './snbt.js';

const TAG_ID: Record<Tag['kind'], number> = {
  byte: 1,
  short: 2,
  int: 3,
  long: 4,
  float: 5,
  double: 6,
  byteArray: 7,
  string: 8,
  list: 9,
  compound: 10,
  intArray: 11,
  longArray: 12,
};
const KIND_OF: Tag['kind'][] = [];
for (const [kind, id] of Object.entries(TAG_ID)) KIND_OF[id] = kind as Tag['kind'];

/** Java's DataOutput.writeUTF encoding: NUL as C0 80, supplementary characters as two 3-byte surrogates. */
function modifiedUtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0 && c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  if (bytes.length > 0xffff) throw new Error('NBT string longer than 65535 bytes');
  return Buffer.from(bytes);
}

function fromModifiedUtf8(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const a = bytes[i];
    if (a < 0x80) {
      out += String.fromCharCode(a);
      i += 1;
    } else if ((a & 0xe0) === 0xc0) {
      out += String.fromCharCode(((a & 0x1f) << 6) | (bytes[i + 1] & 0x3f));
      i += 2;
    } else {
      out += String.fromCharCode(((a & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f));
      i += 3;
    }
  }
  return out;
}

class Writer {
  private readonly parts: Buffer[] = [];

  bytes(buf: Buffer): void {
    this.parts.push(buf);
  }

  u8(v: number): void {
    this.parts.push(Buffer.from([v & 0xff]));
  }

  fixed(size: number, write: (b: Buffer) => void): void {
    const b = Buffer.alloc(size);
    write(b);
    this.parts.push(b);
  }

  string(text: string): void {
    const body = modifiedUtf8(text);
    this.fixed(2, (b) => b.writeUInt16BE(body.length));
    this.parts.push(body);
  }

  payload(tag: Tag): void {
    switch (tag.kind) {
      case 'byte':
        return this.fixed(1, (b) => b.writeInt8(tag.value));
      case 'short':
        return this.fixed(2, (b) => b.writeInt16BE(tag.value));
      case 'int':
        return this.fixed(4, (b) => b.writeInt32BE(tag.value | 0));
      case 'long':
        return this.fixed(8, (b) => b.writeBigInt64BE(BigInt.asIntN(64, tag.value)));
      case 'float':
        return this.fixed(4, (b) => b.writeFloatBE(tag.value));
      case 'double':
        return this.fixed(8, (b) => b.writeDoubleBE(tag.value));
      case 'string':
        return this.string(tag.value);
      case 'byteArray':
        this.fixed(4, (b) => b.writeInt32BE(tag.values.length));
        return this.bytes(Buffer.from(tag.values.map((v) => v & 0xff)));
      case 'intArray':
        return this.fixed(4 + 4 * tag.values.length, (b) => {
          b.writeInt32BE(tag.values.length);
          tag.values.forEach((v, i) => {
            b.writeInt32BE(v | 0, 4 + 4 * i);
          });
        });
      case 'longArray':
        return this.fixed(4 + 8 * tag.values.length, (b) => {
          b.writeInt32BE(tag.values.length);
          tag.values.forEach((v, i) => {
            b.writeBigInt64BE(BigInt.asIntN(64, v), 4 + 8 * i);
          });
        });
      case 'list': {
        const element = tag.items[0]?.kind;
        if (tag.items.some((t) => t.kind !== element)) throw new Error('NBT list items must share one type');
        this.u8(element ? TAG_ID[element] : 0);
        this.fixed(4, (b) => b.writeInt32BE(tag.items.length));
        for (const item of tag.items) this.payload(item);
        return;
      }
      case 'compound':
        for (const [key, value] of tag.entries) {
          this.u8(TAG_ID[value.kind]);
          this.string(key);
          this.payload(value);
        }
        return this.u8(0);
    }
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** A named root compound (`""` by default), uncompressed. */
export function writeNbt(root: CompoundTag, name = ''): Buffer {
  const w = new Writer();
  w.u8(TAG_ID.compound);
  w.string(name);
  w.payload(root);
  return w.done();
}

class Reader {
  at = 0;

  constructor(private readonly buf: Buffer) {}

  private need(n: number): number {
    if (this.at + n > this.buf.length) throw new Error('NBT data ends early');
    const start = this.at;
    this.at += n;
    return start;
  }

  u8(): number {
    return this.buf[this.need(1)];
  }

  string(): string {
    const length = this.buf.readUInt16BE(this.need(2));
    const start = this.need(length);
    return fromModifiedUtf8(this.buf.subarray(start, start + length));
  }

  count(): number {
    const n = this.buf.readInt32BE(this.need(4));
    if (n < 0) throw new Error('negative NBT length');
    return n;
  }

  payload(id: number, depth: number): Tag {
    if (depth > 512) throw new Error('NBT nested too deeply');
    const kind = KIND_OF[id];
    switch (kind) {
      case 'byte':
        return { kind, value: this.buf.readInt8(this.need(1)) };
      case 'short':
        return { kind, value: this.buf.readInt16BE(this.need(2)) };
      case 'int':
        return { kind, value: this.buf.readInt32BE(this.need(4)) };
      case 'long':
        return { kind, value: this.buf.readBigInt64BE(this.need(8)) };
      case 'float':
        return { kind, value: this.buf.readFloatBE(this.need(4)) };
      case 'double':
        return { kind, value: this.buf.readDoubleBE(this.need(8)) };
      case 'string':
        return { kind, value: this.string() };
      case 'byteArray': {
        const n = this.count();
        const start = this.need(n);
        return { kind, values: [...this.buf.subarray(start, start + n)].map((v) => (v << 24) >> 24) };
      }
      case 'intArray': {
        const n = this.count();
        const start = this.need(4 * n);
        return { kind, values: Array.from({ length: n }, (_, i) => this.buf.readInt32BE(start + 4 * i)) };
      }
      case 'longArray': {
        const n = this.count();
        const start = this.need(8 * n);
        return { kind, values: Array.from({ length: n }, (_, i) => this.buf.readBigInt64BE(start + 8 * i)) };
      }
      case 'list': {
        const element = this.u8();
        const n = this.count();
        const items: Tag[] = [];
        for (let i = 0; i < n; i++) items.push(this.payload(element, depth + 1));
        return { kind, items };
      }
      case 'compound': {
        const entries = new Map<string, Tag>();
        for (let type = this.u8(); type !== 0; type = this.u8()) {
          const key = this.string();
          entries.set(key, this.payload(type, depth + 1));
        }
        return { kind, entries };
      }
      default:
        throw new Error(`unknown NBT tag type ${id}`);
    }
  }
}

/** Reads a named root compound; throws on anything else or on trailing garbage inside it. */
export function readNbt(buf: Buffer): { name: string; root: CompoundTag } {
  const r = new Reader(buf);
  if (r.u8() !== TAG_ID.compound) throw new Error('NBT root is not a compound');
  const name = r.string();
  return { name, root: r.payload(TAG_ID.compound, 0) as CompoundTag };
}
