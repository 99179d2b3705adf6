/**
 * What the predecessor's local API accepted and the schemas do not (docs/compatibility.md):
 * `null` for an optional parameter means "not given", and a number or boolean may arrive as
 * text ("32", "true"). Tried only after strict validation failed, and driven by the tool's own
 * JSON Schema (top-level properties), so the schemas, the manifest and MCP's inputSchema stay
 * exactly what they were: strict and honest. Anything else that is wrong stays wrong.
 */

type JsonSchema = Record<string, unknown>;

const NUMBER_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
const TRUE_TEXT = new Set(['true', '1', 'yes', 'on']);
const FALSE_TEXT = new Set(['false', '0', 'no', 'off']);

/** The JSON types a property schema allows (`type`, or each branch of `anyOf`/`oneOf`). */
function allowedTypes(schema: unknown): Set<string> {
  const out = new Set<string>();
  if (schema === null || typeof schema !== 'object') return out;
  const s = schema as JsonSchema;
  if (typeof s.type === 'string') out.add(s.type);
  if (Array.isArray(s.type)) for (const t of s.type) if (typeof t === 'string') out.add(t);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches)) for (const branch of branches) for (const t of allowedTypes(branch)) out.add(t);
  }
  if (s.const === null || (Array.isArray(s.enum) && s.enum.includes(null))) out.add('null');
  return out;
}

function coerce(value: unknown, types: Set<string>): unknown {
  if (typeof value !== 'string' || types.has('string')) return value;
  if ((types.has('number') || types.has('integer')) && NUMBER_TEXT.test(value)) return Number(value);
  if (types.has('boolean')) {
    const word = value.trim().toLowerCase();
    if (TRUE_TEXT.has(word)) return true;
    if (FALSE_TEXT.has(word)) return false;
  }
  return value;
}

/**
 * The params with the predecessor's spellings read as it read them, or null when nothing
 * applies (no top-level object, or nothing to change).
 */
export function lenientParams(args: unknown, inputSchema: JsonSchema): Record<string, unknown> | null {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  const properties = inputSchema.properties;
  if (properties === null || typeof properties !== 'object') return null;
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required : []);
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    const property = (properties as Record<string, unknown>)[key];
    if (property === undefined) {
      out[key] = value; // unknown keys stay, and strictness refuses them
      continue;
    }
    const types = allowedTypes(property);
    if (value === null && !required.has(key) && !types.has('null')) {
      changed = true; // null: the default
      continue;
    }
    const coerced = coerce(value, types);
    if (coerced !== value) changed = true;
    out[key] = coerced;
  }
  return changed ? out : null;
}
