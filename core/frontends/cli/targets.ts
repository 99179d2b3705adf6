/** `mcbridge targets [--json]`: the game servers the daemon reaches, as its `targets` method lists them. */
import { ApiClient } from '../../api/client.js';
import type { TargetInfo } from '../../api/target-views.js';
import type { GlobalOptions } from './options.js';

interface TargetsAnswer {
  targets: TargetInfo[];
  default: string | null;
  count: number;
}

/** Columns padded to their widest cell; the last one left ragged. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

/** Where a target's mod is: its address and where the port came from, and the game folder. */
function where(t: TargetInfo): string {
  if (t.control)
    return `control ${String(t.control.address)} (${String(t.control.trust)}, credential from ${String(t.control.credential)}${Array.isArray(t.control.permissions) ? `, ${t.control.permissions.join('+')}` : ''})`;
  const mod = t.mod.port === null ? `mod on ${t.mod.host}, port unknown` : `mod ${t.mod.host}:${t.mod.port}${t.mod.portSource ? ` (${t.mod.portSource})` : ''}`;
  return t.serverDir ? `${mod}, dir ${t.serverDir}` : mod;
}

/** The most of a target's error a table row shows: a whole multi-line error made rows of 400+ characters. */
export const ERROR_CELL_CHARS = 80;

/** An error as one table cell (or status line): its first line, cut at ERROR_CELL_CHARS; `cut` when anything was left out. */
export function errorCell(text: string): { cell: string; cut: boolean } {
  const whole = text.trim();
  const first = whole.split(/\r?\n/, 1)[0]!.trimEnd();
  if (first === whole && first.length <= ERROR_CELL_CHARS) return { cell: first, cut: false };
  return { cell: `${first.slice(0, ERROR_CELL_CHARS - 1).trimEnd()}…`, cut: true };
}

/** A line for a person per target, and under it the tools it hides and why. */
export function targetsText(answer: TargetsAnswer): string {
  const rows = [['TARGET', 'DEFAULT', 'CONNECTED', 'VANTAGE', 'CAPS', 'HIDDEN', 'WHERE']];
  let cut = false;
  for (const t of answer.targets) {
    const error = errorCell(t.lastError ?? t.state);
    cut ||= !t.connected && error.cut;
    const connected = t.connected ? 'yes' : `no (${error.cell})`;
    rows.push([t.name, t.default ? '*' : '', connected, t.vantage, String(t.capabilities?.length ?? 0), String(t.tools.hidden), where(t)]);
  }
  const lines = table(rows);
  if (cut) lines.push('', 'errors are cut to one line here: `mcbridge targets --json` has them whole');
  for (const t of answer.targets.filter((t) => t.hidden.length > 0)) {
    lines.push('', `${t.name} hides:`);
    const width = Math.max(...t.hidden.map((h) => h.name.length));
    for (const h of t.hidden) lines.push(`  ${h.name.padEnd(width)}  ${h.reason}`);
  }
  if (answer.default === null && answer.count > 1) lines.push('', 'no target is the default: name one with --target (or MCBRIDGE_TARGET), or mark one `default: true` in the config');
  return lines.join('\n') + '\n';
}

export async function targetsCommand(opts: { json?: boolean }, global: GlobalOptions): Promise<void> {
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  try {
    const answer = (await client.call('targets', {})) as TargetsAnswer;
    process.stdout.write(opts.json ? JSON.stringify(answer, null, 2) + '\n' : targetsText(answer));
  } finally {
    client.close();
  }
}
