/**
 * A config applied to a running host: its plugins, composites and policy, swapped in as one
 * surface revision, and swapped again when the file changes. A reload that fails leaves the
 * running set untouched and says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Host } from '../../host/host.js';
import { Targets } from '../../api/targets.js';
import type { Logger } from '../../util/log.js';
import { policyProblems, type ToolPolicy } from '../../host/registry/policy.js';
import type { Plugin } from '../../host/plugin-api.js';
import { COMPOSITES_PLUGIN, compositesPlugin, toolFacts, validateComposites, type ToolFacts } from './composites.js';
import { ConfigError, displayPath, type ConfigProblem } from './errors.js';
import { loadConfig, type LoadedConfig } from './load.js';
import { configTimeoutMs, withinConfigTimeout } from './probe.js';
import { resolvePlugins, type ResolvedPlugin } from './plugins.js';
import type { CompositeSpec, McbridgeConfig } from '../../authoring/config.js';
import { DAEMON_KEYS } from './schema.js';
import { compileScenarios } from './scenarios.js';
import { builtinOptions } from './builtin-options.js';
import { builtinPlugins } from '../builtins.js';

/** The policy in force: flags given on the command line win over the config. */
export function mergePolicy(config: McbridgeConfig, overrides: ToolPolicy = {}): ToolPolicy {
  const policy: ToolPolicy = {};
  const readOnly = overrides.readOnly ?? config.readOnly;
  if (readOnly !== undefined) policy.readOnly = readOnly;
  const allow = overrides.allow ?? config.allow;
  if (allow !== undefined) policy.allow = allow;
  const deny = overrides.deny ?? config.deny;
  if (deny !== undefined) policy.deny = deny;
  return policy;
}

/** Everything a config asks for, resolved and checked against the plugins it joins. */
export interface ConfigPlan {
  loaded: LoadedConfig;
  policy: ToolPolicy;
  plugins: ResolvedPlugin[];
  composites: CompositeSpec[];
  compositesPlugin: Plugin | null;
}

/** Tools and plugin names already loaded by someone else (built-ins, embedding code). */
export interface Neighbours {
  plugins: Map<string, string>; // plugin name → source, for messages
  tools: Map<string, ToolFacts>;
}

export function neighboursOf(plugins: readonly Plugin[], source = 'built-in'): Neighbours {
  return { plugins: new Map(plugins.map((p) => [p.name, source])), tools: toolFacts(plugins) };
}

/**
 * Resolve and check a config: packages found and imported, plugins and their options valid,
 * no plugin or tool name taken twice (errors name both owners), composites derived.
 */
export async function planConfig(loaded: LoadedConfig, neighbours: Neighbours, overrides: ToolPolicy = {}): Promise<ConfigPlan> {
  const { file, dir, config } = loaded;
  const plugins = await resolvePlugins(config.plugins ?? [], file, dir);
  const pluginAt = new Map<string, string>();
  const tools = new Map(neighbours.tools);
  const problems: ConfigProblem[] = [];
  for (const entry of plugins) {
    const name = entry.plugin.name;
    const other = neighbours.plugins.get(name) ?? (pluginAt.has(name) ? `config ${pluginAt.get(name)}` : undefined);
    if (other !== undefined) {
      problems.push({ path: entry.at, message: `a plugin named '${name}' is already loaded (${other}); list each plugin once` });
      continue;
    }
    pluginAt.set(name, entry.at);
    for (const [toolName, fact] of toolFacts([entry.plugin])) {
      const owner = tools.get(toolName);
      if (owner) {
        problems.push({
          path: entry.at,
          message: `the tool '${toolName}' is defined by both plugin '${owner.plugin}' and plugin '${name}'; rename one of them or leave one plugin out`,
        });
      } else {
        tools.set(toolName, fact);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(file, problems);

  // A copy: the scenarios join it, and the config's own list is planned again on each reload.
  const composites = [...validateComposites(config.composites ?? [], file)];
  composites.forEach((spec, i) => {
    const owner = tools.get(spec.name);
    if (owner) {
      problems.push({ path: `composites[${i}].name`, message: `the tool '${spec.name}' is defined by both plugin '${owner.plugin}' and this composite; rename the composite` });
    }
  });
  if (problems.length > 0) throw new ConfigError(file, problems);
  const taken = new Map<string, string>([...tools].map(([name, fact]) => [name, `plugin '${fact.plugin}'`]));
  for (const spec of composites) taken.set(spec.name, 'a composite');
  composites.push(...compileScenarios(config.scenarios ?? [], { tools, composites: [...composites] }, taken, file));
  if (pluginAt.has(COMPOSITES_PLUGIN) || neighbours.plugins.has(COMPOSITES_PLUGIN)) {
    if (composites.length > 0) throw new ConfigError(file, [{ path: 'plugins', message: `the plugin name '${COMPOSITES_PLUGIN}' is reserved for the config's composites` }]);
  }
  const plan = { loaded, policy: mergePolicy(config, overrides), plugins, composites, compositesPlugin: compositesPlugin(composites, tools, file) };
  const all = new Map(tools);
  for (const [name, fact] of toolFacts(plan.compositesPlugin ? [plan.compositesPlugin] : [])) all.set(name, fact);
  const policyErrors = policyProblems(
    plan.policy,
    [...all].map(([name, fact]) => ({ name, ...fact })),
  ).filter((p) => p.fatal);
  if (policyErrors.length > 0) {
    throw new ConfigError(
      file,
      policyErrors.map((p) => ({ path: fromFlags(overrides, p.entry) ? `--${p.path.replace(/\[\d+\]$/, '')}` : p.path, message: p.message })),
    );
  }
  return plan;
}

/** Whether a policy entry came from the command line (the flags win over the config's lists). */
function fromFlags(overrides: ToolPolicy, entry: string): boolean {
  return (overrides.allow ?? []).includes(entry) || (overrides.deny ?? []).includes(entry);
}

export interface ConfigRuntimeOptions {
  loaded: LoadedConfig;
  /** Command-line policy flags; they win over the config on every reload. */
  overrides?: ToolPolicy;
  /** Reload when the file changes. Default: the config's `watch`, else true. */
  watch?: boolean;
  log: Logger;
  /**
   * Bring the daemon's targets in line with a reloaded config, before its plan is applied (so a
   * new target gets the plugins, composites and policy too). The daemon's; none for a host alone.
   */
  syncTargets?: (loaded: LoadedConfig) => Promise<TargetChanges>;
}

/** What a reload did to the targets: those that came and went (a changed one does both). */
export interface TargetChanges {
  added: Host[];
  removed: Host[];
}

export interface ReloadResult {
  ok: boolean;
  added: string[];
  removed: string[];
  /** Targets started and stopped by the reload, by name. */
  targets?: { added: string[]; removed: string[] };
  error?: string;
}

/**
 * What changed that only a restart applies: daemon options, and the options of built-in plugins
 * (read when the daemon starts: the webhook's queues and spool outlive a config save).
 */
function restartOnlyChanges(before: LoadedConfig, after: LoadedConfig): string[] {
  const changed: string[] = DAEMON_KEYS.filter((k) => JSON.stringify(after.config[k]) !== JSON.stringify(before.config[k]));
  const was = builtinOptions(before.config as Record<string, unknown>, before.file, builtinPlugins);
  const now = builtinOptions(after.config as Record<string, unknown>, after.file, builtinPlugins);
  for (const name of new Set([...was.keys(), ...now.keys()])) {
    if (JSON.stringify(was.get(name)) !== JSON.stringify(now.get(name))) changed.push(name);
  }
  return changed;
}

/** Keeps every target's host in step with the config file: each gets the same plugins, composites and policy. */
export class ConfigRuntime {
  private loaded: LoadedConfig;
  private closed = false;
  /** Per host, the plugins this runtime loaded: name → key (same key on a reload = kept as it is). */
  private readonly managedBy = new Map<Host, Map<string, string>>();
  /** The plan in force, for a target added later. */
  private plan: ConfigPlan | null = null;
  private readonly targets: Targets;
  private watcher: fs.FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private loadedAt = Date.now();
  private reloads = 0;
  private lastError: string | null = null;
  private readonly log: Logger;

  constructor(
    hostOrTargets: Host | Targets,
    private readonly options: ConfigRuntimeOptions,
  ) {
    this.targets = hostOrTargets instanceof Host ? Targets.of(hostOrTargets) : hostOrTargets;
    this.loaded = options.loaded;
    this.log = options.log.child({ part: 'config' });
    for (const host of this.targets.hostsList()) host.addStatusSection('config', () => this.status());
  }

  /** The host every plan is checked against: all get the same plugins, so any one will do. */
  private get host(): Host {
    return this.targets.hostsList()[0]!;
  }

  private managedOf(host: Host): Map<string, string> {
    let managed = this.managedBy.get(host);
    if (!managed) this.managedBy.set(host, (managed = new Map()));
    return managed;
  }

  private get managed(): Map<string, string> {
    return this.managedOf(this.host);
  }

  /** Give a target added while running the config in force (its plugins, composites, policy). */
  async join(host: Host): Promise<void> {
    host.addStatusSection('config', () => this.status());
    if (this.plan) await this.applyTo(host, this.plan);
  }

  /** Forget a target that was removed. */
  leave(host: Host): void {
    this.managedBy.delete(host);
  }

  get file(): string | null {
    return this.loaded.file;
  }

  private neighbours(): Neighbours {
    const plugins = new Map<string, string>();
    for (const info of this.host.plugins()) if (!this.managed.has(info.name)) plugins.set(info.name, info.source);
    const tools = new Map<string, ToolFacts>();
    for (const tool of this.host.registry.list()) {
      if (!this.managed.has(tool.plugin))
        tools.set(tool.name, { plugin: tool.plugin, requires: tool.requires, annotations: tool.annotations, input: tool.spec.input, paramAliases: tool.spec.paramAliases });
    }
    return { plugins, tools };
  }

  /** Resolve the current config and load it into the host. Throws a ConfigError when it is unusable. */
  async start(): Promise<void> {
    const plan = await planConfig(this.loaded, this.neighbours(), this.options.overrides);
    await this.apply(plan);
  }

  /** Swap in a checked plan on every target, each as one surface revision. Unchanged npm plugins keep running. */
  private async apply(plan: ConfigPlan): Promise<{ added: string[]; removed: string[] }> {
    const before = new Set(this.host.registry.list().map((t) => t.name));
    for (const host of this.targets.hostsList()) await this.applyTo(host, plan);
    this.plan = plan;
    const after = new Set(this.host.registry.list().map((t) => t.name));
    return { added: [...after].filter((n) => !before.has(n)), removed: [...before].filter((n) => !after.has(n)) };
  }

  private async applyTo(host: Host, plan: ConfigPlan): Promise<void> {
    const managed = this.managedOf(host);
    const wanted = new Map(plan.plugins.map((p) => [p.plugin.name, p]));
    const failed = new Set(
      host
        .plugins()
        .filter((p) => p.state === 'failed')
        .map((p) => p.name),
    );
    await host.registry.batch(async () => {
      for (const [name, key] of [...managed]) {
        const next = wanted.get(name);
        if (next && next.key === key && !failed.has(name) && name !== COMPOSITES_PLUGIN) continue;
        await host.remove(name);
        managed.delete(name);
      }
      for (const entry of plan.plugins) {
        if (managed.has(entry.plugin.name)) continue;
        await host.use(entry.create?.() ?? entry.plugin, { source: entry.source, options: entry.options, from: entry.from });
        managed.set(entry.plugin.name, entry.key);
      }
      if (plan.compositesPlugin) {
        await host.use(plan.compositesPlugin, { source: 'config', from: plan.loaded.file ?? plan.loaded.dir });
        managed.set(COMPOSITES_PLUGIN, 'composites');
      }
      host.registry.setPolicy(plan.policy);
    });
  }

  /** Load the file again and apply it; on any error the running set stays as it was. */
  reload(reason = 'requested'): Promise<ReloadResult> {
    const run = async (): Promise<ReloadResult> => {
      const file = this.loaded.file;
      // After close() (the daemon is stopping) a late SIGHUP or file event changes nothing.
      if (file === null || this.closed) return { ok: true, added: [], removed: [] };
      try {
        const loaded = await loadConfig({ file });
        if (!loaded) throw new ConfigError(file, [{ path: '', message: 'no longer holds a config' }]);
        // Plugin packages are imported here: one that never finishes must not stall every later reload.
        const plan = await withinConfigTimeout(file, planConfig(loaded, this.neighbours(), this.options.overrides), configTimeoutMs());
        const restartOnly = restartOnlyChanges(this.loaded, loaded);
        const changes = await this.options.syncTargets?.(loaded);
        for (const host of changes?.removed ?? []) this.leave(host);
        for (const host of changes?.added ?? []) host.addStatusSection('config', () => this.status());
        const { added, removed } = await this.apply(plan);
        this.loaded = loaded;
        this.loadedAt = Date.now();
        this.reloads += 1;
        this.lastError = null;
        this.log.info({ file, reason, added, removed, tools: plan.composites.map((c) => c.name) }, `config reloaded from ${displayPath(file)}`);
        if (restartOnly.length > 0) {
          this.log.warn({ keys: restartOnly }, `config: ${restartOnly.join(', ')} changed; daemon options and built-in plugins' options take effect when the daemon restarts`);
        }
        if (!changes || changes.added.length + changes.removed.length === 0) return { ok: true, added, removed };
        const targets = { added: changes.added.map((h) => h.target), removed: changes.removed.map((h) => h.target) };
        this.log.info(targets, 'config reload changed the targets');
        return { ok: true, added, removed, targets };
      } catch (err) {
        this.lastError = (err as Error)?.message ?? String(err);
        this.log.error({ file, reason, err: this.lastError }, `config not reloaded, the previous one stays in force: ${this.lastError}`);
        return { ok: false, added: [], removed: [], error: this.lastError };
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next;
    return next;
  }

  /** Reload shortly after the file changes (editors write in bursts; a rename counts too). */
  watch(): void {
    const file = this.loaded.file;
    if (this.watcher || file === null || (this.options.watch ?? this.loaded.config.watch ?? true) === false) return;
    const base = path.basename(file);
    try {
      this.watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name !== null && name.toString() !== base) return;
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => {
          this.debounce = null;
          if (fs.existsSync(file)) void this.reload('file changed');
        }, 100);
      });
      this.watcher.on('error', (err) => this.log.warn({ err: err.message }, 'config watch failed; reload with SIGHUP instead'));
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'cannot watch the config file; reload with SIGHUP instead');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher?.close();
    this.watcher = null;
    await this.queue.catch(() => undefined);
  }

  status(): Record<string, unknown> {
    return {
      file: this.loaded.file,
      loadedAt: new Date(this.loadedAt).toISOString(),
      reloads: this.reloads,
      watching: this.watcher !== null,
      plugins: [...this.managed.keys()],
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }
}
