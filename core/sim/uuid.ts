/** UUID text forms the mod accepts, and the `[I;a,b,c,d]` form NBT stores them in. */
import { createHash } from 'node:crypto';

const DASHED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMPACT = /^[0-9a-f]{32}$/i;

function dash(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toLowerCase();
}

/** A dashed or 32-hex UUID, normalised to lower-case dashed; anything else gives null. */
export function parseUuid(text: string): string | null {
  if (DASHED.test(text)) return text.toLowerCase();
  if (COMPACT.test(text)) return dash(text);
  return null;
}

export function isUuid(text: string): boolean {
  return parseUuid(text) !== null;
}

/** Four signed 32-bit ints, most significant first, as in `"UUID":[I;…]`. */
export function uuidToInts(uuid: string): number[] {
  const hex = uuid.replace(/-/g, '');
  return [0, 8, 16, 24].map((at) => parseInt(hex.slice(at, at + 8), 16) | 0);
}

export function intsToUuid(ints: readonly number[]): string {
  return dash(ints.map((i) => (i >>> 0).toString(16).padStart(8, '0')).join(''));
}

/**
 * `uuid` as the sim named `name` has it: a version-4 UUID hashed from both, so sims of two names
 * (a daemon's targets) share no fixed UUID, and one name always gets the same (docs/targets.md).
 */
export function namedUuid(name: string, uuid: string): string {
  return v4Uuid(createHash('sha256').update(`${name}\0${uuid}`).digest('hex').slice(0, 32));
}

/** 32 hex digits as a version-4 UUID (its version and variant bits set), dashed. */
export function v4Uuid(hex: string): string {
  const chars = hex.split('');
  chars[12] = '4';
  chars[16] = ((parseInt(chars[16]!, 16) & 0x3) | 0x8).toString(16);
  return dash(chars.join(''));
}
