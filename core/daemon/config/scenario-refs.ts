/**
 * `${...}` references in a scenario's step arguments: `${x}` reads the input, `${steps.2.result.tick}`
 * or `${steps.spawn.result.output}` an earlier step's result. A string that is one reference and
 * nothing else takes the value itself (a number stays a number); a reference inside longer text is
 * written into it (strings as they are, anything else as JSON). `$${` is a literal `${`.
 */
import { pathSegments, readPath, VALUE_PATH } from '../../kit/condition.js';

export const LIMITS = {
  /** Characters of one string in a step (a command, a reference). */
  string: 4096,
  /** Nesting of a scenario, its steps' arguments included. */
  depth: 20,
  /** Values (strings, numbers, keys...) in one scenario. */
  nodes: 20_000,
  /** References in one string. */
  refsPerString: 32,
  /** Segments of one reference path (`steps.0.result.a.b` is 5). */
  refSegments: 16,
  /** Characters of a string after its references are written in. */
  resolved: 65_536,
} as const;

export type Part = string | { ref: string };

/** A template's parts, or a message saying what is wrong with it. */
export function parseTemplate(text: string): Part[] | string {
  const parts: Part[] = [];
  let literal = '';
  let refs = 0;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literal += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      const end = text.indexOf('}', i + 2);
      if (end < 0) return `'\${' at ${i} is not closed with '}' (write $\${ for a literal \${)`;
      const ref = text.slice(i + 2, end).trim();
      if (!VALUE_PATH.test(ref)) return `\${${ref.slice(0, 80)}} is not a reference: write \${name} for an input, \${steps.N.result...} for a step's result`;
      if (pathSegments(ref).length > LIMITS.refSegments) return `\${${ref.slice(0, 80)}} is more than ${LIMITS.refSegments} segments deep`;
      if (literal) parts.push(literal);
      literal = '';
      parts.push({ ref });
      if (++refs > LIMITS.refsPerString) return `more than ${LIMITS.refsPerString} references in one string`;
      i = end + 1;
    } else {
      literal += text[i];
      i += 1;
    }
  }
  if (literal || parts.length === 0) parts.push(literal);
  return parts;
}

/** Every string of a JSON value with the key path that leads to it. */
export function eachString(value: unknown, visit: (text: string, at: PropertyKey[]) => void, at: PropertyKey[] = []): void {
  if (typeof value === 'string') visit(value, at);
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) eachString(v, visit, [...at, i]);
  } else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) eachString(v, visit, [...at, k]);
}

/**
 * What is wrong with a value taken from the config as JSON (too deep, too big, a string too long,
 * not JSON at all), or null. Counted before anything else looks at it: a cycle or a million
 * keys from a .ts config stops here.
 */
export function jsonProblem(value: unknown, budget = { nodes: LIMITS.nodes }, depth = 0): string | null {
  if (--budget.nodes < 0) return `more than ${LIMITS.nodes} values in one scenario`;
  if (depth > LIMITS.depth) return `nested deeper than ${LIMITS.depth} levels`;
  if (typeof value === 'string') return value.length > LIMITS.string ? `a string of ${value.length} characters (at most ${LIMITS.string})` : null;
  if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return null;
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = jsonProblem(v, budget, depth + 1);
      if (p) return p;
    }
    return null;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      if (k.length > LIMITS.string) return `a key of ${k.length} characters`;
      const p = jsonProblem(v, budget, depth + 1);
      if (p) return p;
    }
    return null;
  }
  return `${typeof value === 'number' ? String(value) : typeof value} is not JSON data (strings, numbers, booleans, null, lists, objects)`;
}

/** A reference that does not resolve at run time (a result without that field). */
export class UnresolvedReference extends Error {
  constructor(
    readonly ref: string,
    message: string,
  ) {
    super(message);
  }
}

function embed(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

function lookup(ref: string, scope: Record<string, unknown>): unknown {
  const found = readPath(scope, ref);
  if (!found.present) throw new UnresolvedReference(ref, `\${${ref}} has no value (the input or result has no such field)`);
  return found.value;
}

/** A step's value with its references filled in from `scope` (the input, and `steps`). */
export function resolve(value: unknown, scope: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const parts = parseTemplate(value);
    if (typeof parts === 'string') return value; // refused at load; never reached
    if (parts.length === 1 && typeof parts[0] === 'object') return lookup(parts[0].ref, scope);
    let out = '';
    for (const part of parts) {
      out += typeof part === 'string' ? part : embed(lookup(part.ref, scope));
      if (out.length > LIMITS.resolved) throw new UnresolvedReference(typeof part === 'string' ? '' : part.ref, `the text grows past ${LIMITS.resolved} characters once references are written in`);
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, scope));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, scope)]));
  return value;
}
