/**
 * What an option of the table (options.ts) accepts, declared as data, and its check in plain code.
 * Data rather than a zod schema so that reading the table (every CLI command does, for its flags)
 * loads no zod: a client command like `mcbridge call` must start about as fast as node itself
 * (docs/decisions.md, "Client commands load no zod"). The config loader gets the same rules as
 * zod schemas from option-schema.ts; a test keeps the two in agreement, messages included.
 */

export type ValueSpec =
  /** A whole number in [min, max]. */
  | { type: 'integer'; min: number; max?: number; expected: string }
  /** Any finite number in [min, max]. */
  | { type: 'number'; min: number; max: number; expected: string }
  /** A string of at least `min` characters (1 when not given). */
  | { type: 'text'; min?: number; expected: string }
  | { type: 'enum'; values: readonly string[]; expected: string }
  | { type: 'boolean' }
  /** Tool names, globs or selectors: non-empty strings, trimmed. */
  | { type: 'globs' };

/** The TypeScript type of a value the spec accepts. */
export type ValueOf<V> = V extends { type: 'integer' | 'number' }
  ? number
  : V extends { type: 'text' }
    ? string
    : V extends { type: 'enum'; values: readonly (infer E)[] }
      ? E
      : V extends { type: 'boolean' }
        ? boolean
        : V extends { type: 'globs' }
          ? string[]
          : never;

export type Checked = { ok: true; value: unknown } | { ok: false; message: string };

export const GLOB_MESSAGE = 'must be a tool name or glob, e.g. "state" or "sky_*"';

/** zod's name for what it received, for the same "Invalid input" message zod gives. */
function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

function wrongType(expected: string, value: unknown): Checked {
  return { ok: false, message: `Invalid input: expected ${expected}, received ${received(value)}` };
}

/** A value of the spec's type, within its bounds: the value (trimmed globs), or the first refusal. */
export function checkValue(spec: ValueSpec, value: unknown): Checked {
  switch (spec.type) {
    case 'integer':
    case 'number': {
      if (typeof value !== 'number') return wrongType('number', value);
      const whole = spec.type === 'number' || Number.isInteger(value);
      const fits = Number.isFinite(value) && value >= spec.min && value <= (spec.max ?? Number.MAX_SAFE_INTEGER);
      return whole && fits ? { ok: true, value } : { ok: false, message: `expected ${spec.expected}` };
    }
    case 'text':
      if (typeof value !== 'string') return wrongType('string', value);
      return value.length >= (spec.min ?? 1) ? { ok: true, value } : { ok: false, message: `expected ${spec.expected}` };
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value) ? { ok: true, value } : { ok: false, message: `expected ${spec.expected}` };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : wrongType('boolean', value);
    case 'globs': {
      if (!Array.isArray(value)) return wrongType('array', value);
      const out: string[] = [];
      for (const item of value) {
        if (typeof item !== 'string') return wrongType('string', item);
        if (item.trim() === '') return { ok: false, message: GLOB_MESSAGE };
        out.push(item.trim());
      }
      return { ok: true, value: out };
    }
  }
}

/** Text from a flag or an environment variable as the spec's type: a number, a comma list, or the text. */
export function fromText(spec: ValueSpec, text: string): unknown {
  if (spec.type === 'integer' || spec.type === 'number') return text.trim() === '' ? NaN : Number(text);
  if (spec.type === 'globs')
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return text;
}
