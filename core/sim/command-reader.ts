/**
 * A cursor over a vanilla command line with brigadier's error shapes: a syntax error carries a
 * cursor and renders as the message plus the `...text<--[HERE]` context line; a failure is a
 * plain message (what a command sends when it runs but cannot do its job).
 */
import { javaDoubleString, javaFloatString } from './java-text.js';
import { parseSnbtCompound, SnbtSyntaxError, type CompoundTag } from './snbt.js';

export class CommandSyntaxError extends Error {
  constructor(
    message: string,
    readonly cursor: number,
  ) {
    super(message);
  }
}

export class CommandFailure extends Error {}

export const UNKNOWN_COMMAND = 'Unknown or incomplete command, see below for error';
export const INCORRECT_ARGUMENT = 'Incorrect argument for command';

/** Vanilla's second feedback line for a syntax error: up to 10 chars before the cursor, then the rest. */
export function contextLine(input: string, cursor: number): string {
  const at = Math.min(input.length, Math.max(0, cursor));
  let line = at > 10 ? '...' : '';
  line += input.slice(Math.max(0, at - 10), at);
  if (at < input.length) line += input.slice(at);
  return `${line}<--[HERE]`;
}

export type Vec3 = [number, number, number];

export class CommandReader {
  cursor = 0;

  constructor(readonly input: string) {}

  private skipSpaces(): void {
    while (this.input[this.cursor] === ' ') this.cursor++;
  }

  /** Where the next argument starts (after separating spaces). */
  nextStart(): number {
    this.skipSpaces();
    return this.cursor;
  }

  atEnd(): boolean {
    return this.nextStart() >= this.input.length;
  }

  peekWord(): string {
    const start = this.nextStart();
    const end = this.input.indexOf(' ', start);
    return this.input.slice(start, end === -1 ? undefined : end);
  }

  readWord(): string {
    const word = this.peekWord();
    this.cursor += word.length;
    return word;
  }

  /** Everything left, for greedy arguments (`say <message>`). */
  readRest(): string {
    const start = this.nextStart();
    this.cursor = this.input.length;
    return this.input.slice(start);
  }

  syntax(message: string, at = this.cursor): never {
    throw new CommandSyntaxError(message, at);
  }

  /** The command stopped early: nothing executable at this point. */
  incomplete(): never {
    return this.syntax(UNKNOWN_COMMAND, this.input.length);
  }

  expectEnd(): void {
    if (!this.atEnd()) this.syntax(INCORRECT_ARGUMENT, this.cursor);
  }

  readLiteral<T extends string>(options: readonly T[]): T {
    const start = this.nextStart();
    const word = this.readWord();
    if (word === '') this.incomplete();
    if (!(options as readonly string[]).includes(word)) this.syntax(INCORRECT_ARGUMENT, start);
    return word as T;
  }

  private readNumber(kind: 'integer' | 'float' | 'double', min?: number, max?: number): number {
    const start = this.nextStart();
    if (this.cursor >= this.input.length) this.incomplete();
    const match = /^[0-9.+-]*/.exec(this.input.slice(start))![0];
    if (match === '') this.syntax(`Expected ${kind}`, start);
    const valid = kind === 'integer' ? /^[-+]?\d+$/.test(match) : /^[-+]?(\d+\.?\d*|\.\d+)$/.test(match);
    if (!valid) this.syntax(`Invalid ${kind} '${match}'`, start);
    this.cursor = start + match.length;
    const value = Number(match);
    const label = kind === 'integer' ? 'Integer' : kind === 'float' ? 'Float' : 'Double';
    const show = (n: number) => (kind === 'integer' ? String(n) : kind === 'float' ? javaFloatString(n) : javaDoubleString(n));
    if (min !== undefined && value < min) this.syntax(`${label} must not be less than ${show(min)}, found ${show(value)}`, start);
    if (max !== undefined && value > max) this.syntax(`${label} must not be more than ${show(max)}, found ${show(value)}`, start);
    return value;
  }

  readInt(min?: number, max?: number): number {
    return this.readNumber('integer', min, max);
  }

  readFloat(min?: number, max?: number): number {
    return this.readNumber('float', min, max);
  }

  readDouble(min?: number, max?: number): number {
    return this.readNumber('double', min, max);
  }

  /** One world coordinate: a number or `~`/`~n` relative to `base`; integers centre on x/z. */
  private readCoordinate(base: number, centre: boolean, integer: boolean): number {
    const start = this.nextStart();
    const word = this.readWord();
    const missing = integer ? 'Expected a block position' : 'Expected a coordinate';
    if (word.startsWith('~')) {
      const offset = word.slice(1);
      if (offset === '') return base;
      if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(offset)) this.syntax(missing, start);
      return base + Number(offset);
    }
    const pattern = integer ? /^[-+]?\d+$/ : /^[-+]?(\d+\.?\d*|\.\d+)$/;
    if (!pattern.test(word)) this.syntax(missing, start);
    const value = Number(word);
    return centre && !word.includes('.') ? value + 0.5 : value;
  }

  /** `x y z` as vanilla's Vec3 argument reads it. */
  readVec3(base: Vec3): Vec3 {
    const start = this.nextStart();
    const incomplete = () => this.syntax('Incomplete (expected 3 coordinates)', start);
    const x = this.readCoordinate(base[0], true, false);
    if (this.atEnd()) incomplete();
    const y = this.readCoordinate(base[1], false, false);
    if (this.atEnd()) incomplete();
    const z = this.readCoordinate(base[2], true, false);
    return [x, y, z];
  }

  readBlockPos(base: Vec3): Vec3 {
    const start = this.nextStart();
    const incomplete = () => this.syntax('Incomplete (expected 3 coordinates)', start);
    const x = Math.floor(this.readCoordinate(Math.floor(base[0]), false, true));
    if (this.atEnd()) incomplete();
    const y = Math.floor(this.readCoordinate(Math.floor(base[1]), false, true));
    if (this.atEnd()) incomplete();
    const z = Math.floor(this.readCoordinate(Math.floor(base[2]), false, true));
    return [x, y, z];
  }

  /** `x z` block columns (forceload). */
  readColumn(base: Vec3): [number, number] {
    const start = this.nextStart();
    const x = Math.floor(this.readCoordinate(Math.floor(base[0]), false, true));
    if (this.atEnd()) this.syntax('Incomplete (expected 2 coordinates)', start);
    const z = Math.floor(this.readCoordinate(Math.floor(base[2]), false, true));
    return [x, z];
  }

  /** An SNBT compound starting here; parse errors point into the command line. */
  readCompound(): CompoundTag {
    const start = this.nextStart();
    try {
      const { tag, length } = parseSnbtCompound(this.input.slice(start));
      this.cursor = start + length;
      return tag;
    } catch (err) {
      if (err instanceof SnbtSyntaxError) this.syntax(err.message, start + err.cursor);
      throw err;
    }
  }
}
