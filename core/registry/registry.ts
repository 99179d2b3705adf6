import { EventEmitter } from 'node:events';
import { z } from 'zod';
import { McbridgeError } from '../errors.js';
import { CAPABILITY_ORIGINS, canonicalCap, missingCaps, type Caps } from '../link/caps.js';
import type { Vantage } from '../link/discovery.js';
import { policyVerdict, type ToolPolicy } from './policy.js';
import type { CapsSource, ManifestTool, Plugin, ToolAnnotations, ToolAvailability, ToolSpec } from './types.js';

export interface RegisteredTool {
  name: string;
  plugin: string;
  spec: ToolSpec;
  requires: string[];
  annotations: ToolAnnotations;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface CapsView {
  caps: Caps | null;
  source: CapsSource;
  vantage: Vantage;
  instance: string | null;
}

export interface Availability extends ToolAvailability {
  /** Hidden by read-only mode or the allow/deny lists, not by CAPS. */
  disabled?: boolean;
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * Every tool, whoever defined it, as data: the registry answers which tools are
 * available now and why not the others, and produces the manifest every front-end reads.
 */
export class ToolRegistry extends EventEmitter {
  private readonly byName = new Map<string, RegisteredTool>();
  private rev = 1;

  constructor(private policy: ToolPolicy = {}) {
    super();
  }

  get revision(): number {
    return this.rev;
  }

  /** Something that changes the surface happened (tools, CAPS, link state). */
  bump(): void {
    this.rev += 1;
    this.emit('change', this.rev);
  }

  setPolicy(policy: ToolPolicy): void {
    this.policy = policy;
    this.bump();
  }

  getPolicy(): ToolPolicy {
    return this.policy;
  }

  /** Register all tools of a plugin at once, or none of them. */
  registerPlugin(plugin: Plugin): RegisteredTool[] {
    const pluginCaps = plugin.requires?.caps ?? [];
    const prepared: RegisteredTool[] = [];
    for (const spec of plugin.tools ?? []) {
      const existing = this.byName.get(spec.name);
      if (existing) {
        throw new McbridgeError(
          'invalid_params',
          `the tool '${spec.name}' is defined by both plugin '${existing.plugin}' and plugin '${plugin.name}'; rename one of them`,
          { tool: spec.name, owners: [existing.plugin, plugin.name] },
        );
      }
      const requires = [...new Set([...pluginCaps, ...(spec.requires ?? [])].map(canonicalCap))];
      const tool: RegisteredTool = {
        name: spec.name,
        plugin: plugin.name,
        spec,
        requires,
        annotations: { ...spec.annotations },
        inputSchema: jsonSchemaOf(spec.input, 'input'),
      };
      if (spec.output) tool.outputSchema = jsonSchemaOf(spec.output, 'output');
      prepared.push(tool);
    }
    for (const tool of prepared) this.byName.set(tool.name, tool);
    if (prepared.length > 0) this.bump();
    return prepared;
  }

  unregisterPlugin(pluginName: string): void {
    let changed = false;
    for (const [name, tool] of this.byName) {
      if (tool.plugin === pluginName) {
        this.byName.delete(name);
        changed = true;
      }
    }
    if (changed) this.bump();
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  list(): RegisteredTool[] {
    return [...this.byName.values()];
  }

  availability(tool: RegisteredTool, view: CapsView): Availability {
    const hiddenBy = policyVerdict(this.policy, tool.name, tool.annotations);
    if (hiddenBy) return { name: tool.name, available: false, disabled: true, reason: hiddenBy };
    const missing = missingCaps(view.caps, tool.requires);
    const dependency = tool.requires.map((r) => CAPABILITY_ORIGINS[r]?.issue).find(Boolean);
    if (missing.length === 0) return dependency ? { name: tool.name, available: true, dependency } : { name: tool.name, available: true };
    const result: Availability = { name: tool.name, available: false, missing, reason: missingReason(missing, view) };
    if (dependency) result.dependency = dependency;
    return result;
  }

  /** The refusal for a tool the caller may not use now; null when it may. */
  refusal(tool: RegisteredTool, view: CapsView): McbridgeError | null {
    const a = this.availability(tool, view);
    if (a.available) return null;
    if (a.disabled) return new McbridgeError('tool_disabled', `tool '${tool.name}' is disabled: ${a.reason}`, { tool: tool.name });
    return new McbridgeError('unsupported_capability', unsupportedMessage(tool.name, a.missing ?? [], view), {
      tool: tool.name,
      missing: a.missing,
      vantage: view.vantage,
      instance: view.instance,
      ...(a.dependency ? { dependency: a.dependency } : {}),
    });
  }

  manifestTools(view: CapsView): ManifestTool[] {
    return this.list().map((tool) => {
      const a = this.availability(tool, view);
      const entry: ManifestTool = {
        name: tool.name,
        description: tool.spec.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
        requires: tool.requires,
        plugin: tool.plugin,
        available: a.available,
      };
      if (tool.outputSchema) entry.outputSchema = tool.outputSchema;
      if (a.missing) entry.missing = a.missing;
      if (a.reason) entry.reason = a.reason;
      return entry;
    });
  }
}

function vantageLabel(view: CapsView): string {
  const instance = view.instance ?? view.vantage;
  return `${instance}-vantage`;
}

function missingReason(missing: string[], view: CapsView): string {
  const list = missing.map((m) => `'${m}'`).join(', ');
  if (view.source === 'default') {
    return `the default ${view.vantage}-vantage surface (no mod has connected yet) does not include ${list}`;
  }
  return `the connected ${vantageLabel(view)} mod does not advertise ${list}`;
}

export function unsupportedMessage(tool: string, missing: string[], view: CapsView): string {
  const origin = missing.map((m) => CAPABILITY_ORIGINS[m]).find(Boolean);
  const reason = missingReason(missing, view);
  if (origin) {
    return `toolkit operation '${tool}' is not available: requires ${origin.issue} (${origin.label}); ${reason}. ` +
      'The toolkit has no fallback for a missing mod capability, so nothing was sent to the game.';
  }
  const other = view.vantage === 'server' ? 'use --vantage client only for an explicit client endpoint' : 'connect a server-vantage mod for server tools';
  return `toolkit operation '${tool}' is not available: ${reason}, so nothing was sent to the game. ` +
    `Run \`mcbridge tools\` for the supported surface; ${other}.`;
}
