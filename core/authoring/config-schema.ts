/**
 * The shape of `mcbridge.config.ts` as zod schemas: the option table's entries, `targets`,
 * `plugins`, `composites` and `scenarios`. `McbridgeConfig` and `TargetOptions` are `z.input` of these
 * (config.ts), and the daemon validates a config with them, adding only the checks that need the
 * daemon (target names, built-in plugins' keys: core/daemon/config/schema.ts). One spelling, so a
 * key the daemon takes cannot be missing from the types (docs/decisions.md, "Config types are
 * the schema's"). Imported as a type by the public entry, so loading 'mcbridge' loads no zod.
 */
import { z } from 'zod';
import type { CompositeSpec, PluginConfigEntry, ScenarioSpec } from './config.js';
import { OPTION_KEYS, type DAEMON_OPTIONS, type OptionValue } from './options.js';
import { optionSchema } from './option-schema.js';
import { launchSchema } from '../host/launch-schema.js';

/**
 * Written over `keyof typeof DAEMON_OPTIONS` so the mapped type is homomorphic: an editor shows
 * each config field with its table entry's JSDoc.
 */
type OptionSchemas = { -readonly [K in keyof typeof DAEMON_OPTIONS]: z.ZodOptional<z.ZodType<OptionValue<K>, OptionValue<K>>> };

const optionSchemas = Object.fromEntries(OPTION_KEYS.map((key) => [key, optionSchema(key).optional()])) as OptionSchemas;

/** The flat options a target takes for itself; the others (API, policy, logs) are the daemon's. */
export const TARGET_KEYS = [
  'serverDir',
  'portFile',
  'modPort',
  'modHost',
  'vantage',
  'reconnectDelay',
  'buffer',
  'bufferBytes',
  'transport',
  'address',
  'pin',
  'caFile',
  'serverName',
  'tokenFile',
  'tokenEnv',
] as const;

type TargetKey = (typeof TARGET_KEYS)[number];

const targetOptionSchemas = Object.fromEntries(TARGET_KEYS.map((key) => [key, optionSchemas[key]])) as Pick<OptionSchemas, TargetKey>;

const simSchema = z.union([z.boolean(), z.object({ seed: z.number().int().optional(), control: z.boolean().optional() }).strict()], {
  error: 'expected true, false or { seed, control }',
});

/** One target: its link options, its own simulated mod, whether it is the default. */
export const targetObject = z
  .object({
    ...targetOptionSchemas,
    /** An in-process simulated mod of its own (a seed makes its world reproducible; `control: true` serves the control protocol). */
    sim: simSchema.optional(),
    /** The target a call that names none goes to. */
    default: z.boolean().optional(),
    /** A server the daemon runs itself: `{ command: [...], cwd }` or `{ sim: true }` (docs/servers.md). */
    launch: launchSchema.optional(),
    /** The server's log file, followed for `logs` (relative to the config's folder), e.g. `logs/latest.log`. */
    logFile: z.string().min(1).max(4096).optional(),
  })
  .strict();

/**
 * The config's keys, checked strictly so a typo is named rather than ignored. Each plugin entry
 * and composite is checked where it is loaded (core/daemon/config/plugins.ts, composites.ts), with
 * messages that name it; here they are only typed.
 */
export const configObject = z
  .object({
    ...optionSchemas,
    /**
     * Several game servers behind one daemon, by name (letters, digits, `.`, `_`, `-`): `{ live: {
     * serverDir: 'live' }, lab: { sim: true, default: true } }`. Without it the flat options are the
     * one target `default`. Beside it, `serverDir`, `portFile`, `modPort`, `sim` and `address` belong inside a target.
     */
    targets: z.record(z.string(), targetObject).optional(),
    /**
     * Plugins beyond the built-ins, with their options: `[plugin, options]`. A built-in's name with
     * options (`['webhook', { ... }]`) configures that built-in.
     */
    plugins: z.array(z.custom<PluginConfigEntry>()).optional(),
    /** Tools defined right here, chaining other tools and waits. */
    // biome-ignore lint/suspicious/noExplicitAny: each composite keeps its own input and output types; the list needs only the common shape
    composites: z.array(z.custom<CompositeSpec<any, any>>()).optional(),
    /** Composites written as data (JSON too): steps that call tools, wait and check results (docs/plugins.md#scenarios). */
    scenarios: z.array(z.custom<ScenarioSpec>()).optional(),
  })
  .strict();
