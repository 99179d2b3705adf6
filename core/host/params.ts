/** A tool call's params: older names renamed, then validated (strictly first, then as the predecessor read them). */
import type { z } from 'zod';
import { McbridgeError } from './errors.js';
import { formatIssuePath } from './define.js';
import { lenientParams } from './registry/lenient-params.js';
import type { RegisteredTool } from './registry/registry.js';

/** Rename legacy parameter names to the ones the schema declares. */
export function applyParamAliases(tool: string, args: unknown, aliases: Record<string, string> | undefined): unknown {
  if (!aliases || args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const out: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const [alias, canonical] of Object.entries(aliases)) {
    if (!(alias in out)) continue;
    if (canonical in out) {
      throw new McbridgeError('invalid_params', `invalid params for '${tool}': give '${canonical}' or its older name '${alias}', not both`);
    }
    out[canonical] = out[alias];
    delete out[alias];
  }
  return out;
}

/**
 * A call's params, validated strictly; when that fails and the caller is a local API client, once
 * more as the predecessor read them (null = default, numbers and booleans as text:
 * lenient-params.ts). MCP clients and plugins get exactly the schema they were shown.
 */
export function parseParams(tool: RegisteredTool, args: unknown, lenient: boolean): z.ZodSafeParseSuccess<Record<string, unknown>> {
  if (isEmptyObject(args) && takesNothing(tool)) return { success: true, data: {} };
  const parsed = tool.spec.input.safeParse(args);
  if (parsed.success) return parsed;
  const read = lenient ? lenientParams(args, tool.inputSchema) : null;
  const second = read === null ? parsed : tool.spec.input.safeParse(read);
  if (second.success) return second;
  // Described as read: "2.5" for a whole number is "must be a whole number", not "expected number".
  throw new McbridgeError('invalid_params', `invalid params for '${tool.name}': ${describeZodError(second.error)}`, {
    issues: second.error.issues.map((i) => ({ path: formatIssuePath(i.path), message: i.message })),
  });
}

/** Tools whose schema reads `{}` as `{}` (no defaults): most read-only tools, called without params. */
const nothingIn = new WeakMap<RegisteredTool, boolean>();

/** Whether `{}` passes the tool's schema unchanged; asked once per tool, since the answer never changes. */
function takesNothing(tool: RegisteredTool): boolean {
  let known = nothingIn.get(tool);
  if (known === undefined) {
    const parsed = tool.spec.input.safeParse({});
    known = parsed.success && isEmptyObject(parsed.data);
    nothingIn.set(tool, known);
  }
  return known;
}

function isEmptyObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return Object.getPrototypeOf(value) === Object.prototype;
}

/** Zod's issues, as one sentence that names each field. */
export function describeZodError(error: z.ZodError, subject = 'params'): string {
  return error.issues
    .map((issue) => {
      const path = formatIssuePath(issue.path);
      return `${path ? `'${path}'` : subject}: ${issue.message}`;
    })
    .join('; ');
}
