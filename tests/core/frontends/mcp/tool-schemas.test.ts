/**
 * Every built-in tool's MCP schemas (input and output, both vantages) against the strictest rules
 * MCP clients apply (issue 27: the Inspector warned 96 times). The rules checked:
 *
 * All schemas (input and output):
 * - valid JSON Schema draft 2020-12 (the MCP spec's default dialect), by ajv's meta-schema;
 * - one `type` per schema, never a list (`["string", "null"]`): the Inspector warns, Gemini's
 *   function declarations take a single type; nullable is `anyOf` with `{type: "null"}`;
 * - no bare `{}`: every schema has a `type` or is an `anyOf` of typed branches (OpenAI's strict
 *   subset and Gemini both need a type); `additionalProperties` is a boolean or a typed schema;
 * - an array schema has `items` (Gemini and OpenAI strict require it).
 *
 * Input schemas, which clients hand to the model as function parameters (the subset both
 * OpenAI's strict function schemas and Gemini's function declarations document):
 * - the root is `type: "object"` with `properties`, never an `anyOf`;
 * - every object is closed (`additionalProperties: false`), as OpenAI's strict mode requires,
 *   except where a parameter takes any JSON value (wait_for's `equals`, `not_equals`, `contains`:
 *   a STATE value may be an object): there an open `{type: "object", additionalProperties: true}`
 *   is one branch of the value's `anyOf`, and the test lists exactly where;
 * - none of the keywords outside that subset: `$ref`/`$defs`, `oneOf`, `allOf`, `not`,
 *   `if`/`then`/`else`, `patternProperties`, `propertyNames`, `dependentSchemas`,
 *   `unevaluatedProperties`, `prefixItems`, `contains`.
 * Not checked: OpenAI strict's "every property required" (optional parameters are the point of
 * most tools; clients that use strict mode rewrite optional ones as nullable themselves).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { defaultSurface } from '../../../../core/daemon/default-surface.js';
import { mcpTool } from '../../../../core/frontends/mcp/projection.js';
import { portableSchema } from '../../../../core/frontends/mcp/portable-schema.js';

type Schema = Record<string, unknown>;

const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'unevaluatedProperties', 'if', 'then', 'else'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const NOT_IN_FUNCTION_SUBSET = [
  '$ref',
  '$defs',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'dependentSchemas',
  'unevaluatedProperties',
  'prefixItems',
  'contains',
];

/** Every subschema with its path. */
function* walk(schema: Schema, path: string): Generator<[Schema, string]> {
  yield [schema, path];
  for (const key of SUBSCHEMA) {
    const sub = schema[key];
    if (typeof sub === 'object' && sub !== null) yield* walk(sub as Schema, `${path}.${key}`);
  }
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(schema[key])) for (const [i, sub] of (schema[key] as Schema[]).entries()) yield* walk(sub, `${path}.${key}[${i}]`);
  }
  for (const key of SUBSCHEMA_MAPS) {
    for (const [name, sub] of Object.entries((schema[key] as Record<string, Schema> | undefined) ?? {})) yield* walk(sub, `${path}.${key}.${name}`);
  }
}

/** The problems of one schema under the rules above; `input` adds the function-parameter subset. */
function schemaProblems(root: Schema, path: string, input: boolean): string[] {
  const problems: string[] = [];
  if (input && (root.type !== 'object' || typeof root.properties !== 'object')) problems.push(`${path}: the root is not an object with properties`);
  for (const [schema, at] of walk(root, path)) {
    if (Array.isArray(schema.type)) problems.push(`${at}: a type list ${JSON.stringify(schema.type)}`);
    if (schema.type === undefined && !Array.isArray(schema.anyOf)) problems.push(`${at}: no type and no anyOf`);
    if (typeof schema.additionalProperties === 'object' && (schema.additionalProperties as Schema).type === undefined && !Array.isArray((schema.additionalProperties as Schema).anyOf))
      problems.push(`${at}: untyped additionalProperties`);
    if (schema.type === 'array' && schema.items === undefined) problems.push(`${at}: an array without items`);
    if (!input) continue;
    if (schema.type === 'object' && schema.additionalProperties !== false) {
      const freeForm = schema.additionalProperties === true && schema.properties === undefined;
      problems.push(freeForm ? `${at}: a free-form object` : `${at}: an open object (additionalProperties is not false)`);
    }
    for (const key of NOT_IN_FUNCTION_SUBSET) if (key in schema) problems.push(`${at}: uses ${key}`);
  }
  return problems;
}

/** Every built-in tool, from both vantages, as MCP clients are shown it. */
function allTools() {
  const tools = new Map<string, ReturnType<typeof mcpTool>>();
  for (const vantage of ['server', 'client'] as const) {
    const { manifest } = defaultSurface(vantage);
    const names = new Set(manifest.tools.map((t) => t.name));
    for (const tool of manifest.tools) tools.set(tool.name, mcpTool(tool, names));
  }
  return [...tools.values()];
}

describe('the MCP tool schemas of every built-in tool', () => {
  const tools = allTools();
  const ajv = new Ajv2020({ strict: false, validateFormats: false });

  it('cover the whole built-in surface', () => {
    expect(tools.length).toBeGreaterThanOrEqual(28);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['mc_status', 'mc_restore', 'mc_wait_for', 'mc_chat', 'mc_webhook_status']));
    expect(ListToolsResultSchema.safeParse({ tools }).success).toBe(true);
  });

  it('are valid draft 2020-12 schemas that compile', () => {
    for (const tool of tools) {
      for (const [which, schema] of [
        ['input', tool.inputSchema],
        ['output', tool.outputSchema],
      ] as const) {
        expect(ajv.validateSchema(schema as Schema), `${tool.name} ${which}: ${ajv.errorsText()}`).toBe(true);
        expect(() => ajv.compile(schema as Schema), `${tool.name} ${which}`).not.toThrow();
      }
    }
  });

  it('follow the portable rules: no type lists, no bare {}, arrays with items; inputs in the function-parameter subset', () => {
    const problems = tools.flatMap((tool) => [...schemaProblems(tool.inputSchema as Schema, `${tool.name}.input`, true), ...schemaProblems(tool.outputSchema as Schema, `${tool.name}.output`, false)]);
    const anyValue = (name: string) => [`${name}.anyOf[3]`, `${name}.anyOf[4].items.anyOf[3]`];
    const freeForm = ['equals', 'not_equals', 'contains'].flatMap((op) => anyValue(`mc_wait_for.input.properties.match.properties.state.properties.${op}`)).map((at) => `${at}: a free-form object`);
    expect(problems).toEqual(freeForm);
  });
});

describe('portableSchema', () => {
  it('turns a type list into anyOf (an enum to its branch) and {} into a typed JSON value or additionalProperties: true', () => {
    expect(portableSchema({ type: ['string', 'null'], enum: ['a', null], description: 'd' })).toEqual({ description: 'd', anyOf: [{ type: 'string', enum: ['a'] }, { type: 'null' }] });
    expect(portableSchema({ type: 'object', additionalProperties: {} })).toEqual({ type: 'object', additionalProperties: true });
    const value = portableSchema({ type: 'object', properties: { v: { description: 'any' } } }) as { properties: { v: Schema } };
    expect(value.properties.v.description).toBe('any');
    expect((value.properties.v.anyOf as Schema[]).map((b) => b.type)).toEqual(['string', 'number', 'boolean', 'object', 'array', 'null']);
  });

  it('keeps what values are accepted: the same values validate before and after', () => {
    const ajv = new Ajv2020({ strict: false });
    const before = { type: 'object', properties: { a: { type: ['number', 'null'], minimum: 0 }, b: {}, c: { type: 'object', additionalProperties: {} } } };
    const after = portableSchema(before);
    for (const value of [{ a: 1 }, { a: null }, { a: -1 }, { a: 'x' }, { b: [1, { x: 2 }] }, { b: null }, { c: { any: [1] } }, { c: 3 }]) {
      expect(ajv.validate(after, value), JSON.stringify(value)).toBe(ajv.validate(before, value));
    }
  });
});
