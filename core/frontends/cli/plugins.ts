import { ApiClient } from '../../api/client.js';
import type { HiddenBy, Manifest, PluginInfo } from '../../host/plugin-api.js';
import type { GlobalOptions } from './options.js';

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
    tools: manifest.tools.filter((t) => t.plugin === p.name).map((t) => {
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

/** `mcbridge plugins`: every loaded plugin, where it came from, and the state of each of its tools. */
export async function pluginsCommand(opts: { json?: boolean }, global: GlobalOptions): Promise<void> {
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  try {
    const status = (await client.call('status')) as { plugins: PluginInfo[] };
    const manifest = (await client.call('tools')) as Manifest;
    const report = pluginReport(status.plugins, manifest);
    if (opts.json) {
      process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      return;
    }
    const width = Math.max(8, ...report.flatMap((p) => p.tools.map((t) => t.name.length)));
    const lines: string[] = [];
    for (const p of report) {
      const from = p.from ? `  ${p.from}` : '';
      lines.push(`${p.name} ${p.version}  (${p.source})${from}${p.state === 'failed' ? `  FAILED: ${p.error ?? 'setup failed'}` : ''}`);
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
