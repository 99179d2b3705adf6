/**
 * Anvil region files (`r.X.Z.mca`): an 8 KiB header (1024 chunk locations, 1024 timestamps) and
 * 4 KiB sectors, each chunk a big-endian length, a compression byte and the payload. The sim
 * writes real zlib-compressed NBT for the entity chunks it owns; everything else in a generated
 * world is filler (random bytes behind a plausible header) that no reader can inflate.
 */
import zlib from 'node:zlib';
import { readNbt, writeNbt } from './nbt-binary.js';
import type { CompoundTag } from './snbt.js';

export const SECTOR = 4096;
export const HEADER_BYTES = 2 * SECTOR;
export const CHUNKS_PER_REGION = 1024;
const ZLIB = 2;
/** One location entry holds at most 255 sectors; larger chunks would need an external .mcc file. */
const MAX_SECTORS = 255;
const SECTORS_PER_FILLER_CHUNK = 4;

export interface StoredChunk {
  /** `compression byte + data`, exactly what sits behind the 4-byte length. */
  payload: Buffer;
  /** Epoch seconds of the last write. */
  timestamp: number;
}

/** Index of a chunk inside its region: (x & 31) + (z & 31) * 32. */
export function chunkIndex(cx: number, cz: number): number {
  return (cx & 31) + (cz & 31) * 32;
}

export function regionFileName(rx: number, rz: number): string {
  return `r.${rx}.${rz}.mca`;
}

export function parseRegionFileName(name: string): [number, number] | null {
  const m = /^r\.(-?\d+)\.(-?\d+)\.mca$/.exec(name);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** A chunk compound as it is stored: zlib (compression 2) of the unnamed root compound. */
export function encodeChunk(tag: CompoundTag): Buffer {
  return Buffer.concat([Buffer.from([ZLIB]), zlib.deflateSync(writeNbt(tag))]);
}

/** The chunk compound, or null when the payload is not readable NBT (filler, corruption, other codecs). */
export function decodeChunk(payload: Buffer): CompoundTag | null {
  try {
    const data = payload.subarray(1);
    const raw = payload[0] === ZLIB ? zlib.inflateSync(data) : payload[0] === 1 ? zlib.gunzipSync(data) : payload[0] === 3 ? data : null;
    return raw ? readNbt(raw).root : null;
  } catch {
    return null;
  }
}

/** Lays chunks out in index order right after the header; the file is a whole number of sectors. */
export function buildRegion(chunks: ReadonlyMap<number, StoredChunk>): Buffer {
  const indices = [...chunks.keys()].sort((a, b) => a - b);
  const sectorsOf = (c: StoredChunk) => Math.ceil((c.payload.length + 4) / SECTOR);
  const total = 2 + indices.reduce((sum, i) => sum + sectorsOf(chunks.get(i)!), 0);
  const out = Buffer.alloc(total * SECTOR);
  let sector = 2;
  for (const index of indices) {
    const chunk = chunks.get(index)!;
    const count = sectorsOf(chunk);
    if (count > MAX_SECTORS) throw new Error(`chunk ${index} needs ${count} sectors (max ${MAX_SECTORS})`);
    out.writeUInt32BE(((sector << 8) | count) >>> 0, index * 4);
    out.writeUInt32BE(chunk.timestamp >>> 0, SECTOR + index * 4);
    out.writeUInt32BE(chunk.payload.length, sector * SECTOR);
    chunk.payload.copy(out, sector * SECTOR + 4);
    sector += count;
  }
  return out;
}

/** Every chunk a region file holds; entries pointing outside the file are skipped, as the game does. */
export function readRegion(buf: Buffer): Map<number, StoredChunk> {
  const chunks = new Map<number, StoredChunk>();
  if (buf.length < HEADER_BYTES) return chunks;
  for (let index = 0; index < CHUNKS_PER_REGION; index++) {
    const location = buf.readUInt32BE(index * 4);
    if (location === 0) continue;
    const start = (location >>> 8) * SECTOR;
    const count = location & 0xff;
    if (start < HEADER_BYTES || start + count * SECTOR > buf.length || count === 0) continue;
    const length = buf.readUInt32BE(start);
    if (length < 1 || length + 4 > count * SECTOR) continue;
    chunks.set(index, { payload: Buffer.from(buf.subarray(start + 4, start + 4 + length)), timestamp: buf.readUInt32BE(SECTOR + index * 4) });
  }
  return chunks;
}

/**
 * Fills `out` (a whole number of sectors, at least the header) with a plausible region file:
 * chunks of about four sectors (up to 1024 of them), with random "compressed" bytes that start
 * with an invalid zlib header so no loader mistakes them for data.
 */
export function fillRegion(out: Buffer, pool: Buffer, salt: number, nowSeconds: number): void {
  const sectors = out.length / SECTOR - 2;
  out.fill(0, 0, HEADER_BYTES);
  if (sectors <= 0) return;
  // Real compressed chunks span a few sectors each; a region file is not full until 1024 of them.
  const chunks = Math.min(CHUNKS_PER_REGION, Math.max(1, Math.floor(sectors / SECTORS_PER_FILLER_CHUNK)));
  const per = Math.floor(sectors / chunks);
  let extra = sectors - per * chunks;
  let sector = 2;
  let seed = (salt * 2654435761) >>> 0;
  const next = () => (seed = (Math.imul(seed ^ (seed >>> 15), 2246822519) + 0x9e3779b9) >>> 0);
  for (let i = 0; i < chunks; i++) {
    const count = Math.min(MAX_SECTORS, per + (extra > 0 ? 1 : 0));
    if (extra > 0) extra--;
    const start = sector * SECTOR;
    const span = count * SECTOR;
    // Copy random bytes from a rotating spot in the pool, so files and chunks all differ.
    let at = 0;
    let from = next() % (pool.length - SECTOR);
    while (at < span) {
      const n = Math.min(span - at, pool.length - from);
      pool.copy(out, start + at, from, from + n);
      at += n;
      from = 0;
    }
    const used = span - 4 - (next() % Math.min(SECTOR - 8, span - 8));
    out.writeUInt32BE(used, start);
    out[start + 4] = ZLIB;
    out[start + 5] = 0x78;
    out[start + 6] = 0x00; // fails zlib's header check on purpose
    out.writeUInt32BE(salt >>> 0, start + 7);
    out.writeUInt32BE(i, start + 11);
    out.fill(0, start + 4 + used, start + span);
    out.writeUInt32BE(((sector << 8) | count) >>> 0, i * 4);
    out.writeUInt32BE((nowSeconds - (next() % 86400)) >>> 0, SECTOR + i * 4);
    sector += count;
  }
}
