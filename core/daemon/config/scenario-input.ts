/**
 * A scenario's `input`: a small, bounded subset of JSON Schema turned into a zod object schema, so
 * the registry validates calls and shows the manifest's inputSchema as for any tool. A keyword
 * outside the subset is refused by name: ignoring it would accept inputs the author meant to refuse.
 */
import { z } from 'zod';
import type { AnyObjectSchema } from '../../host/plugin-api.js';

/** Property names a `${...}` reference can spell (core/kit/condition.ts VALUE_PATH segments). */
export const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** `${steps...}` reads earlier steps; an input of that name could not be referred to. */
export const RESERVED_INPUT = 'steps';

const MAX_DEPTH = 8;
const MAX_PROPERTIES = 64;
const MAX_ENUM = 100;
const MAX_DESCRIPTION = 2000;

const TYPES = ['object', 'string', 'number', 'integer', 'boolean', 'array'] as const;
type JsonType = (typeof TYPES)[number];
const COMMON = ['type', 'description', 'default', 'enum'];
const KEYWORDS: Record<JsonType, readonly string[]> = {
  object: ['type', 'description', 'default', 'properties', 'required', 'additionalProperties'],
  string: [...COMMON, 'minLength', 'maxLength'],
  number: [...COMMON, 'minimum', 'maximum'],
  integer: [...COMMON, 'minimum', 'maximum'],
  boolean: COMMON,
  array: ['type', 'description', 'default', 'items', 'minItems', 'maxItems'],
};
const BOUNDS = ['minLength', 'maxLength', 'minimum', 'maximum'];

/** Where in the schema (`properties.x.minimum`) and what is wrong. */
export class InputSchemaError extends Error {
  constructor(
    readonly at: string,
    message: string,
  ) {
    super(message);
  }
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (at: string, key: string) => (at ? `${at}.${key}` : key);

function bound(schema: Record<string, unknown>, key: string, at: string, integer: boolean): number | undefined {
  const v = schema[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && (!Number.isInteger(v) || v < 0))) {
    throw new InputSchemaError(join(at, key), `${key} must be a ${integer ? 'whole number >= 0' : 'finite number'}`);
  }
  return v;
}

function enumOf(schema: Record<string, unknown>, type: JsonType, at: string): z.ZodType | undefined {
  const values = schema.enum;
  if (values === undefined) return undefined;
  if (!Array.isArray(values) || values.length === 0 || values.length > MAX_ENUM) {
    throw new InputSchemaError(join(at, 'enum'), `enum must be a list of 1 to ${MAX_ENUM} values`);
  }
  const clash = BOUNDS.find((k) => schema[k] !== undefined);
  if (clash) throw new InputSchemaError(join(at, clash), `${clash} cannot be combined with enum: list only the allowed values`);
  const fits = (v: unknown) => (type === 'integer' ? Number.isInteger(v) : type === 'number' ? typeof v === 'number' : typeof v === type);
  values.forEach((v, i) => {
    if (!fits(v)) throw new InputSchemaError(`${join(at, 'enum')}[${i}]`, `${JSON.stringify(v)} is not of type ${type}`);
  });
  return z.literal(values as Array<string | number | boolean>);
}

function objectOf(schema: Record<string, unknown>, at: string, depth: number): z.ZodObject {
  const props = schema.properties ?? {};
  if (!isPlain(props)) throw new InputSchemaError(join(at, 'properties'), 'properties must be an object of property schemas');
  const names = Object.keys(props);
  if (names.length > MAX_PROPERTIES) throw new InputSchemaError(join(at, 'properties'), `at most ${MAX_PROPERTIES} properties per object`);
  const required = schema.required ?? [];
  if (!Array.isArray(required) || required.some((r) => typeof r !== 'string' || !Object.hasOwn(props, r))) {
    throw new InputSchemaError(join(at, 'required'), `required must list names among properties (${names.join(', ') || 'none'})`);
  }
  const shape: Record<string, z.ZodType> = {};
  for (const name of names) {
    const where = join(join(at, 'properties'), name);
    if (!INPUT_NAME.test(name) || name === '__proto__') throw new InputSchemaError(where, `property name '${name.slice(0, 64)}' must match ${INPUT_NAME.source}`);
    const field = toZod(props[name], where, depth + 1);
    shape[name] = required.includes(name) ? field : field.optional();
  }
  const extra = schema.additionalProperties ?? false;
  if (typeof extra !== 'boolean') throw new InputSchemaError(join(at, 'additionalProperties'), 'additionalProperties must be true or false (a schema for them is not supported)');
  return extra ? z.looseObject(shape) : z.strictObject(shape);
}

function toZod(schema: unknown, at: string, depth: number): z.ZodType {
  if (depth > MAX_DEPTH) throw new InputSchemaError(at, `nested deeper than ${MAX_DEPTH} levels`);
  if (!isPlain(schema)) throw new InputSchemaError(at, 'a schema must be an object, e.g. {"type": "string"}');
  const type = schema.type;
  if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) {
    throw new InputSchemaError(join(at, 'type'), `type must be one of ${TYPES.join(', ')} (one type, not a list)`);
  }
  const t = type as JsonType;
  const unknown = Object.keys(schema).find((k) => !KEYWORDS[t].includes(k));
  if (unknown !== undefined) {
    throw new InputSchemaError(join(at, unknown.slice(0, 64)), `the keyword '${unknown.slice(0, 64)}' is not supported for type ${t} (supported: ${KEYWORDS[t].join(', ')})`);
  }
  let out: z.ZodType = enumOf(schema, t, at) ?? base(schema, t, at, depth);
  if (schema.description !== undefined) {
    if (typeof schema.description !== 'string' || schema.description.length > MAX_DESCRIPTION) {
      throw new InputSchemaError(join(at, 'description'), `description must be a string of at most ${MAX_DESCRIPTION} characters`);
    }
    out = out.describe(schema.description);
  }
  if (schema.default !== undefined) {
    const fits = out.safeParse(schema.default);
    if (!fits.success) throw new InputSchemaError(join(at, 'default'), `the default does not fit the schema: ${fits.error.issues[0]?.message}`);
    out = out.default(fits.data as never);
  }
  return out;
}

function base(schema: Record<string, unknown>, t: JsonType, at: string, depth: number): z.ZodType {
  switch (t) {
    case 'object':
      return objectOf(schema, at, depth);
    case 'string': {
      let s = z.string();
      const [min, max] = [bound(schema, 'minLength', at, true), bound(schema, 'maxLength', at, true)];
      if (min !== undefined) s = s.min(min);
      if (max !== undefined) s = s.max(max);
      return s;
    }
    case 'number':
    case 'integer': {
      let n = t === 'integer' ? z.number().int() : z.number();
      const [min, max] = [bound(schema, 'minimum', at, false), bound(schema, 'maximum', at, false)];
      if (min !== undefined) n = n.min(min);
      if (max !== undefined) n = n.max(max);
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'array': {
      if (schema.items === undefined) throw new InputSchemaError(join(at, 'items'), 'an array needs items: the schema of its elements');
      let a = z.array(toZod(schema.items, join(at, 'items'), depth + 1));
      const [min, max] = [bound(schema, 'minItems', at, true), bound(schema, 'maxItems', at, true)];
      if (min !== undefined) a = a.min(min);
      if (max !== undefined) a = a.max(max);
      return a;
    }
  }
}

/** The zod object schema of a scenario's `input` (absent: no arguments). Throws InputSchemaError. */
export function inputSchema(schema: unknown): AnyObjectSchema {
  if (schema === undefined) return z.strictObject({});
  if (!isPlain(schema) || schema.type !== 'object') throw new InputSchemaError('type', 'input must be a JSON Schema of type object, e.g. {"type": "object", "properties": {...}}');
  if (isPlain(schema.properties) && Object.hasOwn(schema.properties, RESERVED_INPUT)) {
    throw new InputSchemaError(`properties.${RESERVED_INPUT}`, `'${RESERVED_INPUT}' is reserved: \${steps...} refers to earlier steps`);
  }
  if (schema.default !== undefined) throw new InputSchemaError('default', 'input itself takes no default: give each property its own');
  return toZod(schema, '', 0) as AnyObjectSchema;
}
