import path from 'node:path';
import { ApiClient } from '../../api/client.js';
import type { HiddenBy, Manifest, PluginInfo } from '../../host/plugin-api.js';
import type { GlobalOptions } from './options.js';
import { callSomeTarget, singleTarget } from './target.js';

/** The plugin the daemon makes of the config's composites (COMPOSITES_PLUGIN in core/daemon/config/composites.ts). */
const COMPOSITES_PLUGIN = 'composites';

export interface PluginToolState {
  name: string;
  available: boolean;
  /** Why it is hidden: `caps` (the mod lacks a capability), `read-only`, `policy` (allow/deny lists), `scope`, `dependency`. */
  hiddenBy?: HiddenBy;
  missing?: string[];
  reason?: string;
}

export interface PluginReport extends Omit<PluginInfo, 'tools'> {
  tools: PluginToolState[];
}

/** Plugins (from `status`) joined with each tool's state (from the manifest). */
export function pluginReport(plugins: PluginInfo[], manifest: Manifest): PluginReport[] {
  return plugins.map((p) => ({
    ...p,
    tools: manifest.tools
      .filter((t) => t.plugin === p.name)
      .map((t) => {
        const state: PluginToolState = { name: t.name, available: t.available };
        if (!t.available) {
          if (t.hiddenBy) state.hiddenBy = t.hiddenBy;
          if (t.missing) state.missing = t.missing;
          if (t.reason) state.reason = t.reason;
        }
        return state;
      }),
  }));
}

/**
 * A plugin's heading line. The config's composites are no package with a version of their own:
 * they are named by the config file that defines them.
 */
function pluginHeading(p: PluginReport): string {
  if (p.name === COMPOSITES_PLUGIN && p.source === 'config' && p.from) return `composites  (config ${path.basename(p.from)})  ${p.from}`;
  return `${p.name} ${p.version}  (${p.source})${p.from ? `  ${p.from}` : ''}`;
}

/** `mcbridge plugins`: every loaded plugin, where it came from, and the state of each of its tools. */
export async function pluginsCommand(opts: { json?: boolean }, global: GlobalOptions): Promise<void> {
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  try {
    const status = (await callSomeTarget(client, 'status', singleTarget(global.target, 'plugins'))).answer as { plugins: PluginInfo[] };
    const manifest = (await client.call('tools')) as Manifest;
    const report = pluginReport(status.plugins, manifest);
    if (opts.json) {
      process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      return;
    }
    const width = Math.max(8, ...report.flatMap((p) => p.tools.map((t) => t.name.length)));
    const lines: string[] = [];
    for (const p of report) {
      lines.push(`${pluginHeading(p)}${p.state === 'failed' ? `  FAILED: ${p.error ?? 'setup failed'}` : ''}`);
      for (const t of p.tools) {
        if (t.available) lines.push(`  available  ${t.name}`);
        else lines.push(`  hidden     ${t.name.padEnd(width)}  ${t.hiddenBy ? `[${t.hiddenBy}] ` : ''}${t.reason ?? ''}`);
      }
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    client.close();
  }
}
