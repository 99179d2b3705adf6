import { ApiClient } from '../../api/client.js';
import type { TargetsManifest } from '../../api/target-views.js';
import type { Manifest, ManifestTool } from '../../host/plugin-api.js';
import type { GlobalOptions } from './options.js';

/** Words whose period ends no sentence. */
const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|no)$/i;

/**
 * The description's first sentence, whole: it ends at a full stop (or ! or ?) followed by a space
 * or the end, outside parentheses and code spans, and not after an abbreviation such as "e.g.".
 * A colon ends nothing. Without such an end, the whole description.
 */
export function firstSentence(text: string): string {
  let depth = 0;
  let code = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '`') code = !code;
    else if (code) continue;
    else if (c === '(' || c === '[') depth += 1;
    else if ((c === ')' || c === ']') && depth > 0) depth -= 1;
    else if ('.!?'.includes(c) && depth === 0 && (i + 1 === text.length || /\s/.test(text[i + 1]!)) && !ABBREVIATIONS.test(text.slice(0, i))) {
      return text.slice(0, i + 1);
    }
  }
  return text.trim();
}

/** `mcbridge tools`: what is available now, and why not the rest. */
export async function toolsCommand(opts: { json?: boolean }, global: GlobalOptions): Promise<void> {
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  try {
    const manifest = (await client.call('tools')) as Manifest & Partial<TargetsManifest>;
    if (opts.json) {
      process.stdout.write(JSON.stringify(manifest, null, 2) + '\n');
      return;
    }
    const lines = [`surface revision ${manifest.revision}, ${manifest.vantage} vantage, mod ${manifest.connected ? 'connected' : 'not connected'} (caps: ${manifest.capsSource})`];
    const names = manifest.targets?.map((t) => t.name) ?? [];
    // A daemon of several targets: say which serve a tool when not all of them do.
    if (names.length > 1) lines[0] += `; targets ${manifest.targets!.map((t) => `${t.name}${t.default ? ' (default)' : ''}${t.connected ? '' : ' (not connected)'}`).join(', ')}`;
    const servedBy = (tool: ManifestTool & { targets?: string[] }) => (names.length > 1 && tool.targets && tool.targets.length < names.length ? `  [only ${tool.targets.join(', ')}]` : '');
    const width = Math.max(...manifest.tools.map((t) => t.name.length));
    for (const tool of manifest.tools.filter((t) => t.available)) {
      lines.push(`  available  ${tool.name.padEnd(width)}  ${firstSentence(tool.description)}${servedBy(tool)}`);
    }
    for (const tool of manifest.tools.filter((t) => !t.available)) {
      lines.push(`  hidden     ${tool.name.padEnd(width)}  ${tool.reason ?? 'unavailable'}`);
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    client.close();
  }
}
