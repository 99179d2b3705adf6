/**
 * `mcbridge server start|stop|restart|reset|status`: the server plugin's tools for a person at a
 * shell (docs/servers.md). Progress goes to stderr as it comes, the answer to stdout: a line per
 * server, or the whole answer with --json. A start that fails exits 1 with the server's last lines.
 */
import { ApiClient } from '../../api/client.js';
import { withTarget } from '../target-param.js';
import type { GlobalOptions } from './options.js';
import { UsageError } from './exit.js';
import { singleTarget } from './target.js';

export const SERVER_ACTIONS = ['start', 'stop', 'restart', 'reset', 'status'] as const;
export type ServerAction = (typeof SERVER_ACTIONS)[number];

interface ServerCliOptions {
  json?: boolean;
  template?: string;
  fork?: string;
}

/** The parts of a server_* answer this prints (docs/servers.md). */
interface Answer {
  target?: string;
  launched?: boolean;
  hint?: string;
  state?: string;
  pid: number | null;
  uptimeSeconds: number | null;
  restarts: number;
  started?: boolean;
  reset?: { source: { kind: string; name: string }; files: number; bytes: number };
  lastExit?: { code: number | null; signal: string | null; requested: boolean } | null;
  lastCrash?: string | null;
  gaveUp?: string | null;
  hung?: boolean;
  restartAt?: number | null;
}

function seconds(s: number | null): string {
  if (s === null) return '';
  if (s < 120) return `${s} s`;
  return s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

/** One line, then a line for each thing worth knowing (a crash, a give-up, hung). */
export function describeServer(target: string, a: Answer): string {
  if (a.launched === false) return `${target}: not run by mcbridge (${a.hint ?? 'no launch in its config'})\n`;
  const facts = [a.pid !== null ? `pid ${a.pid}` : null, a.uptimeSeconds !== null ? `up ${seconds(a.uptimeSeconds)}` : null, `restarts ${a.restarts}`].filter(Boolean);
  const lines = [`${target}: ${a.state} (${facts.join(', ')})`];
  if (a.started === false) lines.push('  it was running already');
  if (a.reset) lines.push(`  world from the ${a.reset.source.kind} ${a.reset.source.name}: ${a.reset.files} files, ${a.reset.bytes} bytes`);
  if (a.lastExit) lines.push(`  last exit: ${a.lastExit.signal ? `signal ${a.lastExit.signal}` : `code ${a.lastExit.code}`}${a.lastExit.requested ? ' (asked)' : ''}`);
  if (a.lastCrash && a.state !== 'running') lines.push(`  last crash: ${a.lastCrash}`);
  if (a.gaveUp) lines.push(`  the watchdog gave up: ${a.gaveUp}`);
  if (a.hung) lines.push('  hung: its mod does not answer (mcbridge server restart)');
  if (a.restartAt) lines.push(`  restarting in ${Math.max(0, Math.round((a.restartAt - Date.now()) / 1000))} s`);
  return `${lines.join('\n')}\n`;
}

export async function serverCommand(action: string, opts: ServerCliOptions, global: GlobalOptions): Promise<void> {
  if (!(SERVER_ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown server action '${action}': use one of ${SERVER_ACTIONS.join(', ')}`);
  if ((opts.template !== undefined || opts.fork !== undefined) && action !== 'reset') throw new UsageError('--template and --fork go with `server reset` only');
  if (opts.template !== undefined && opts.fork !== undefined) throw new UsageError('give --template or --fork, not both');
  const from = opts.template !== undefined ? { template: opts.template } : opts.fork !== undefined ? { fork: opts.fork } : undefined;
  const target = singleTarget(global.target, 'server');
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  try {
    const answer = (await client.call(`server_${action}`, withTarget(from ? { from } : {}, target), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.message) process.stderr.write(`${p.message}\n`);
      },
    })) as Answer;
    process.stdout.write(opts.json ? `${JSON.stringify(answer, null, 2)}\n` : describeServer(String(answer.target ?? target ?? 'server'), answer));
  } finally {
    process.off('SIGINT', interrupt);
    client.close();
  }
}
