/**
 * The shape of `mcbridge.config.ts`: daemon options (the `mcbridge run` flags, camelCased),
 * tool policy, plugins and composite tools. `defineConfig()` gives the types; the daemon checks
 * what a config file actually exported (core/daemon/config/schema.ts).
 */
import { z } from 'zod';
import type { Logger } from '../util/log.js';
import type { Cursor, EventPage, RecordedEvent } from '../host/events/event-log.js';
import type { Vantage } from '../host/link/discovery.js';
import type { ModReply } from '../host/link/mod-link.js';
import type { DaemonOptionValues } from './options.js';
import type { AnyObjectSchema, HostView, Plugin, ToolAnnotations, ToolScope } from '../host/plugin-api.js';

/** A plugin object, a package name (`mcbridge-plugin-foo`, `@scope/mcbridge-plugin-foo`, or the short `foo`), or either with options. */
export type PluginConfigEntry = Plugin | string | [Plugin | string, unknown?] | false | null | undefined;

/**
 * Daemon options, tool policy and `watch` (the `mcbridge run` flags, camelCased; a flag on the
 * command line wins) come from the option table, core/authoring/options.ts, docs included.
 */
export interface McbridgeConfig extends DaemonOptionValues {
  /** Plugins beyond the built-ins, with their options: `[plugin, options]`. */
  plugins?: PluginConfigEntry[];
  /** Tools defined right here, chaining other tools and waits. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  composites?: CompositeSpec<any, any>[];
}

/** What a composite's `run` gets: its arguments and the means to chain tools and waits. */
export interface CompositeContext<A = Record<string, unknown>> {
  /** The validated input. */
  args: A;
  /** Call a tool (same CAPS and policy rules as any caller). With `uses` declared, only those. */
  call(tool: string, args?: Record<string, unknown>): Promise<unknown>;
  /** The `state` tool. */
  state(): Promise<ModReply>;
  /** The `command` tool: one console command, its acknowledgement (`output` holds the feedback lines). */
  command(command: string): Promise<ModReply>;
  /** The `command` tool, returning just its feedback lines. */
  commandOutput(command: string): Promise<string[]>;
  /** The `wait` tool: N game ticks. */
  wait(ticks: number): Promise<void>;
  /**
   * The first event that matches, looking from just after the previous match (or from when this
   * composite started), so an event that arrived before the call is not missed. Default timeout 30 s.
   */
  waitFor(match: (event: RecordedEvent) => boolean, options?: { timeoutMs?: number; since?: number | Cursor }): Promise<RecordedEvent>;
  /** Buffered events, by default those since this composite started. */
  events(query?: { since?: number | Cursor; limit?: number; filter?: (event: RecordedEvent) => boolean }): EventPage;
  /** Milliseconds of wall time; ends early (rejects) when the call is cancelled. */
  sleep(ms: number): Promise<void>;
  /**
   * Run `cleanup` when the composite ends: success, failure or cancel (newest first). Its context
   * is not cancelled with the call (it gets 10 s), so it can undo what the composite started.
   */
  defer(cleanup: (ctx: CompositeContext<A>) => unknown): void;
  /** Aborted when the caller cancels. */
  signal: AbortSignal;
  progress(done: number, total?: number, message?: string): void;
  log: Logger;
  vantage: Vantage;
  caps: ReadonlySet<string> | null;
  host: HostView;
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

/** Identity at run time; gives `mcbridge.config.ts` full types. */
export function defineConfig(config: McbridgeConfig): McbridgeConfig {
  return config;
}

/** Identity at run time; types `ctx.args` from the input schema. */
export function defineComposite<I extends AnyObjectSchema = z.ZodObject<Record<string, never>>, O extends z.ZodType | undefined = undefined>(
  spec: CompositeSpec<I, O>,
): CompositeSpec<I, O> {
  return spec;
}
