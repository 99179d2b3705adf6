/**
 * Targets on MCP. A daemon of several game servers lists them in its manifest; then every tool
 * gains an optional `target` argument (the names that serve it now, with what happens without
 * one), and `mc_targets` lists the servers. A daemon of one target shows none of this: its tools
 * are exactly as before (docs/mcp.md, "Several game servers").
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ManifestTarget, TargetsManifest } from '../../api/target-views.js';
import { ALL_TARGETS } from '../../api/targets.js';
import type { Manifest, ManifestTool } from '../../host/plugin-api.js';
import { McbridgeError } from '../../host/errors.js';
import { isObject } from '../../kit/values.js';

/** The registry name `mc_targets` stands for: the local API's `targets` method. */
export const TARGETS_METHOD = 'targets';

/** The targets of a daemon of several, or null for one of one (whose manifest names none). */
export function manifestTargets(manifest: Manifest): ManifestTarget[] | null {
  const targets = (manifest as Partial<TargetsManifest>).targets;
  return Array.isArray(targets) && targets.length > 1 ? targets : null;
}

/**
 * What a call without `target` does, in words: `pinned` is this MCP server's own choice
 * (`mcbridge mcp --target`), which wins over the daemon's default.
 */
function withoutTarget(manifest: Manifest, serving: readonly string[], pinned: string | undefined): string {
  const chosen = pinned ?? (manifest as Partial<TargetsManifest>).defaultTarget ?? null;
  if (chosen === null) return 'Give it: this daemon has no default target, so a call without `target` fails with target_required.';
  const whose = pinned !== undefined ? "this MCP server's --target" : "the daemon's default";
  const serves = serving.includes(chosen) ? '' : `, which cannot serve this tool now: name one of ${serving.join(', ')}`;
  return `Without it the call goes to ${chosen} (${whose})${serves}.`;
}

/** Which of the names have no mod connected now: a call there fails with not_connected (and the list changes when one connects). */
function notConnected(targets: readonly ManifestTarget[], names: readonly string[]): string {
  const down = targets.filter((t) => !t.connected && names.includes(t.name)).map((t) => t.name);
  if (down.length === 0) return '';
  return `Not connected now: ${down.join(', ')}.`;
}

/**
 * `tool`'s input schema with the router's `target` property. A tool with a `target` of its own
 * (restore's, order's and verify's label) gets the router's here: on a daemon of several targets
 * the daemon routes by `target` (core/api/targets.ts, `route`).
 */
export function withTargetArgument(schema: Record<string, unknown>, tool: ManifestTool, manifest: Manifest, pinned: string | undefined): Record<string, unknown> {
  const targets = manifestTargets(manifest);
  if (!targets) return schema;
  const served = (tool as ManifestTool & { targets?: string[] }).targets;
  const names = served && served.length > 0 ? served : targets.map((t) => t.name);
  const ownLabel = isObject(schema.properties) && 'target' in schema.properties;
  const description = [
    `The game server (target) to run on: ${names.join(', ')}${names.length < targets.length ? ` (the targets that serve this tool now, of ${targets.map((t) => t.name).join(', ')})` : ''}.`,
    withoutTarget(manifest, names, pinned),
    notConnected(targets, names),
    ownLabel ? 'On this daemon of several game servers `target` picks the server; it is no label.' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const properties = { ...(isObject(schema.properties) ? schema.properties : {}), target: { type: 'string', enum: names, description } };
  // With no target chosen for it, a call without one can only fail (target_required): say so in the schema.
  const chosen = pinned ?? (manifest as Partial<TargetsManifest>).defaultTarget ?? null;
  if (chosen !== null) return { ...schema, properties };
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => k !== 'target') : [];
  return { ...schema, properties, required: [...required, 'target'] };
}

/**
 * An MCP call names one target, by a name from its schema's enum: the local API's `*` and lists
 * answer per target, in a shape no tool's output schema has (and SDK clients refuse the answer).
 */
export function checkTargetArgument(manifest: Manifest, args: Record<string, unknown>): void {
  const targets = manifestTargets(manifest);
  if (!targets || !('target' in args)) return;
  const names = targets.map((t) => t.name);
  const target = args.target;
  // A name this daemon does not serve is the daemon's to refuse (target_unknown, with the names).
  if (typeof target === 'string' && target !== ALL_TARGETS) return;
  const given = JSON.stringify(target)?.slice(0, 60) ?? String(target);
  throw new McbridgeError('invalid_params', `"target" must be one game server's name on MCP, one of ${names.join(', ')}; got ${given}. To reach several, call the tool once per target`, {
    targets: names,
  });
}

/** `mc_targets`, listed beside the registry's tools on a daemon of several targets. */
export const TARGETS_TOOL: Tool = {
  name: 'mc_targets',
  description:
    'List the game servers (targets) this daemon reaches: for each its name, whether it is the default, whether its mod is connected, vantage, CAPS, world folder and mod address, and which tools it hides and why. Pass a name as `target` to any other tool.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      targets: { type: 'array', items: { type: 'object', additionalProperties: true } },
      default: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      count: { type: 'integer' },
    },
    required: ['targets', 'default', 'count'],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

/** The manifest entry `mc_targets` is called through (front-end.ts finds tools by entry). */
export const TARGETS_ENTRY: Pick<ManifestTool, 'name' | 'outputSchema'> = { name: TARGETS_METHOD, outputSchema: TARGETS_TOOL.outputSchema as Record<string, unknown> };
