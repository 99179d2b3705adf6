/**
 * Composite tools: defined in config, turned into an ordinary plugin whose tools run `run(ctx)`.
 * They go through the same registry, naming rules, CAPS filtering, policy and annotations as
 * every other tool; with `uses`, their CAPS and annotations are derived from the tools they call.
 */
import { z } from 'zod';
import { McbridgeError, toMcbridgeError } from '../../host/errors.js';
import { canonicalCap } from '../../host/link/caps.js';
import type { ModReply } from '../../host/link/mod-link.js';
import { annotationsShape, toolNameShape, toolScopeShape, zodObjectSchema, zodSchema } from '../../host/define.js';
import { HOST_API_VERSION, type Plugin, type ToolAnnotations, type ToolContext, type ToolSpec } from '../../host/plugin-api.js';
import { VERSION } from '../../util/version.js';
import { ConfigError, zodProblems, type ConfigProblem } from './errors.js';
import type { CompositeContext, CompositeSpec } from '../../authoring/config.js';

/** The plugin that carries a config's composites. */
export const COMPOSITES_PLUGIN = 'composites';

const compositeShape = z
  .object({
    name: toolNameShape,
    description: z.string().trim().min(1, 'must say what the composite does, for a model'),
    input: zodObjectSchema.optional(),
    output: zodSchema.optional(),
    uses: z.array(toolNameShape).optional(),
    requires: z.array(z.string().trim().min(1)).optional(),
    annotations: annotationsShape.optional(),
    only: toolScopeShape.optional(),
    run: z.custom<CompositeSpec['run']>((v) => typeof v === 'function', { message: 'expected a function run(ctx) => result' }),
  })
  .strict();

/** What derivation needs to know of a tool some plugin defines. */
export interface ToolFacts {
  plugin: string;
  requires: string[];
  annotations: ToolAnnotations;
  /** Its input schema and older param names, to check a scenario's arguments when the config loads. */
  input?: ToolSpec['input'];
  paramAliases?: Record<string, string>;
}

/**
 * Composites made from data (config scenarios, scenarios.ts): where each sits in the config, for
 * messages, and its run as a tool (it gets the plain tool context, and names its own steps).
 */
const fromData = new WeakMap<CompositeSpec, { at: string; run: ToolSpec['run'] }>();

export function dataComposite(spec: Omit<CompositeSpec, 'run'>, at: string, run: ToolSpec['run']): CompositeSpec {
  const composite: CompositeSpec = { ...spec, run: (ctx) => run(ctx.args, ctx) };
  fromData.set(composite, { at, run });
  return composite;
}

/** Where a composite sits in the config: `composites[i]`, or the scenario it was made from. */
export function compositeAt(spec: CompositeSpec, index: number): string {
  return scenarioAt(spec) ?? `composites[${index}]`;
}

/** The scenario a composite was made from (`scenarios[i]`), if it was. */
export function scenarioAt(spec: CompositeSpec): string | undefined {
  return fromData.get(spec)?.at;
}

/** Every tool of these plugins, with the CAPS the registry would give it. */
export function toolFacts(plugins: readonly Plugin[]): Map<string, ToolFacts> {
  const facts = new Map<string, ToolFacts>();
  for (const plugin of plugins) {
    for (const tool of plugin.tools ?? []) {
      const requires = [...new Set([...(plugin.requires?.caps ?? []), ...(tool.requires ?? [])].map(canonicalCap))];
      facts.set(tool.name, { plugin: plugin.name, requires, annotations: { ...tool.annotations }, input: tool.input, paramAliases: tool.paramAliases });
    }
  }
  return facts;
}

/** Check the `composites` list: shapes first, then names unique among themselves. */
export function validateComposites(entries: readonly unknown[], file: string | null): CompositeSpec[] {
  const problems: ConfigProblem[] = [];
  const firstAt = new Map<string, number>();
  entries.forEach((entry, i) => {
    const parsed = compositeShape.safeParse(entry);
    if (!parsed.success) {
      problems.push(
        ...zodProblems(parsed.error, ['composites', i]).map((p) => {
          const name = (entry as { name?: unknown } | null)?.name;
          return typeof name === 'string' ? { ...p, message: `${p.message} (composite '${name}')` } : p;
        }),
      );
      return;
    }
    const seen = firstAt.get(parsed.data.name);
    if (seen !== undefined) {
      problems.push({ path: `composites[${i}].name`, message: `'${parsed.data.name}' is already the name of composites[${seen}]; composite names must be unique` });
    } else {
      firstAt.set(parsed.data.name, i);
    }
  });
  if (problems.length > 0) throw new ConfigError(file, problems);
  return entries as CompositeSpec[];
}

/** CAPS and annotations of a composite: declared, or derived from the tools in `uses`. */
export function deriveComposite(spec: CompositeSpec, index: number, facts: ReadonlyMap<string, ToolFacts>, file: string | null): { requires: string[]; annotations: ToolAnnotations } {
  const uses = spec.uses;
  const used: ToolFacts[] = [];
  const problems: ConfigProblem[] = [];
  uses?.forEach((name, j) => {
    const fact = facts.get(name);
    if (fact) used.push(fact);
    else problems.push({ path: `${compositeAt(spec, index)}.uses[${j}]`, message: `no loaded plugin defines the tool '${name}' (composite '${spec.name}' calls it)` });
  });
  if (problems.length > 0) throw new ConfigError(file, problems);
  const declared = spec.annotations ?? {};
  const annotations: ToolAnnotations = {
    // Without `uses` nothing is known of what it calls: not read-only unless declared.
    readOnly: declared.readOnly ?? (uses !== undefined && used.every((t) => t.annotations.readOnly === true)),
  };
  const destructive = declared.destructive ?? (used.some((t) => t.annotations.destructive === true) || undefined);
  if (destructive !== undefined) annotations.destructive = destructive;
  if (declared.idempotent !== undefined) annotations.idempotent = declared.idempotent;
  const openWorld = declared.openWorld ?? (used.some((t) => t.annotations.openWorld === true) || undefined);
  if (openWorld !== undefined) annotations.openWorld = openWorld;
  const requires = spec.requires ?? [...new Set(used.flatMap((t) => t.requires))];
  return { requires, annotations };
}

function stepError(err: unknown, composite: string, step: number, tool: string): McbridgeError {
  const e = toMcbridgeError(err);
  if (e.code === 'cancelled') return e;
  return new McbridgeError(e.code, `composite '${composite}' stopped at step ${step} (${tool}): ${e.message}`, {
    ...e.details,
    composite,
    step,
    tool,
  });
}

/**
 * A composite's context: the host's tool context (its `waitFor`, `defer`, `sleep` and
 * clean-ups: core/host/call-scope.ts) plus `args`, step-numbered calls limited to `uses`, and
 * helpers. Clean-ups get the same, built on the host's clean-up context.
 */
function compositeContext(spec: CompositeSpec, args: Record<string, unknown>, tool: ToolContext, steps: { n: number }): CompositeContext {
  const call = async (name: string, params: Record<string, unknown> = {}, options?: { signal?: AbortSignal }): Promise<unknown> => {
    if (spec.uses && !spec.uses.includes(name)) {
      throw new McbridgeError(
        'invalid_params',
        `composite '${spec.name}' called the tool '${name}', which is not in its uses list ` + `(${spec.uses.join(', ')}); add it to uses so its CAPS and annotations are derived from it`,
        { composite: spec.name, tool: name },
      );
    }
    steps.n += 1;
    const n = steps.n;
    try {
      return await tool.call(name, params, options);
    } catch (err) {
      throw stepError(err, spec.name, n, name);
    }
  };
  const command = async (text: string) => (await call('command', { command: text })) as ModReply;
  return {
    args,
    call,
    state: async () => (await call('state')) as ModReply,
    command,
    commandOutput: async (text) => {
      const output = (await command(text)).output;
      return Array.isArray(output) ? output.map(String) : [];
    },
    wait: async (ticks) => {
      await call('wait', { ticks });
    },
    request: async (line) => {
      throw new McbridgeError(
        'invalid_params',
        `composite '${spec.name}' sent '${line}' with request(); a composite reaches the mod through tools, ` +
          "so its CAPS and policy follow its uses: call the tool instead, e.g. command(...) or call('command', { command })",
        { composite: spec.name },
      );
    },
    defer: (cleanup) => tool.defer((own) => cleanup(compositeContext(spec, args, own, steps))),
    waitFor: tool.waitFor,
    sleep: tool.sleep,
    get startCursor() {
      return tool.startCursor;
    },
    get events() {
      return tool.events;
    },
    get log() {
      return tool.log;
    },
    get host() {
      return tool.host;
    },
    caps: tool.caps,
    configDir: tool.configDir,
    vantage: tool.vantage,
    signal: tool.signal,
    progress: tool.progress,
    config: tool.config,
  };
}

/**
 * Derive every composite, those that call other composites after them (in any order they are
 * listed). Composites that call each other in a cycle are refused.
 */
export function deriveComposites(specs: readonly CompositeSpec[], facts: ReadonlyMap<string, ToolFacts>, file: string | null): Array<{ requires: string[]; annotations: ToolAnnotations }> {
  const known = new Map(facts);
  const names = new Set(specs.map((s) => s.name));
  const derived = new Map<number, { requires: string[]; annotations: ToolAnnotations }>();
  let progress = true;
  while (derived.size < specs.length && progress) {
    progress = false;
    specs.forEach((spec, i) => {
      if (derived.has(i)) return;
      if ((spec.uses ?? []).some((u) => names.has(u) && !known.has(u))) return;
      const result = deriveComposite(spec, i, known, file);
      derived.set(i, result);
      known.set(spec.name, { plugin: COMPOSITES_PLUGIN, ...result, input: spec.input });
      progress = true;
    });
  }
  const stuck = specs.map((spec, i) => ({ spec, i })).filter(({ i }) => !derived.has(i));
  if (stuck.length > 0) {
    throw new ConfigError(
      file,
      stuck.map(({ spec, i }) => ({
        path: `${compositeAt(spec, i)}.uses`,
        message: `composites ${stuck.map((x) => `'${x.spec.name}'`).join(', ')} call each other in a cycle; composite '${spec.name}' cannot be derived`,
      })),
    );
  }
  return specs.map((_, i) => derived.get(i)!);
}

/** The composites of one config as a plugin (source `config`); null when there are none. */
export function compositesPlugin(specs: readonly CompositeSpec[], facts: ReadonlyMap<string, ToolFacts>, file: string | null): Plugin | null {
  if (specs.length === 0) return null;
  const derived = deriveComposites(specs, facts, file);
  const tools: ToolSpec[] = specs.map((spec, index) => {
    const { requires, annotations } = derived[index];
    const tool: ToolSpec = {
      name: spec.name,
      description: spec.description,
      input: spec.input ?? z.object({}).strict(),
      requires,
      annotations,
      run: fromData.get(spec)?.run ?? ((args, ctx) => spec.run(compositeContext(spec, args as Record<string, unknown>, ctx, { n: 0 }))),
    };
    if (spec.output) tool.output = spec.output;
    if (spec.uses) tool.uses = spec.uses;
    if (spec.only) tool.only = spec.only;
    return tool;
  });
  return {
    name: COMPOSITES_PLUGIN,
    version: VERSION,
    apiVersion: HOST_API_VERSION,
    description: 'composite tools defined in the config file',
    tools,
  };
}
