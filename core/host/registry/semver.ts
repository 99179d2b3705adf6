/**
 * The part of semver ranges a plugin needs to say which mcbridge it works with: `*`, exact and
 * partial versions (`1.2.3`, `1.2`, `1.x`), comparators (`>=1.2.0 <2`), `^`, `~`, hyphen ranges
 * (`1.0 - 1.4`) and `||`. Pre-release tags are ignored (compared by their release numbers).
 */

type Triple = [number, number, number];

interface Partial {
  parts: number[]; // 0 to 3 numbers; wildcards end the list
}

const PARTIAL = /^v?(\d+|[xX*])?(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][0-9A-Za-z.+-]*)?$/;

function parsePartial(text: string): Partial | null {
  const m = PARTIAL.exec(text);
  if (!m) return null;
  const parts: number[] = [];
  for (const piece of [m[1], m[2], m[3]]) {
    if (piece === undefined || /^[xX*]$/.test(piece)) break;
    parts.push(Number(piece));
  }
  return { parts };
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function floor(p: Partial): Triple {
  return [p.parts[0] ?? 0, p.parts[1] ?? 0, p.parts[2] ?? 0];
}

/** The first version above everything the partial names: 1.2 → 1.3.0, 1 → 2.0.0. */
function ceiling(p: Partial): Triple | null {
  const [a, b, c] = p.parts;
  if (a === undefined) return null;
  if (b === undefined) return [a + 1, 0, 0];
  if (c === undefined) return [a, b + 1, 0];
  return [a, b, c + 1];
}

type Test = (v: Triple) => boolean;

function comparator(token: string): Test | null {
  const m = /^(>=|<=|>|<|=|\^|~>?|)\s*(.*)$/.exec(token);
  if (!m) return null;
  const op = m[1];
  const p = parsePartial(m[2]);
  if (!p) return null;
  const low = floor(p);
  const high = ceiling(p);
  switch (op) {
    case '':
    case '=':
      return high === null ? () => true : (v) => compare(v, low) >= 0 && compare(v, high) < 0;
    case '>=':
      return (v) => compare(v, low) >= 0;
    case '>':
      return high === null ? () => false : (v) => compare(v, high) >= 0;
    case '<':
      return (v) => compare(v, low) < 0;
    case '<=':
      return high === null ? () => true : (v) => compare(v, high) < 0;
    case '~':
    case '~>': {
      const top: Triple | null = p.parts.length >= 2 ? [low[0], low[1] + 1, 0] : high;
      return top === null ? () => true : (v) => compare(v, low) >= 0 && compare(v, top) < 0;
    }
    case '^': {
      const [a, b] = p.parts;
      let top: Triple | null;
      if (a === undefined) top = null;
      else if (a > 0 || b === undefined) top = [a + 1, 0, 0];
      else if (b > 0 || p.parts.length < 3) top = [0, b + 1, 0];
      else top = [0, 0, low[2] + 1];
      return top === null ? () => true : (v) => compare(v, low) >= 0 && compare(v, top) < 0;
    }
    default:
      return null;
  }
}

function alternative(text: string): Test | null {
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
  if (hyphen) {
    const from = comparator(`>=${hyphen[1]}`);
    const to = comparator(`<=${hyphen[2]}`);
    return from && to ? (v) => from(v) && to(v) : null;
  }
  // ">= 1.2" is one comparator: glue operators to their version first.
  const tokens = text
    .replace(/(>=|<=|>|<|=|\^|~>?)\s+/g, '$1')
    .split(/\s+/)
    .filter(Boolean);
  const tests = tokens.map(comparator);
  if (tests.some((t) => t === null)) return null;
  return (v) => (tests as Test[]).every((t) => t(v));
}

/** Whether `range` is a range this module understands. */
export function validRange(range: string): boolean {
  return range.split('||').every((alt) => alternative(alt.trim()) !== null);
}

/** Does `version` (e.g. "0.1.0") satisfy `range`? Throws on a range it cannot read. */
export function satisfies(version: string, range: string): boolean {
  const v = parsePartial(version.trim());
  if (!v || v.parts.length === 0) throw new Error(`'${version}' is not a version`);
  const triple = floor(v);
  return range.split('||').some((alt) => {
    const test = alternative(alt.trim());
    if (!test) throw new Error(`'${range}' is not a semver range`);
    return test(triple);
  });
}
