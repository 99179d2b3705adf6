import { EventEmitter } from 'node:events';
import { z } from 'zod';
import { McbridgeError } from '../errors.js';
import { CAPABILITY_ORIGINS, canonicalCap, missingCaps, type Caps } from '../link/caps.js';
import type { Vantage } from '../link/discovery.js';
import { deniedCaps, policyVerdict, type ToolPolicy } from './policy.js';
import { PROTOCOL_VERBS, splitVerb } from '../link/verbs.js';
import { VerbTable } from './verb-table.js';
import type { CapsSource, ManifestTool, Plugin, ToolAnnotations, ToolAvailability, ToolScope, ToolSpec } from '../plugin-api.js';

export interface RegisteredTool {
  name: string;
  plugin: string;
  spec: ToolSpec;
  requires: string[];
  annotations: ToolAnnotations;
  /** Tools it calls; it is hidden while any of them is. */
  uses: string[];
  only?: ToolScope;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface CapsView {
  caps: Caps | null;
  source: CapsSource;
  vantage: Vantage;
  instance: string | null;
  /** The game version the mod's hello named; null until a mod has said. */
  minecraft?: string | null;
  /** The link's transport; legacy when not said. */
  transport?: 'legacy' | 'control';
  /** What the link's credential may do (control protocol 1: read, write); null or absent: everything. */
  permissions?: readonly string[] | null;
}

export interface Availability extends ToolAvailability {
  /** Hidden by read-only mode or the allow/deny lists, not by CAPS. */
  disabled?: boolean;
}

const list = <T>(value: T | T[] | undefined): T[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

/** Why a tool is outside its scope on this mod, or null when it is inside (unknown facts match). */
function scopeVerdict(only: ToolScope | undefined, view: CapsView): string | null {
  if (!only) return null;
  const vantages = list(only.vantage);
  if (vantages && !vantages.includes(view.vantage)) {
    return `only for the ${vantages.join(' or ')} vantage; this daemon runs the ${view.vantage} vantage`;
  }
  const instances = list(only.instance);
  if (instances && view.instance !== null && !instances.includes(view.instance)) {
    return `only for instance ${instances.map((i) => `'${i}'`).join(' or ')}; the connected mod is instance '${view.instance}'`;
  }
  const transports = list(only.transport);
  const transport = view.transport ?? 'legacy';
  if (transports && !transports.includes(transport)) {
    return transport === 'control'
      ? "needs the world's folder on this machine, which the mod's control protocol never exposes (a remote world path is not a local path); it works on a target reached over the legacy link"
      : "exists only in the mod's control protocol; this target reaches its mod over the legacy link (docs/control.md)";
  }
  const versions = list(only.minecraft);
  const game = view.minecraft ?? null;
  if (versions && game !== null && !versions.some((v) => game === v || game.startsWith(`${v}.`))) {
    return `only for Minecraft ${versions.join(' or ')}; the connected game is ${game}`;
  }
  return null;
}

/**
 * A credential without write hides the tools that change the game (those not marked read-only);
 * one without read hides the others. The link refuses the verbs too, before sending.
 */
function permissionVerdict(tool: RegisteredTool, view: CapsView): string | null {
  const granted = view.permissions;
  if (!granted) return null;
  const need = tool.annotations.readOnly === true ? 'read' : 'write';
  if (granted.includes(need)) return null;
  const does = need === 'write' ? 'changes the game' : 'reads the game';
  return `${does}, which needs the ${need} permission, and this target's control credential has ${granted.join('+') || 'none'}: mint one with ${need} (/mcagent control token add <label> read+write)`;
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
  /** The mod verbs the loaded plugins send: the link looks replies up here. */
  readonly verbs = new VerbTable();
  private rev = 1;
  private changes = 0;
  private batching = 0;
  private pending = false;

  /** Capabilities the policy denies with `cap:`, kept beside it (every mod request checks them). */
  private denied: Set<string>;

  constructor(private policy: ToolPolicy = {}) {
    super();
    this.denied = deniedCaps(policy);
  }

  get revision(): number {
    return this.rev;
  }

  /**
   * Counts every change as it happens, also inside a batch (whose revision comes at its end):
   * what is remembered about the surface is stale the moment this moves.
   */
  get generation(): number {
    return this.changes;
  }

  /** Something that changes the surface happened (tools, CAPS, link state). */
  bump(): void {
    this.changes += 1;
    if (this.batching > 0) {
      this.pending = true;
      return;
    }
    this.rev += 1;
    this.emit('change', this.rev);
  }

  /** Run changes (plugins in and out, a new policy) as one surface revision. */
  async batch<T>(change: () => Promise<T> | T): Promise<T> {
    this.batching += 1;
    try {
      return await change();
    } finally {
      this.batching -= 1;
      if (this.batching === 0 && this.pending) {
        this.pending = false;
        this.bump();
      }
    }
  }

  setPolicy(policy: ToolPolicy): void {
    this.policy = policy;
    this.denied = deniedCaps(policy);
    this.bump();
  }

  /**
   * The refusal for a mod verb line under the policy, or null. A `cap:` deny removes the tools
   * that declare the capability; this closes the rest: a verb that needs a denied capability is
   * never sent, whoever sends it, and while any is denied an undeclared verb is not either
   * (nothing says what it needs).
   */
  verbRefusal(line: string): McbridgeError | null {
    if (this.denied.size === 0) return null;
    const { verb, arg } = splitVerb(line);
    if (PROTOCOL_VERBS[verb]) return null;
    const spec = this.verbs.lookup(verb, arg);
    const hit = spec ? spec.requires?.map(canonicalCap).find((cap) => this.denied.has(cap)) : undefined;
    if (spec && hit === undefined) return null;
    const why = spec
      ? `it needs the '${hit}' capability, which the tool policy denies (cap:${hit})`
      : `no loaded plugin declares the verb ${verb}, and while the tool policy denies a capability (${[...this.denied].map((c) => `cap:${c}`).join(', ')}) only declared verbs may be sent`;
    return new McbridgeError('tool_disabled', `the mod request '${verb}' was not sent: ${why}`, { verb });
  }

  getPolicy(): ToolPolicy {
    return this.policy;
  }

  /** Register all tools and verbs of a plugin at once, or none of them. */
  registerPlugin(plugin: Plugin): RegisteredTool[] {
    const pluginCaps = plugin.requires?.caps ?? [];
    const prepared: RegisteredTool[] = [];
    for (const spec of plugin.tools ?? []) {
      const existing = this.byName.get(spec.name);
      if (existing) {
        throw new McbridgeError('invalid_params', `the tool '${spec.name}' is defined by both plugin '${existing.plugin}' and plugin '${plugin.name}'; rename one of them`, {
          tool: spec.name,
          owners: [existing.plugin, plugin.name],
        });
      }
      const requires = [...new Set([...pluginCaps, ...(spec.requires ?? [])].map(canonicalCap))];
      const tool: RegisteredTool = {
        name: spec.name,
        plugin: plugin.name,
        spec,
        requires,
        annotations: { ...spec.annotations },
        uses: [...new Set(spec.uses ?? [])],
        inputSchema: jsonSchemaOf(spec.input, 'input'),
      };
      if (spec.only) tool.only = spec.only;
      if (spec.output) tool.outputSchema = jsonSchemaOf(spec.output, 'output');
      prepared.push(tool);
    }
    this.verbs.add(plugin);
    for (const tool of prepared) this.byName.set(tool.name, tool);
    if (prepared.length > 0) this.bump();
    return prepared;
  }

  unregisterPlugin(pluginName: string): void {
    this.verbs.remove(pluginName);
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

  availability(tool: RegisteredTool, view: CapsView, visiting: ReadonlySet<string> = new Set()): Availability {
    const hiddenBy = policyVerdict(this.policy, tool);
    if (hiddenBy) {
      const by = this.policy.readOnly && tool.annotations.readOnly !== true ? 'read-only' : 'policy';
      return { name: tool.name, available: false, disabled: true, reason: hiddenBy, hiddenBy: by };
    }
    const outOfScope = scopeVerdict(tool.only, view) ?? permissionVerdict(tool, view);
    if (outOfScope) return { name: tool.name, available: false, reason: outOfScope, hiddenBy: 'scope' };
    const missing = missingCaps(view.caps, tool.requires);
    const dependency = tool.requires.map((r) => CAPABILITY_ORIGINS[r]?.issue).find(Boolean);
    if (missing.length > 0) {
      const result: Availability = { name: tool.name, available: false, missing, reason: missingReason(missing, view), hiddenBy: 'caps' };
      if (dependency) result.dependency = dependency;
      return result;
    }
    const usedBy = tool.uses.length === 0 ? null : this.usesVerdict(tool, view, new Set([...visiting, tool.name]));
    if (usedBy) return { ...usedBy, name: tool.name };
    return dependency ? { name: tool.name, available: true, dependency } : { name: tool.name, available: true };
  }

  /** A tool that calls a hidden tool is hidden too, and says which and why. */
  private usesVerdict(tool: RegisteredTool, view: CapsView, visiting: ReadonlySet<string>): Availability | null {
    for (const name of tool.uses) {
      if (visiting.has(name)) continue; // a cycle adds nothing new
      const used = this.byName.get(name);
      if (!used) {
        return { name: tool.name, available: false, disabled: true, reason: `calls the tool '${name}', which no loaded plugin defines`, hiddenBy: 'dependency' };
      }
      const a = this.availability(used, view, visiting);
      if (!a.available) {
        const result: Availability = { name: tool.name, available: false, reason: `calls the tool '${name}', which is hidden: ${a.reason}`, hiddenBy: 'dependency' };
        if (a.disabled) result.disabled = true;
        if (a.missing) result.missing = a.missing;
        return result;
      }
    }
    return null;
  }

  /** The refusal for a tool the caller may not use now; null when it may. */
  refusal(tool: RegisteredTool, view: CapsView): McbridgeError | null {
    const a = this.availability(tool, view);
    if (a.available) return null;
    if (a.disabled) return new McbridgeError('tool_disabled', `tool '${tool.name}' is disabled: ${a.reason}`, { tool: tool.name });
    if (a.hiddenBy === 'scope' && scopeVerdict(tool.only, view) === null) {
      // Out of the credential's permissions, not of the target's kind: the code docs/control.md names.
      return new McbridgeError('forbidden', `toolkit operation '${tool.name}' is not available: it ${a.reason}, so nothing was sent to the game.`, {
        tool: tool.name,
        permissions: [...(view.permissions ?? [])],
      });
    }
    if (a.hiddenBy === 'scope' || a.hiddenBy === 'dependency') {
      return new McbridgeError('unsupported_capability', `toolkit operation '${tool.name}' is not available: ${a.reason}, so nothing was sent to the game.`, {
        tool: tool.name,
        ...(a.missing ? { missing: a.missing } : {}),
        vantage: view.vantage,
        instance: view.instance,
      });
    }
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
      if (tool.uses.length > 0) entry.uses = tool.uses;
      if (tool.only) entry.only = tool.only;
      if (tool.outputSchema) entry.outputSchema = tool.outputSchema;
      if (tool.spec.mcpDefaults) entry.mcpDefaults = tool.spec.mcpDefaults;
      if (a.missing) entry.missing = a.missing;
      if (a.reason) entry.reason = a.reason;
      if (a.hiddenBy) entry.hiddenBy = a.hiddenBy;
      const origin = tool.requires.map((r) => CAPABILITY_ORIGINS[r]).find(Boolean);
      if (origin) entry.dependency = { issue: origin.issue, label: origin.label, url: origin.url };
      return entry;
    });
  }
}

function vantageLabel(view: CapsView): string {
  const instance = view.instance ?? view.vantage;
  return `${instance}-vantage`;
}

/** A missing token as the messages name it; an aliased one with the predecessor's name beside it (its clients match it). */
function tokenName(token: string): string {
  const legacy = CAPABILITY_ORIGINS[token]?.legacyToken;
  return legacy ? `'${token}' (or '${legacy}')` : `'${token}'`;
}

function missingReason(missing: string[], view: CapsView): string {
  const list = missing.map(tokenName).join(', ');
  if (view.source === 'default') {
    return `the default ${view.vantage}-vantage surface (no mod has connected yet) does not include ${list}`;
  }
  return `the connected ${vantageLabel(view)} mod does not advertise ${list}`;
}

export function unsupportedMessage(tool: string, missing: string[], view: CapsView): string {
  const origin = missing.map((m) => CAPABILITY_ORIGINS[m]).find(Boolean);
  const reason = missingReason(missing, view);
  if (origin) {
    return (
      `toolkit operation '${tool}' is not available: requires ${origin.issue} (${origin.label}); ${reason}. ` +
      'The toolkit has no fallback for a missing mod capability, so nothing was sent to the game.'
    );
  }
  const other = view.vantage === 'server' ? 'use --vantage client only for an explicit client endpoint' : 'connect a server-vantage mod for server tools';
  return `toolkit operation '${tool}' is not available: ${reason}, so nothing was sent to the game. ` + `Run \`mcbridge tools\` for the supported surface; ${other}.`;
}
