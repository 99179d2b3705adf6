import { ApiClient } from '../../api/client.js';
import type { Manifest } from '../../host/plugin-api.js';
import type { GlobalOptions } from './options.js';

function firstSentence(text: string): string {
  const end = text.search(/[.:](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}

/** `mcbridge tools`: what is available now, and why not the rest. */
export async function toolsCommand(opts: { json?: boolean }, global: GlobalOptions): Promise<void> {
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  try {
    const manifest = (await client.call('tools')) as Manifest;
    if (opts.json) {
      process.stdout.write(JSON.stringify(manifest, null, 2) + '\n');
      return;
    }
    const lines = [
      `surface revision ${manifest.revision}, ${manifest.vantage} vantage, mod ${manifest.connected ? 'connected' : 'not connected'} (caps: ${manifest.capsSource})`,
    ];
    const width = Math.max(...manifest.tools.map((t) => t.name.length));
    for (const tool of manifest.tools.filter((t) => t.available)) {
      lines.push(`  available  ${tool.name.padEnd(width)}  ${firstSentence(tool.description)}`);
    }
    for (const tool of manifest.tools.filter((t) => !t.available)) {
      lines.push(`  hidden     ${tool.name.padEnd(width)}  ${tool.reason ?? 'unavailable'}`);
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    client.close();
  }
}
