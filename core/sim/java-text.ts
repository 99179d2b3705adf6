/**
 * The bits of Java text behaviour the mod's wire shows: `String.trim()`, number parsing with
 * Java's exception messages, and `Double`/`Float.toString` number formatting.
 */

/** A request argument the mod could not parse; the wire shows Java's exception `toString()`. */
export class JavaException extends Error {
  constructor(
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
  }

  /** What `Throwable.toString()` prints: `java.lang.NumberFormatException: For input string: "x"`. */
  toJavaString(): string {
    return `${this.javaClass}: ${this.message}`;
  }
}

export function numberFormat(input: string): JavaException {
  return new JavaException('java.lang.NumberFormatException', `For input string: "${input}"`);
}

/** Java's `String.trim()` strips every char <= U+0020, and nothing else (unlike JS trim). */
export function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** `Integer.parseInt`: optional sign, decimal digits, int range. */
export function parseJavaInt(text: string): number {
  if (!/^[-+]?\d+$/.test(text)) throw numberFormat(text);
  const value = Number(text);
  if (value < INT_MIN || value > INT_MAX) throw numberFormat(text);
  return value;
}

const JAVA_DOUBLE = /^[-+]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)[fFdD]?)$/;

/** `Double.parseDouble`: trims, accepts NaN/Infinity and a trailing f/d suffix (no hex floats). */
export function parseJavaDouble(text: string): number {
  const trimmed = javaTrim(text);
  if (trimmed === '') throw new JavaException('java.lang.NumberFormatException', 'empty String');
  if (!JAVA_DOUBLE.test(trimmed)) throw numberFormat(text);
  const body = trimmed.replace(/[fFdD]$/, '');
  if (body.endsWith('NaN')) return Number.NaN;
  return Number(body);
}

/** Splits `x.toExponential()` into sign, significant digits and decimal exponent. */
function decompose(x: number): { negative: boolean; digits: string; exponent: number } {
  const [mantissa, exp] = Math.abs(x).toExponential().split('e');
  return { negative: x < 0, digits: mantissa.replace('.', ''), exponent: Number(exp) };
}

/** Java's layout: plain in [1e-3, 1e7), else `d.dddE<n>`; always a digit after the point. */
function javaLayout(negative: boolean, digits: string, exponent: number): string {
  const sign = negative ? '-' : '';
  if (exponent >= -3 && exponent < 7) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1) || '0';
    return `${sign}${whole}.${fraction}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exponent}`;
}

function special(x: number): string | null {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  return null;
}

/** `Double.toString`: `64.0`, `-0.0`, `1.0E-4`, `-0.0784000015258789`. */
export function javaDoubleString(x: number): string {
  const fixed = special(x);
  if (fixed !== null) return fixed;
  const { negative, digits, exponent } = decompose(x);
  return javaLayout(negative, digits, exponent);
}

/** `Float.toString`: the shortest decimal that reads back as the same 32-bit float. */
export function javaFloatString(x: number): string {
  const f = Math.fround(x);
  const fixed = special(f);
  if (fixed !== null) return fixed;
  let shortest = f;
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = Number(f.toPrecision(precision));
    if (Math.fround(candidate) === f) {
      shortest = candidate;
      break;
    }
  }
  const { negative, digits, exponent } = decompose(shortest);
  return javaLayout(negative, digits, exponent);
}

/** `String.format(Locale.ROOT, "%.<n>f", x)`, as vanilla uses for coordinates and tick rates. */
export function formatFixed(x: number, decimals: number): string {
  return x.toFixed(decimals);
}
