import { describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import type { Manifest, ManifestTool } from '../../../../core/host/plugin-api.js';
import {
  errorResult,
  mcpAnnotations,
  mcpDescription,
  mcpOutputSchema,
  mcpTool,
  parseErrorResult,
  projectTools,
  registryToolName,
  renderText,
  toolListKey,
  successResult,
} from '../../../../core/frontends/mcp/projection.js';

function manifestTool(name: string, extra: Partial<ManifestTool> = {}): ManifestTool {
  return {
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { x: { type: 'number' } } },
    annotations: {},
    requires: [],
    plugin: 'p',
    available: true,
    ...extra,
  };
}

describe('MCP names', () => {
  it('maps mc_<name> back to the registry name, and nothing else', () => {
    expect(registryToolName('mc_state')).toBe('state');
    expect(registryToolName('mc_')).toBeNull();
    expect(registryToolName('m')).toBeNull();
    expect(registryToolName('state')).toBeNull();
    expect(registryToolName('xmc_state')).toBeNull();
  });

  it('rewrites known tool names in descriptions, in backticks or bare with an underscore', () => {
    const names = new Set(['events', 'command_output', 'state']);
    expect(mcpDescription('See `events`, command_output and `unknown_tool`; state stays.', names)).toBe('See `mc_events`, mc_command_output and `unknown_tool`; state stays.');
    expect(mcpDescription('other_thing and `state`', names)).toBe('other_thing and `mc_state`');
  });
});

describe('MCP annotations', () => {
  it('says read-only only for a tool that declares it, and then no destructive hint', () => {
    expect(mcpAnnotations({ readOnly: true, destructive: true })).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(mcpAnnotations({ readOnly: false, destructive: false })).toEqual({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
  });

  it('leaves out hints the tool did not declare, so the client applies the cautious default', () => {
    // toStrictEqual: a hint present as `undefined` is not left out.
    expect(mcpAnnotations({})).toStrictEqual({ readOnlyHint: false, openWorldHint: false });
    expect(mcpAnnotations({ idempotent: false })).toStrictEqual({ readOnlyHint: false, idempotentHint: false, openWorldHint: false });
    expect(mcpAnnotations({ idempotent: true, openWorld: true })).toEqual({ readOnlyHint: false, idempotentHint: true, openWorldHint: true });
  });
});

describe('MCP tools', () => {
  it('gives a tool without an object input schema an empty object one', () => {
    expect(mcpTool(manifestTool('a', { inputSchema: { type: 'string' } }), new Set()).inputSchema).toEqual({ type: 'object', properties: {} });
    expect(mcpTool(manifestTool('b'), new Set()).inputSchema).toEqual({ type: 'object', properties: { x: { type: 'number' } } });
  });

  it('wraps an answer that is not an object under `result`, keeping its own schema', () => {
    const object = { type: 'object', properties: { n: { type: 'number' } } };
    expect(mcpOutputSchema({ outputSchema: object })).toBe(object);
    expect(mcpOutputSchema({ outputSchema: { type: 'number' } })).toEqual({
      type: 'object',
      properties: { result: { type: 'number', description: "the tool's answer (it declares no object shape)" } },
      required: ['result'],
    });
    expect(mcpOutputSchema({})).toEqual({
      type: 'object',
      properties: { result: { description: "the tool's answer (it declares no object shape)" } },
      required: ['result'],
    });
  });

  it('projects exactly the available tools, with descriptions that name the MCP tools', () => {
    const manifest = {
      tools: [manifestTool('shown', { description: 'Like `hidden_one`.' }), manifestTool('hidden_one', { available: false, reason: 'caps' })],
    } as unknown as Manifest;
    const tools = projectTools(manifest);
    expect(tools.map((t) => t.name)).toEqual(['mc_shown']);
    expect(tools[0]?.description).toBe('Like `mc_hidden_one`.');
  });

  it('keys a tool list by everything a client sees, so list_changed follows any change', () => {
    const one = projectTools({ tools: [manifestTool('a')] } as unknown as Manifest);
    const other = projectTools({ tools: [manifestTool('a', { description: 'Changed.' })] } as unknown as Manifest);
    expect(toolListKey(one)).toBe(toolListKey(projectTools({ tools: [manifestTool('a')] } as unknown as Manifest)));
    expect(toolListKey(one)).not.toBe(toolListKey(other));
  });
});

describe('MCP results', () => {
  const objectTool = { outputSchema: { type: 'object', properties: {} } };

  it('renders any answer as one line of JSON, nothing as null', () => {
    expect(renderText(undefined)).toBe('null');
    expect(renderText({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
  });

  it('puts an object answer in structuredContent as it is, and anything else under `result`', () => {
    expect(successResult({ a: 1 }, objectTool)).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    expect(successResult(7, {})).toEqual({ content: [{ type: 'text', text: '7' }], structuredContent: { result: 7 } });
    expect(successResult(undefined, {})).toEqual({ content: [{ type: 'text', text: 'null' }], structuredContent: { result: null } });
  });

  it('gives no structuredContent when an object tool answers with something that is not a plain object', () => {
    for (const answer of [null, [1, 2], 'text', 3]) {
      expect(successResult(answer, objectTool).structuredContent).toBeUndefined();
    }
  });

  it('carries code, message and details in an error result, and reads them back', () => {
    const result = errorResult(new McbridgeError('timeout', 'too slow', { ms: 5 }));
    expect(result.isError).toBe(true);
    expect(parseErrorResult(result)).toEqual({ code: 'timeout', error: 'too slow', details: { ms: 5 } });
    expect(parseErrorResult(errorResult(new Error('boom')))?.code).toBe('internal');
  });

  it('reads no error from a success, a non-text block, bad JSON or a half-shaped object', () => {
    expect(parseErrorResult({ content: [{ type: 'text', text: '{"code":"x","error":"y"}' }] })).toBeNull();
    expect(parseErrorResult({ isError: true, content: [] })).toBeNull();
    expect(parseErrorResult({ isError: true, content: [{ type: 'image', data: '', mimeType: 'image/png' }] })).toBeNull();
    const notText = { type: 'image', data: '', mimeType: 'image/png', text: '{"code":"x","error":"y"}' };
    expect(parseErrorResult({ isError: true, content: [notText as never] })).toBeNull();
    expect(parseErrorResult({ isError: true, content: [{ type: 'text', text: 'not json' }] })).toBeNull();
    expect(parseErrorResult({ isError: true, content: [{ type: 'text', text: '{"code":"x"}' }] })).toBeNull();
    expect(parseErrorResult({ isError: true, content: [{ type: 'text', text: '{"error":"y"}' }] })).toBeNull();
    expect(parseErrorResult({ isError: true, content: [{ type: 'text', text: '{"code":1,"error":"y"}' }] })).toBeNull();
  });
});
