/**
 * What the MCP front-end serves while no daemon answers: the built-in plugins' registry
 * filtered against the mod's released default CAPS for the vantage (the same list a
 * daemon serves before its first mod connects), and local answers for `status` and
 * `capabilities` that say the daemon is unreachable and how to start it.
 */
import { builtinPlugins, describeSurface } from './builtins.js';
import { Host } from '../host/host.js';
import type { Vantage } from '../host/link/discovery.js';
import type { Manifest, Surface } from '../host/plugin-api.js';
import { howToStart, type DaemonAddress } from './unreachable.js';

interface DefaultSurface {
  manifest: Manifest;
  surface: Surface;
}

const cache = new Map<Vantage, DefaultSurface>();

/** A throwaway host with the built-in plugins, never started: no link, no sockets. */
export function defaultSurface(vantage: Vantage): DefaultSurface {
  let found = cache.get(vantage);
  if (!found) {
    const host = new Host({ vantage, plugins: builtinPlugins.map((plugin) => ({ plugin, source: 'built-in' as const })) });
    found = { manifest: host.manifest(), surface: host.surface() };
    cache.set(vantage, found);
  }
  return found;
}

function daemonSection(address: DaemonAddress, cause: string): Record<string, unknown> {
  return { reachable: false, host: address.host, port: address.port, error: cause };
}

/** `status`, answered locally: the daemon is unreachable, and how to start it. */
export function localStatus(vantage: Vantage, address: DaemonAddress, cause: string): Record<string, unknown> {
  const { manifest } = defaultSurface(vantage);
  return {
    connected: false,
    vantage,
    capsSource: 'default',
    daemon: daemonSection(address, cause),
    tools: { total: manifest.tools.length, available: manifest.tools.filter((t) => t.available).length },
    hint: howToStart(address),
  };
}

/** `capabilities`, answered locally: no live CAPS, the default surface, and why. */
export function localCapabilities(vantage: Vantage, address: DaemonAddress, cause: string): Record<string, unknown> {
  const { surface, manifest } = defaultSurface(vantage);
  return {
    type: 'capabilities',
    connected: false,
    instance: null,
    modCapabilities: null,
    daemon: daemonSection(address, cause),
    ...describeSurface(surface, manifest),
    hint: howToStart(address),
  };
}
