/**
 * What the local API answers about every target at once: the tool list front-ends build their
 * surface from, the `targets` method, and the links section of `status`.
 */
import type { Host } from '../host/host.js';
import type { Manifest, ManifestTool } from '../host/plugin-api.js';
import type { Targets } from './targets.js';

/** A target as the manifest names it, for the front-ends' `target` argument. */
export interface ManifestTarget {
  name: string;
  default: boolean;
  connected: boolean;
}

/** The manifest of a daemon with several targets: each tool once, with the targets that serve it now. */
export interface TargetsManifest extends Manifest {
  targets: ManifestTarget[];
  defaultTarget: string | null;
}

/**
 * One target's manifest as it is; several merged: a tool is listed once, available when at
 * least one target serves it (`targets` names which); one no target serves keeps the first
 * target's reason. `revision` is the daemon's own count of surface changes.
 */
export function targetsManifest(targets: Targets, revision: number): Manifest | TargetsManifest {
  const hosts = targets.hostsList();
  if (hosts.length === 1) return hosts[0]!.manifest();
  const lead = targets.implicit() ?? hosts[0]!;
  const manifests = hosts.map((host) => ({ host, manifest: host.manifest() }));
  const tools = new Map<string, ManifestTool & { targets: string[] }>();
  for (const { host, manifest } of manifests) {
    for (const tool of manifest.tools) {
      const known = tools.get(tool.name);
      if (!known) tools.set(tool.name, { ...tool, targets: tool.available ? [host.target] : [] });
      else if (tool.available) {
        known.targets.push(host.target);
        if (!known.available) tools.set(tool.name, { ...tool, targets: known.targets });
      }
    }
  }
  const guides = new Map<string, { plugin: string; text: string }>();
  for (const { manifest } of manifests) for (const guide of manifest.guides ?? []) if (!guides.has(guide.plugin)) guides.set(guide.plugin, guide);
  const leadManifest = manifests.find((m) => m.host === lead)!.manifest;
  return {
    revision,
    vantage: leadManifest.vantage,
    capsSource: leadManifest.capsSource,
    connected: manifests.every((m) => m.manifest.connected),
    tools: [...tools.values()],
    guides: [...guides.values()],
    targets: manifests.map(({ host, manifest }) => ({ name: host.target, default: targets.defaultTarget === host.target, connected: manifest.connected })),
    defaultTarget: targets.defaultTarget,
  };
}

/** One row of the `targets` method (and `mcbridge targets`). */
export interface TargetInfo {
  name: string;
  default: boolean;
  transport: 'legacy' | 'control';
  connected: boolean;
  state: string;
  vantage: string;
  instance: string | null;
  capabilities: string[] | null;
  capsSource: string;
  /** The game folder configured for it (where the mod's port file is found). */
  serverDir: string | null;
  /** The mod's address, and where its port came from (`argument`, `port-file:<path>`...). */
  mod: { host: string; port: number | null; portSource: string | null };
  lastError: string | null;
  tools: { available: number; hidden: number };
  /** A control target: its address, how it is trusted, the credential's source (never the token) and permissions. */
  control?: { address: unknown; trust: unknown; credential: unknown; permissions: unknown; runId: unknown };
  /** The tools this target cannot serve now, and why. */
  hidden: Array<{ name: string; reason: string; missing?: string[] }>;
}

export function describeTarget(host: Host, isDefault: boolean): TargetInfo {
  const status = host.link.status();
  const surface = host.surface();
  const caps = host.capsView();
  return {
    name: host.target,
    default: isDefault,
    transport: status.transport,
    connected: status.connected,
    state: status.state,
    vantage: host.vantage,
    instance: status.instance,
    capabilities: caps.caps ? [...caps.caps].sort() : null,
    capsSource: caps.source,
    serverDir: host.link.serverDir,
    mod: status.mod,
    lastError: status.lastError,
    tools: { available: surface.supported.length, hidden: surface.unsupported.length },
    ...(status.control
      ? { control: { address: status.control.address, trust: status.control.trust, credential: status.control.credential, permissions: status.control.permissions, runId: status.control.runId } }
      : {}),
    hidden: surface.unsupported.map((u) => ({ name: u.name, reason: u.reason ?? 'not served by this target', ...(u.missing?.length ? { missing: u.missing } : {}) })),
  };
}

/** The `targets` method's answer. */
export function listTargets(targets: Targets): { targets: TargetInfo[]; default: string | null; count: number } {
  const implicit = targets.implicit();
  return {
    targets: targets.hostsList().map((host) => describeTarget(host, host === implicit)),
    default: implicit?.target ?? null,
    count: targets.size,
  };
}

/** `status`'s view of every link, beside the target's own: a glance tells which game is down. */
export function linksSection(targets: Targets): Record<string, { connected: boolean; state: string; instance: string | null; lastError: string | null }> {
  const out: Record<string, { connected: boolean; state: string; instance: string | null; lastError: string | null }> = {};
  for (const host of targets.hostsList()) {
    const status = host.link.status();
    out[host.target] = { connected: status.connected, state: status.state, instance: status.instance, lastError: status.lastError };
  }
  return out;
}

/** `ping`: as before on a daemon of one target; with several, each link too. */
export function ping(targets: Targets): Record<string, unknown> {
  const implicit = targets.implicit();
  if (targets.size === 1 && implicit) return { pong: true, connected: implicit.link.connected };
  const links = Object.fromEntries(targets.hostsList().map((h) => [h.target, h.link.connected]));
  return { pong: true, connected: implicit ? implicit.link.connected : Object.values(links).every(Boolean), targets: links };
}
