/**
 * Tool schemas in the forms every major MCP client accepts (issue 27). zod 4's JSON Schema is
 * valid draft 2020-12, but stricter consumers (the MCP Inspector, Gemini's function
 * declarations, OpenAI's strict function schemas) reject two of its habits:
 * - `type: ["string", "null"]`: a single `type` per schema; nullable becomes `anyOf` with `{type: "null"}`;
 * - `{}` for "any value" (z.unknown()): a typed alternative of the JSON types, or
 *   `additionalProperties: true` where it stood for "any further property".
 * tests/core/frontends/mcp/tool-schemas.test.ts states the rules and checks every built-in tool.
 */
type Schema = Record<string, unknown>;

/** Keywords that describe the value as a whole; they stay on the outside of an `anyOf`. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
/** Keywords whose value is one subschema, a list of them, or a map of them. */
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'if', 'then', 'else'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** What makes a schema more than "anything": without one of these it accepts every value. */
const CONSTRAINING = ['type', 'anyOf', 'oneOf', 'allOf', 'not', 'enum', 'const', '$ref'];

const SCALARS: Schema[] = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }];
const ANY_OBJECT: Schema = { type: 'object', additionalProperties: true };
/** Any JSON value, spelled with one type per branch (arrays hold scalars or objects). */
const JSON_VALUE: Schema = {
  anyOf: [...SCALARS, ANY_OBJECT, { type: 'array', items: { anyOf: [...SCALARS, ANY_OBJECT] } }, { type: 'null' }],
};

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);
const isBare = (schema: Schema) => !CONSTRAINING.some((key) => key in schema);

function splitAnnotations(schema: Schema): [Schema, Schema] {
  const outer: Schema = {};
  const inner: Schema = {};
  for (const [key, value] of Object.entries(schema)) (ANNOTATIONS.has(key) ? outer : inner)[key] = value;
  return [outer, inner];
}

/** `type: [A, B, "null"]` as an `anyOf` of one type each; an `enum` goes to the branches it fits. */
function splitTypeList(schema: Schema & { type: unknown[] }): Schema {
  const [outer, { type: types, enum: values, ...rest }] = splitAnnotations(schema) as [Schema, Schema & { type: string[]; enum?: unknown[] }];
  const branches = types.map((type): Schema => {
    if (type === 'null') return { type: 'null' };
    const branch: Schema = { ...rest, type };
    if (values) branch.enum = values.filter((v) => v !== null);
    return branch;
  });
  return branches.length === 1 ? { ...outer, ...branches[0] } : { ...outer, anyOf: branches };
}

/** The portable form of a tool's schema (a new object; the manifest's is left as it is). */
export function portableSchema(schema: Schema): Schema {
  return portable(schema, 'value') as Schema;
}

function portable(schema: Schema, position: 'value' | 'additionalProperties'): Schema | boolean {
  if (isBare(schema)) {
    if (position === 'additionalProperties') return true;
    const [outer] = splitAnnotations(schema);
    return { ...outer, ...JSON_VALUE };
  }
  const out: Schema = { ...schema };
  for (const key of ONE) {
    if (isSchema(out[key])) out[key] = portable(out[key], key === 'additionalProperties' ? 'additionalProperties' : 'value');
  }
  for (const key of LIST) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((s) => (isSchema(s) ? portable(s, 'value') : s));
  }
  for (const key of MAP) {
    if (isSchema(out[key])) {
      out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, s]) => [name, isSchema(s) ? portable(s, 'value') : s]));
    }
  }
  return Array.isArray(out.type) ? splitTypeList(out as Schema & { type: unknown[] }) : out;
}
