/**
 * Gson-like JSON output. Java keeps ints and doubles apart (`64` vs `64.0`) while JS numbers do
 * not, so reply builders wrap doubles in `dbl()` and floats in `flt()`; a bare JS number is an
 * int (or long). Objects keep insertion order; `undefined` members are left out.
 */
import { javaDoubleString, javaFloatString } from './java-text.js';

export class JavaDouble {
  constructor(readonly value: number) {}
}

export class JavaFloat {
  constructor(readonly value: number) {}
}

export function dbl(value: number): JavaDouble {
  return new JavaDouble(value);
}

export function flt(value: number): JavaFloat {
  return new JavaFloat(value);
}

export function dblArray(values: readonly number[]): JavaDouble[] {
  return values.map(dbl);
}

function quote(text: string): string {
  // JSON.stringify escapes like Gson without HTML escaping; Gson also escapes U+2028/U+2029.
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function plainNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : javaDoubleString(finiteNumber(value));
}

/**
 * NaN and the infinities are not JSON: a line holding one cannot be parsed by any client, which
 * would then wait for a reply that never comes. Refused like Gson refuses them, so the verb
 * answers an `error` reply (`task failed: ...`) instead.
 */
function finiteNumber(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new Error(`java.lang.IllegalArgumentException: ${String(value)} is not a valid double value as per JSON specification`);
}

export function toJavaJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof JavaDouble) return javaDoubleString(finiteNumber(value.value));
  if (value instanceof JavaFloat) return javaFloatString(finiteNumber(value.value));
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return plainNumber(value);
    case 'bigint':
      return value.toString();
    case 'string':
      return quote(value);
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map(toJavaJson).join(',')}]`;
  const members: string[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    if (member === undefined) continue;
    members.push(`${quote(key)}:${toJavaJson(member)}`);
  }
  return `{${members.join(',')}}`;
}
