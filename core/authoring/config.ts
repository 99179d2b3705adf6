/**
 * The shape of `mcbridge.config.ts`: daemon options (the `mcbridge run` flags, camelCased),
 * tool policy, plugins and composite tools. `defineConfig()` gives the types, which are those of
 * the schema the daemon checks a config file with (config-schema.ts, core/daemon/config/schema.ts).
 */
import type { z } from 'zod';
import type { ModReply } from '../host/link/mod-link.js';
import type { AnyObjectSchema, Plugin, ToolAnnotations, ToolContext, ToolScope } from '../host/plugin-api.js';
import type { configObject, targetObject } from './config-schema.js';

/**
 * A plugin object, a factory returning one (each target gets its own instance), a package name
 * (`mcbridge-plugin-foo`, `@scope/mcbridge-plugin-foo`, or the short `foo`), or any with options.
 */
export type PluginConfigEntry = Plugin | (() => Plugin) | string | [Plugin | (() => Plugin) | string, unknown?] | false | null | undefined;

/**
 * One game server of a daemon that reaches several (`targets`): the link options a daemon of one
 * game takes (legacy or control transport), its own simulated mod, and whether calls that name no
 * target go to it. The config schema's own type (config-schema.ts).
 */
export type TargetOptions = z.input<typeof targetObject>;

/**
 * Daemon options, tool policy and `watch` (the `mcbridge run` flags, camelCased; a flag on the
 * command line wins; docs from the option table, core/authoring/options.ts), `targets`, `plugins`
 * and `composites`: the config schema's own type (config-schema.ts).
 */
export type McbridgeConfig = z.input<typeof configObject>;

/**
 * What a composite's `run` gets: the tool context every plugin tool gets (`waitFor`, `defer`,
 * `sleep`, `events`, `signal`, ...) plus its arguments and helpers for the common tools.
 * A composite reaches the mod through tools only: `request` refuses, so its CAPS, annotations
 * and policy stay those derived from `uses`.
 */
export interface CompositeContext<A = Record<string, unknown>> extends ToolContext {
  /** The validated input. */
  args: A;
  /**
   * Call a tool (same CAPS and policy rules as any caller). With `uses` declared, only those.
   * A failure names the step: "composite 'x' stopped at step 2 (command): ...".
   */
  call(tool: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** The `state` tool. */
  state(): Promise<ModReply>;
  /** The `command` tool: one console command, its acknowledgement (`output` holds the feedback lines). */
  command(command: string): Promise<ModReply>;
  /** The `command` tool, returning just its feedback lines. */
  commandOutput(command: string): Promise<string[]>;
  /** The `wait` tool: N game ticks. */
  wait(ticks: number): Promise<void>;
}

/** A tool defined in config: data plus `run(ctx)`. */
export interface CompositeSpec<I extends AnyObjectSchema = AnyObjectSchema, O extends z.ZodType | undefined = undefined> {
  /** ^[a-z][a-z0-9_]{0,47}$, unique across all plugins. */
  name: string;
  /** Written for a model: when to use it, what it does, what it costs. */
  description: string;
  /** A zod object schema; default: no arguments. */
  input?: I;
  output?: O;
  /**
   * The tools it calls. Its CAPS and annotations are derived from them (read-only only if all
   * are), it is hidden while any of them is, and it may call no others.
   */
  uses?: string[];
  /** CAPS it needs; default: those of the tools in `uses`. */
  requires?: string[];
  /** Override the derived annotations. */
  annotations?: ToolAnnotations;
  /** Only for some vantages, instances or game versions. */
  only?: ToolScope;
  run(ctx: CompositeContext<z.infer<I>>): Promise<O extends z.ZodType ? z.infer<O> : unknown>;
}

/**
 * One step of a scenario (docs/plugins.md#scenarios). Strings in `args`, `wait_for` and the
 * operands of `expect` may hold `${name}` (the input) and `${steps.N.result...}` or
 * `${steps.<as>.result...}` (an earlier step's result).
 */
export type ScenarioStep =
  | { call: string; args?: Record<string, unknown>; as?: string }
  | { wait_for: Record<string, unknown>; as?: string }
  | {
      expect: { path: string; equals?: unknown; not_equals?: unknown; gte?: number | string; lte?: number | string; contains?: unknown; exists?: boolean };
      as?: string;
    };

/** A composite written as data (any config format, JSON included): steps run in order, the first failure stops it. */
export interface ScenarioSpec {
  /** ^[a-z][a-z0-9_]{0,47}$, unique across all tools. */
  name: string;
  description: string;
  /** A JSON Schema of type object (a small subset: docs/plugins.md#scenarios); default: no arguments. */
  input?: Record<string, unknown>;
  /** At most 100. */
  steps: ScenarioStep[];
  /** The whole run's bound in ms (default 600000, at most 3600000); a step still running then is cancelled. */
  timeout_ms?: number;
  /** Override the annotations derived from the tools it calls. */
  annotations?: ToolAnnotations;
  /** Only for some vantages, instances or game versions. */
  only?: ToolScope;
}

/** Identity at run time; gives `mcbridge.config.ts` full types. */
export function defineConfig(config: McbridgeConfig): McbridgeConfig {
  return config;
}

/** Identity at run time; types `ctx.args` from the input schema. */
export function defineComposite<I extends AnyObjectSchema = z.ZodObject<Record<string, never>>, O extends z.ZodType | undefined = undefined>(spec: CompositeSpec<I, O>): CompositeSpec<I, O> {
  return spec;
}
