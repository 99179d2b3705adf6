/**
 * `targets` in a config: the game servers one daemon reaches, each with the link options a
 * daemon of one game takes. Without `targets` the flat options are the one target `default`
 * (docs/targets.md).
 */
import path from 'node:path';
import { z } from 'zod';
import { type TARGET_KEYS, targetObject } from '../../authoring/config-schema.js';
import { DEFAULT_TARGET, TARGET_NAME } from '../../api/targets.js';
import type { Vantage } from '../../host/link/discovery.js';
import type { LinkSettings } from '../../host/host.js';
import type { TargetOptionsView } from '../../host/plugin-api.js';
import type { LaunchConfig } from '../../host/launch-schema.js';

/** Flat options that pick one game: beside `targets` they would be ambiguous. */
export const LINK_KEYS = ['serverDir', 'portFile', 'modPort', 'sim', 'address'] as const;

/** What the link options of one game lack or hold in excess for its transport; empty when they fit. */
export function linkProblems(t: {
  transport?: string | undefined;
  address?: string | undefined;
  pin?: string | undefined;
  caFile?: string | undefined;
  serverDir?: string | undefined;
  tokenFile?: string | undefined;
  tokenEnv?: string | undefined;
  sim?: unknown;
}): string[] {
  const control = ['address', 'pin', 'caFile', 'serverName', 'tokenFile', 'tokenEnv'] as const;
  if (t.transport !== 'control') {
    const given = control.filter((k) => (t as Record<string, unknown>)[k] !== undefined);
    return given.length > 0 ? [`${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} for transport: 'control'; add it, or leave ${given.length === 1 ? 'it' : 'them'} out`] : [];
  }
  if (t.sim) return []; // the embedded sim gives its own address, pin and credential
  const problems: string[] = [];
  if (t.address === undefined) problems.push("transport 'control' needs address: the game port as host:port");
  if (t.pin === undefined && t.caFile === undefined && t.serverDir === undefined)
    problems.push("transport 'control' needs the server verified: pin (sha256:…), caFile, or serverDir (its mc-agent-server/control/fingerprint.txt)");
  if (t.pin !== undefined && t.caFile !== undefined) problems.push('give pin or caFile, not both');
  if (t.tokenFile === undefined && t.tokenEnv === undefined) problems.push("transport 'control' needs a credential: tokenFile or tokenEnv");
  if (t.tokenFile !== undefined && t.tokenEnv !== undefined) problems.push('give tokenFile or tokenEnv, not both');
  return problems;
}

/** The host's link settings for one game, its paths already resolved. */
export function linkSettings(t: Partial<Record<(typeof TARGET_KEYS)[number], unknown>>): LinkSettings {
  const reconnect = typeof t.reconnectDelay === 'number' ? { reconnectMinMs: t.reconnectDelay * 1000, reconnectMaxMs: t.reconnectDelay * 1000 } : {};
  const pick = <K extends string>(keys: readonly K[]) =>
    Object.fromEntries(keys.filter((k) => t[k as keyof typeof t] !== undefined).map((k) => [k, t[k as keyof typeof t]])) as Partial<Record<K, never>>;
  if (t.transport === 'control') {
    return { transport: 'control', address: String(t.address ?? ''), ...pick(['pin', 'caFile', 'serverName', 'tokenFile', 'tokenEnv', 'serverDir']), ...reconnect };
  }
  return { ...pick(['serverDir', 'portFile', 'modPort', 'modHost']), ...reconnect };
}

/** `targets` as the daemon checks it: the config schema's, plus the checks that need the daemon. */
export const targetsSchema = z.record(z.string(), targetObject).superRefine((targets, ctx) => {
  const names = Object.keys(targets);
  if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'lists no target; give at least one, e.g. { live: { serverDir: "live" } }' });
  if (names.length > 64) ctx.addIssue({ code: 'custom', message: `lists ${names.length} targets; at most 64` });
  for (const name of names) {
    if (!TARGET_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `'${name}' is not a target name: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64` });
    }
    const t = targets[name]!;
    // Discovery's environment variables would send every such target to the same game.
    if (t.serverDir === undefined && t.portFile === undefined && t.modPort === undefined && t.address === undefined && !t.sim && !t.launch) {
      ctx.addIssue({ code: 'custom', path: [name], message: `says nowhere to find its game: give serverDir, portFile, modPort, address (transport: 'control'), sim: true or launch` });
    }
    if (t.launch && t.sim) ctx.addIssue({ code: 'custom', path: [name], message: 'give sim (a simulated mod in the daemon) or launch (a server it runs as a child), not both' });
    if (t.launch?.sim === true && t.transport === 'control') {
      ctx.addIssue({ code: 'custom', path: [name, 'launch'], message: "a launched sim serves the legacy protocol: leave transport: 'control' out" });
    }
    for (const message of linkProblems(t)) ctx.addIssue({ code: 'custom', path: [name], message });
  }
  const defaults = names.filter((name) => targets[name]?.default === true);
  if (defaults.length > 1) ctx.addIssue({ code: 'custom', message: `marks ${defaults.join(' and ')} as default; mark one` });
});

export type TargetConfig = z.infer<typeof targetObject>;

/** One target as the daemon builds it. */
export interface TargetSpec {
  name: string;
  default: boolean;
  vantage?: Vantage | undefined;
  link: LinkSettings;
  buffer?: number | undefined;
  /** In bytes. */
  bufferBytes?: number | undefined;
  sim: false | { seed?: number; control?: boolean };
  /** Its config keys beyond the link, paths resolved (a launched sim's folder is filled in by the daemon when it names none). */
  options?: TargetOptionsView;
}

const MiB = 1024 * 1024;

/**
 * A loaded config's targets as the daemon builds them (null: the config lists none), with what a
 * target leaves out taken from `defaults`: `run` and `mcp --embedded` give this as `targetsFrom`, so
 * a reload reads the same way.
 */
export function configTargets(config: { config: { targets?: Record<string, TargetConfig> }; dir: string }, defaults: Partial<TargetConfig> = {}): TargetSpec[] | null {
  return config.config.targets ? targetSpecs(config.config.targets, config.dir, defaults) : null;
}

/** A config's targets as specs, paths resolved from the config's folder; `defaults` fill what a target leaves out. */
export function targetSpecs(targets: Record<string, TargetConfig>, dir: string, defaults: Partial<TargetConfig> = {}): TargetSpec[] {
  return Object.entries(targets).map(([name, own]) => {
    const t = { ...defaults, ...own };
    const at = (file: string | undefined) => (file === undefined ? undefined : path.resolve(dir, file));
    // A launched server is found in its own folder unless the target says otherwise.
    const launchDir = t.launch?.cwd;
    const serverDir = t.serverDir ?? (t.portFile === undefined && t.modPort === undefined && t.address === undefined ? launchDir : undefined);
    const link = linkSettings({ ...t, serverDir: at(serverDir), portFile: at(t.portFile), caFile: at(t.caFile), tokenFile: at(t.tokenFile) });
    return {
      name,
      default: own.default === true,
      vantage: t.vantage,
      link,
      buffer: t.buffer,
      bufferBytes: t.bufferBytes === undefined ? undefined : t.bufferBytes * MiB,
      sim: t.sim === true ? {} : t.sim === false || t.sim === undefined ? false : t.sim,
      ...(t.launch !== undefined || t.logFile !== undefined ? { options: targetOptions(t, at) } : {}),
    };
  });
}

/** `launch` and `logFile` as plugins read them: every path absolute. */
function targetOptions(t: Partial<TargetConfig>, at: (file: string | undefined) => string | undefined): TargetOptionsView {
  const launch = t.launch;
  const world = launch?.world && 'template' in launch.world ? { template: at(launch.world.template)! } : launch?.world;
  return {
    ...(launch ? { launch: { ...launch, ...(launch.cwd !== undefined ? { cwd: at(launch.cwd)! } : {}), ...(world ? { world } : {}) } as LaunchConfig } : {}),
    ...(t.logFile !== undefined ? { logFile: at(t.logFile)! } : {}),
  };
}

export { DEFAULT_TARGET };
