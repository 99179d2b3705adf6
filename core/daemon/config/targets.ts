/**
 * `targets` in a config: the game servers one daemon reaches, each with the link options a
 * daemon of one game takes. Without `targets` the flat options are the one target `default`
 * (docs/targets.md).
 */
import path from 'node:path';
import { z } from 'zod';
import { optionSchema } from '../../authoring/option-schema.js';
import { DEFAULT_TARGET, TARGET_NAME } from '../../api/targets.js';
import type { Vantage } from '../../host/link/discovery.js';

/** The flat options a target takes for itself; the others (API, policy, logs) are the daemon's. */
export const TARGET_KEYS = ['serverDir', 'portFile', 'modPort', 'modHost', 'vantage', 'reconnectDelay', 'buffer', 'bufferBytes'] as const;

/** Flat options that pick one game: beside `targets` they would be ambiguous. */
export const LINK_KEYS = ['serverDir', 'portFile', 'modPort', 'sim'] as const;

const simSchema = z.union([z.boolean(), z.object({ seed: z.number().int().optional() }).strict()], {
  error: 'expected true, false or { seed }',
});

export const targetSchema = z
  .object({
    ...(Object.fromEntries(TARGET_KEYS.map((key) => [key, optionSchema(key).optional()])) as { [K in (typeof TARGET_KEYS)[number]]: z.ZodOptional<ReturnType<typeof optionSchema<K>>> }),
    /** An in-process simulated mod of its own. */
    sim: simSchema.optional(),
    /** The target a call that names none goes to. */
    default: z.boolean().optional(),
  })
  .strict();

export const targetsSchema = z.record(z.string(), targetSchema).superRefine((targets, ctx) => {
  const names = Object.keys(targets);
  if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'lists no target; give at least one, e.g. { live: { serverDir: "live" } }' });
  if (names.length > 64) ctx.addIssue({ code: 'custom', message: `lists ${names.length} targets; at most 64` });
  for (const name of names) {
    if (!TARGET_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `'${name}' is not a target name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64` });
    }
    const t = targets[name]!;
    // Discovery's environment variables would send every such target to the same game.
    if (t.serverDir === undefined && t.portFile === undefined && t.modPort === undefined && !t.sim) {
      ctx.addIssue({ code: 'custom', path: [name], message: `says nowhere to find its game: give serverDir, portFile, modPort or sim: true` });
    }
  }
  const defaults = names.filter((name) => targets[name]?.default === true);
  if (defaults.length > 1) ctx.addIssue({ code: 'custom', message: `marks ${defaults.join(' and ')} as default; mark one` });
});

export type TargetConfig = z.infer<typeof targetSchema>;

/** One target as the daemon builds it. */
export interface TargetSpec {
  name: string;
  default: boolean;
  vantage?: Vantage | undefined;
  link: { serverDir?: string; portFile?: string; modPort?: number; modHost?: string; reconnectMinMs?: number; reconnectMaxMs?: number };
  buffer?: number | undefined;
  /** In bytes. */
  bufferBytes?: number | undefined;
  sim: false | { seed?: number };
}

const MiB = 1024 * 1024;

/** A config's targets as specs, paths resolved from the config's folder; `defaults` fill what a target leaves out. */
export function targetSpecs(targets: Record<string, TargetConfig>, dir: string, defaults: Partial<TargetConfig> = {}): TargetSpec[] {
  return Object.entries(targets).map(([name, own]) => {
    const t = { ...defaults, ...own };
    const link: TargetSpec['link'] = {};
    if (t.serverDir !== undefined) link.serverDir = path.resolve(dir, t.serverDir);
    if (t.portFile !== undefined) link.portFile = path.resolve(dir, t.portFile);
    if (t.modPort !== undefined) link.modPort = t.modPort;
    if (t.modHost !== undefined) link.modHost = t.modHost;
    if (t.reconnectDelay !== undefined) link.reconnectMinMs = link.reconnectMaxMs = t.reconnectDelay * 1000;
    return {
      name,
      default: own.default === true,
      vantage: t.vantage,
      link,
      buffer: t.buffer,
      bufferBytes: t.bufferBytes === undefined ? undefined : t.bufferBytes * MiB,
      sim: t.sim === true ? {} : t.sim === false || t.sim === undefined ? false : t.sim,
    };
  });
}

export { DEFAULT_TARGET };
