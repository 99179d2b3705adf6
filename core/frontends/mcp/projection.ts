/**
 * The manifest, projected onto MCP: which registry tools a client sees, under which
 * names, with which schemas and hints; and a daemon answer (or refusal) as a tool result.
 * Pure functions, no SDK objects: the v1 → v2 SDK move touches the session, not this.
 */
import type { CallToolResult, Tool, ToolAnnotations as McpToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { McbridgeError, toMcbridgeError } from '../../host/errors.js';
import type { Manifest, ManifestTool, ToolAnnotations } from '../../host/plugin-api.js';
import { isObject } from '../../kit/values.js';
import { portableSchema } from './portable-schema.js';
import { manifestTargets, TARGETS_METHOD, TARGETS_TOOL, withTargetArgument } from './targets.js';

/** Every registry tool appears to MCP clients as mc_<name> (the predecessor's names). */
export const MCP_TOOL_PREFIX = 'mc_';

export function mcpToolName(name: string): string {
  return MCP_TOOL_PREFIX + name;
}

/** The registry name behind an MCP tool name, or null when it is not one of ours. */
export function registryToolName(mcpName: string): string | null {
  return mcpName.startsWith(MCP_TOOL_PREFIX) && mcpName.length > MCP_TOOL_PREFIX.length ? mcpName.slice(MCP_TOOL_PREFIX.length) : null;
}

/**
 * Registry descriptions name other tools by their registry names (`events`, command_output);
 * an MCP client knows them as mc_events, mc_command_output. Rewritten: known tool names in
 * backticks, and bare known names with an underscore (plain words like "state" stay as they are).
 */
export function mcpDescription(description: string, toolNames: ReadonlySet<string>): string {
  return description
    .replace(/`([a-z][a-z0-9_]{0,47})`/g, (whole, name: string) => (toolNames.has(name) ? `\`${mcpToolName(name)}\`` : whole))
    .replace(/(?<![\w`])([a-z][a-z0-9]*_[a-z0-9_]+)(?![\w`])/g, (whole, name: string) => (toolNames.has(name) ? mcpToolName(name) : whole));
}

/**
 * The registry's hints in MCP terms. A hint the plugin did not declare is left out, so
 * the client applies MCP's cautious default (destructive, not idempotent), except
 * `openWorldHint`: registry tools act on the game unless they declare `openWorld`.
 */
export function mcpAnnotations(annotations: ToolAnnotations): McpToolAnnotations {
  const out: McpToolAnnotations = { readOnlyHint: annotations.readOnly === true };
  if (annotations.readOnly !== true && annotations.destructive !== undefined) out.destructiveHint = annotations.destructive;
  if (annotations.idempotent !== undefined) out.idempotentHint = annotations.idempotent;
  out.openWorldHint = annotations.openWorld === true;
  return out;
}

function isObjectSchema(schema: Record<string, unknown> | undefined): schema is Record<string, unknown> & { type: 'object' } {
  return schema !== undefined && schema.type === 'object';
}

/** The input schema with the tool's MCP defaults shown as `default` on their properties. */
function mcpInputSchema(tool: ManifestTool): Record<string, unknown> {
  const schema = isObjectSchema(tool.inputSchema) ? tool.inputSchema : { type: 'object' as const, properties: {} };
  if (!tool.mcpDefaults || !isObject(schema.properties)) return schema;
  const properties: Record<string, unknown> = { ...schema.properties };
  for (const [key, value] of Object.entries(tool.mcpDefaults)) {
    if (isObject(properties[key])) properties[key] = { ...properties[key], default: value };
  }
  return { ...schema, properties };
}

/** The arguments a tool runs with on MCP: the client's, and its MCP defaults for keys it left out. */
export function mcpArguments(tool: Pick<ManifestTool, 'mcpDefaults'>, args: Record<string, unknown>): Record<string, unknown> {
  return tool.mcpDefaults ? { ...tool.mcpDefaults, ...args } : args;
}

/**
 * The MCP tool for one available manifest entry; `inputFor` adds what the front-end adds to
 * every tool's input (the `target` argument on a daemon of several).
 */
export function mcpTool(tool: ManifestTool, toolNames: ReadonlySet<string>, inputFor: (schema: Record<string, unknown>) => Record<string, unknown> = (schema) => schema): Tool {
  const out: Tool = {
    name: mcpToolName(tool.name),
    description: mcpDescription(tool.description, toolNames),
    inputSchema: portableSchema(inputFor(mcpInputSchema(tool))) as Tool['inputSchema'],
    annotations: mcpAnnotations(tool.annotations),
  };
  out.outputSchema = portableSchema(mcpOutputSchema(tool)) as Tool['outputSchema'];
  return out;
}

/**
 * Every tool has an output schema on MCP. MCP's structuredContent is an object, so a tool whose
 * answer is not declared as one (a composite without `output`, a third-party tool, a number)
 * has it under `result`: `{"result": <answer>}`, described by its own schema when it has one.
 */
export function mcpOutputSchema(tool: Pick<ManifestTool, 'outputSchema'>): Record<string, unknown> {
  if (isObjectSchema(tool.outputSchema)) return tool.outputSchema;
  return {
    type: 'object',
    properties: { result: { ...(tool.outputSchema ?? {}), description: "the tool's answer (it declares no object shape)" } },
    required: ['result'],
  };
}

/**
 * Exactly the tools the manifest says are available now: unsupported ones are absent. On a
 * daemon of several targets each takes `target`, and `mc_targets` lists them (targets.ts);
 * `pinned` is this server's own target (`mcbridge mcp --target`).
 */
export function projectTools(manifest: Manifest, pinned?: string): Tool[] {
  const names = new Set(manifest.tools.map((t) => t.name));
  const tools = manifest.tools.filter((t) => t.available).map((t) => mcpTool(t, names, (schema) => withTargetArgument(schema, t, manifest, pinned)));
  return manifestTargets(manifest) && !names.has(TARGETS_METHOD) ? [...tools, TARGETS_TOOL] : tools;
}

/** A stable key of what a client sees; list_changed is sent only when it changes. */
export function toolListKey(tools: readonly Tool[]): string {
  return JSON.stringify(tools);
}

/** One compact line of JSON: what a model reads beside (or instead of) structuredContent. */
export function renderText(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** A successful answer: the JSON text, and the same as structuredContent (under `result` when not an object: mcpOutputSchema). */
export function successResult(result: unknown, tool: Pick<ManifestTool, 'outputSchema'>): CallToolResult {
  const out: CallToolResult = { content: [{ type: 'text', text: renderText(result ?? null) }] };
  if (!isObjectSchema(tool.outputSchema)) out.structuredContent = { result: result ?? null };
  else if (isObject(result)) out.structuredContent = result;
  return out;
}

/**
 * A refusal as a tool result: `isError` with the daemon's machine `code` and its message,
 * in the same shape as the local API's error frame (`code`, `error`, `details`).
 */
export function errorResult(err: unknown): CallToolResult {
  const error = err instanceof McbridgeError ? err : toMcbridgeError(err);
  return { isError: true, content: [{ type: 'text', text: renderText(error.toJSON()) }] };
}

/** The `{code, error, details?}` an error result carries (for tests and harnesses). */
export function parseErrorResult(result: Pick<CallToolResult, 'content' | 'isError'>): { code: string; error: string; details?: Record<string, unknown> } | null {
  if (!result.isError) return null;
  const first = result.content[0];
  if (first?.type !== 'text') return null;
  try {
    const parsed = JSON.parse(first.text) as { code?: unknown; error?: unknown };
    return typeof parsed.code === 'string' && typeof parsed.error === 'string' ? (parsed as { code: string; error: string }) : null;
  } catch {
    return null;
  }
}
