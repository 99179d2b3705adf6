/**
 * NBT tags with the two text forms the sim needs: the compact one-line SNBT the mod writes into
 * snapshot files (every key double-quoted), and vanilla's pretty form used by `data get`. Also a
 * parser for the SNBT that `summon … {nbt}` accepts, so snapshot lines can be summoned back.
 */
import { javaDoubleString, javaFloatString } from './java-text.js';

export type Tag =
  | { kind: 'byte'; value: number }
  | { kind: 'short'; value: number }
  | { kind: 'int'; value: number }
  | { kind: 'long'; value: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'double'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'list'; items: Tag[] }
  | { kind: 'compound'; entries: Map<string, Tag> }
  | { kind: 'byteArray'; values: number[] }
  | { kind: 'intArray'; values: number[] }
  | { kind: 'longArray'; values: bigint[] };

export type CompoundTag = Extract<Tag, { kind: 'compound' }>;

export const nbt = {
  byte: (value: number): Tag => ({ kind: 'byte', value }),
  bool: (value: boolean): Tag => ({ kind: 'byte', value: value ? 1 : 0 }),
  short: (value: number): Tag => ({ kind: 'short', value }),
  int: (value: number): Tag => ({ kind: 'int', value }),
  long: (value: bigint): Tag => ({ kind: 'long', value }),
  float: (value: number): Tag => ({ kind: 'float', value }),
  double: (value: number): Tag => ({ kind: 'double', value }),
  string: (value: string): Tag => ({ kind: 'string', value }),
  list: (items: Tag[]): Tag => ({ kind: 'list', items }),
  intArray: (values: number[]): Tag => ({ kind: 'intArray', values }),
  compound: (entries: Iterable<[string, Tag]> = []): CompoundTag => ({ kind: 'compound', entries: new Map(entries) }),
};

/** The number a numeric tag holds, or null for non-numeric tags. */
export function numberOf(tag: Tag | undefined): number | null {
  if (!tag) return null;
  switch (tag.kind) {
    case 'byte':
    case 'short':
    case 'int':
    case 'float':
    case 'double':
      return tag.value;
    case 'long':
      return Number(tag.value);
    default:
      return null;
  }
}

function scalarSuffix(tag: Tag): string | null {
  switch (tag.kind) {
    case 'byte':
      return `${tag.value}b`;
    case 'short':
      return `${tag.value}s`;
    case 'int':
      return `${tag.value}`;
    case 'long':
      return `${tag.value}L`;
    case 'float':
      return `${javaFloatString(tag.value)}f`;
    case 'double':
      return `${javaDoubleString(tag.value)}d`;
    default:
      return null;
  }
}

function escapeString(text: string, quoteChar: string): string {
  let out = '';
  for (const ch of text) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quoteChar) out += `\\${quoteChar}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return `${quoteChar}${out}${quoteChar}`;
}

/** Compact SNBT as the mod writes it: no whitespace, every key and string double-quoted. */
export function writeCompactSnbt(tag: Tag): string {
  const scalar = scalarSuffix(tag);
  if (scalar !== null) return scalar;
  switch (tag.kind) {
    case 'string':
      return escapeString(tag.value, '"');
    case 'list':
      return `[${tag.items.map(writeCompactSnbt).join(',')}]`;
    case 'compound':
      return `{${[...tag.entries].map(([k, v]) => `${escapeString(k, '"')}:${writeCompactSnbt(v)}`).join(',')}}`;
    case 'byteArray':
      return `[B;${tag.values.map((v) => `${v}b`).join(',')}]`;
    case 'intArray':
      return `[I;${tag.values.join(',')}]`;
    case 'longArray':
      return `[L;${tag.values.map((v) => `${v}L`).join(',')}]`;
    default:
      return '{}';
  }
}

const SIMPLE_KEY = /^[A-Za-z0-9._+-]+$/;

function prettyString(text: string): string {
  // Vanilla picks double quotes unless the text holds one and no single quote.
  const quoteChar = text.includes('"') && !text.includes("'") ? "'" : '"';
  return escapeString(text, quoteChar);
}

/** Vanilla's chat rendering of a tag (`data get`): `{Key: 1.0d, List: [1, 2]}`, keys sorted. */
export function writePrettySnbt(tag: Tag): string {
  const scalar = scalarSuffix(tag);
  if (scalar !== null) return scalar;
  switch (tag.kind) {
    case 'string':
      return prettyString(tag.value);
    case 'list':
      return `[${tag.items.map(writePrettySnbt).join(', ')}]`;
    case 'compound': {
      const keys = [...tag.entries.keys()].sort();
      const parts = keys.map((k) => `${SIMPLE_KEY.test(k) ? k : prettyString(k)}: ${writePrettySnbt(tag.entries.get(k)!)}`);
      return `{${parts.join(', ')}}`;
    }
    case 'byteArray':
      return `[B; ${tag.values.map((v) => `${v}B`).join(', ')}]`;
    case 'intArray':
      return `[I; ${tag.values.join(', ')}]`;
    case 'longArray':
      return `[L; ${tag.values.map((v) => `${v}L`).join(', ')}]`;
    default:
      return '{}';
  }
}

/** A parse failure at `cursor` (an index into the parsed text). */
export class SnbtSyntaxError extends Error {
  constructor(
    message: string,
    readonly cursor: number,
  ) {
    super(message);
  }
}

const UNQUOTED_CHAR = /[0-9A-Za-z_\-.+]/;
const FLOAT = /^[-+]?(?:[0-9]+[.]?|[0-9]*[.][0-9]+)(?:e[-+]?[0-9]+)?f$/i;
const DOUBLE_SUFFIX = /^[-+]?(?:[0-9]+[.]?|[0-9]*[.][0-9]+)(?:e[-+]?[0-9]+)?d$/i;
const DOUBLE_PLAIN = /^[-+]?(?:[0-9]+[.]|[0-9]*[.][0-9]+)(?:e[-+]?[0-9]+)?$/i;
const INTEGER = /^[-+]?(?:0|[1-9][0-9]*)$/;
const BYTE = /^[-+]?(?:0|[1-9][0-9]*)b$/i;
const SHORT = /^[-+]?(?:0|[1-9][0-9]*)s$/i;
const LONG = /^[-+]?(?:0|[1-9][0-9]*)l$/i;

function inRange(value: number, bits: number): boolean {
  const limit = 2 ** (bits - 1);
  return value >= -limit && value < limit;
}

/** Type of an unquoted token, like vanilla's TagParser: numbers by suffix, else a string. */
function typedToken(token: string): Tag {
  if (FLOAT.test(token)) return nbt.float(Number(token.slice(0, -1)));
  if (BYTE.test(token) && inRange(Number(token.slice(0, -1)), 8)) return nbt.byte(Number(token.slice(0, -1)));
  if (LONG.test(token)) return nbt.long(BigInt(token.slice(0, -1).replace('+', '')));
  if (SHORT.test(token) && inRange(Number(token.slice(0, -1)), 16)) return nbt.short(Number(token.slice(0, -1)));
  if (INTEGER.test(token) && inRange(Number(token), 32)) return nbt.int(Number(token));
  if (DOUBLE_SUFFIX.test(token)) return nbt.double(Number(token.slice(0, -1)));
  if (DOUBLE_PLAIN.test(token)) return nbt.double(Number(token));
  if (token.toLowerCase() === 'true') return nbt.byte(1);
  if (token.toLowerCase() === 'false') return nbt.byte(0);
  return nbt.string(token);
}

class SnbtReader {
  cursor = 0;

  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new SnbtSyntaxError(message, this.cursor);
  }

  skipWhitespace(): void {
    while (this.cursor < this.text.length && /\s/.test(this.text[this.cursor])) this.cursor++;
  }

  peek(): string {
    return this.text[this.cursor] ?? '';
  }

  expect(ch: string): void {
    this.skipWhitespace();
    if (this.peek() !== ch) this.fail(`Expected '${ch}'`);
    this.cursor++;
  }

  readQuoted(): string {
    const quoteChar = this.text[this.cursor++];
    let out = '';
    while (this.cursor < this.text.length) {
      const ch = this.text[this.cursor++];
      if (ch === quoteChar) return out;
      if (ch === '\\') {
        const next = this.text[this.cursor++] ?? '';
        out += next === 'n' ? '\n' : next === 'r' ? '\r' : next === 't' ? '\t' : next;
      } else {
        out += ch;
      }
    }
    return this.fail('Unclosed quoted string');
  }

  readUnquoted(): string {
    const start = this.cursor;
    while (this.cursor < this.text.length && UNQUOTED_CHAR.test(this.text[this.cursor])) this.cursor++;
    return this.text.slice(start, this.cursor);
  }

  readKey(): string {
    this.skipWhitespace();
    const ch = this.peek();
    if (ch === '"' || ch === "'") return this.readQuoted();
    const key = this.readUnquoted();
    if (key === '') this.fail('Expected key');
    return key;
  }

  readValue(): Tag {
    this.skipWhitespace();
    const ch = this.peek();
    if (ch === '{') return this.readCompound();
    if (ch === '[') return this.readListOrArray();
    if (ch === '"' || ch === "'") return nbt.string(this.readQuoted());
    const token = this.readUnquoted();
    if (token === '') this.fail('Expected value');
    return typedToken(token);
  }

  readCompound(): CompoundTag {
    this.expect('{');
    const entries = new Map<string, Tag>();
    this.skipWhitespace();
    while (this.peek() !== '}') {
      const key = this.readKey();
      this.expect(':');
      entries.set(key, this.readValue());
      this.skipWhitespace();
      if (this.peek() === ',') {
        this.cursor++;
        this.skipWhitespace();
        continue;
      }
      if (this.peek() !== '}') this.fail("Expected '}'");
    }
    this.cursor++;
    return { kind: 'compound', entries };
  }

  readListOrArray(): Tag {
    this.expect('[');
    const head = this.text.slice(this.cursor, this.cursor + 2);
    if (/^[BIL];$/i.test(head)) {
      this.cursor += 2;
      return this.readArray(head[0].toUpperCase());
    }
    const items: Tag[] = [];
    this.skipWhitespace();
    while (this.peek() !== ']') {
      items.push(this.readValue());
      this.skipWhitespace();
      if (this.peek() === ',') {
        this.cursor++;
        continue;
      }
      if (this.peek() !== ']') this.fail("Expected ']'");
    }
    this.cursor++;
    return nbt.list(items);
  }

  readArray(type: string): Tag {
    const numbers: Tag[] = [];
    this.skipWhitespace();
    while (this.peek() !== ']') {
      const start = this.cursor;
      const value = this.readValue();
      if (numberOf(value) === null) {
        this.cursor = start;
        this.fail(`Invalid array type '${type}'`);
      }
      numbers.push(value);
      this.skipWhitespace();
      if (this.peek() === ',') {
        this.cursor++;
        continue;
      }
      if (this.peek() !== ']') this.fail("Expected ']'");
    }
    this.cursor++;
    if (type === 'B') return { kind: 'byteArray', values: numbers.map((t) => numberOf(t)!) };
    if (type === 'L') return { kind: 'longArray', values: numbers.map((t) => BigInt(Math.trunc(numberOf(t)!))) };
    return { kind: 'intArray', values: numbers.map((t) => numberOf(t)! | 0) };
  }
}

/**
 * Parses one compound from the start of `text`. Returns the tag and how many characters it
 * used, so a caller can complain about trailing data with the right cursor.
 */
export function parseSnbtCompound(text: string): { tag: CompoundTag; length: number } {
  const reader = new SnbtReader(text);
  reader.skipWhitespace();
  if (reader.peek() !== '{') reader.fail("Expected '{'");
  const tag = reader.readCompound();
  return { tag, length: reader.cursor };
}
