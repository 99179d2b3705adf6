/**
 * `mcbridge logs`: a target's game-server log through the daemon's `logs` tool (docs/logs.md):
 * one page, or with --follow every record from then on, paged with the tool's exact cursor.
 * Records the reader never saw (evicted from the ring) are said on stderr, never skipped quietly.
 */
import { ApiClient } from '../../api/client.js';
import { McbridgeError } from '../../host/errors.js';
import { printable, recordText, type LogPageView } from '../log-text.js';
import { withTarget } from '../target-param.js';
import { EXIT, UsageError } from './exit.js';
import type { GlobalOptions } from './options.js';
import { singleTarget } from './target.js';

/** How often --follow asks again when the last page held everything: the logs plugin's own poll. */
export const FOLLOW_POLL_MS = 250;

export interface LogsCliOptions {
  since?: number;
  level?: string;
  grep?: string;
  regex?: boolean;
  limit?: number;
  json?: boolean;
  follow?: boolean;
  summary?: boolean;
}

/** What a page leaves unsaid on stdout: records lost, a cursor from another run. */
function notices(page: LogPageView, follow: boolean): string[] {
  const out: string[] = [];
  if (page.reset) out.push('the cursor is newer than any record (the daemon lost its records): reading from the oldest');
  if (page.evicted > 0) out.push(`${page.evicted} record${page.evicted === 1 ? ' was' : 's were'} dropped before they were read (evicted from the buffer)`);
  if (page.truncated && !follow) out.push(`more records than this page holds (${page.truncatedBy ?? 'limit'}): go on with --since ${page.next}`);
  return out;
}

interface Summary {
  byLevel: Record<string, number>;
  traces: Array<{ hash: string; first: string; count: number }>;
  distinctTraces: number;
}

function summaryText(s: Summary): string {
  const levels = Object.entries(s.byLevel).map(([level, n]) => `${level} ${n}`);
  const lines = [`records by level: ${levels.length > 0 ? levels.join(', ') : 'none'}`, `stack traces: ${s.distinctTraces} distinct`];
  for (const t of s.traces) lines.push(`  ${String(t.count).padStart(5)}x ${t.hash} ${printable(t.first)}`);
  return lines.join('\n');
}

export async function logsCommand(opts: LogsCliOptions, global: GlobalOptions): Promise<void> {
  if (opts.summary && (opts.follow || opts.since !== undefined || opts.grep !== undefined || opts.level !== undefined)) {
    throw new UsageError('--summary takes no --follow, --since, --grep or --level (only --limit, the number of traces, and --json)');
  }
  if (opts.regex && opts.grep === undefined) throw new UsageError('--regex says how to read --grep: give --grep too');
  const target = singleTarget(global.target, 'logs');
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  try {
    if (opts.summary) {
      const summary = (await client.call('logs_summary', withTarget(opts.limit !== undefined ? { top: Math.min(opts.limit, 100) } : {}, target))) as Summary;
      process.stdout.write((opts.json ? JSON.stringify(summary, null, 2) : summaryText(summary)) + '\n');
      return;
    }
    const query = withTarget(
      {
        ...(opts.level !== undefined ? { level: opts.level } : {}),
        ...(opts.grep !== undefined ? { grep: opts.grep } : {}),
        ...(opts.regex ? { regex: true } : {}),
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      },
      target,
    );
    const read = (since: number | undefined) => client.call('logs', since === undefined ? query : { ...query, since }) as Promise<LogPageView>;
    if (!opts.follow) {
      const page = await read(opts.since);
      process.stdout.write(opts.json ? JSON.stringify(page, null, 2) + '\n' : page.records.map((r) => recordText(r) + '\n').join(''));
      for (const notice of notices(page, false)) process.stderr.write(`mcbridge logs: ${notice}\n`);
      return;
    }
    await follow(client, read, opts);
  } finally {
    client.close();
  }
}

/** Pages on from `since` (none: the newest records first) until Ctrl-C, SIGTERM or the daemon going away. */
async function follow(client: ApiClient, read: (since: number | undefined) => Promise<LogPageView>, opts: LogsCliOptions): Promise<void> {
  let stop!: () => void;
  const stopped = new Promise<'stopped'>((resolve) => (stop = () => resolve('stopped')));
  const onSigint = () => {
    process.exitCode = EXIT.interrupted; // Ctrl-C: 130, as `watch` exits
    stop();
  };
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', stop);
  const closed = new Promise<never>((_resolve, reject) => {
    client.once('close', () => reject(new McbridgeError('unavailable', 'the daemon closed the connection', { reason: 'daemon_unreachable' })));
  });
  closed.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    let since = opts.since;
    for (;;) {
      const page = await Promise.race([read(since), stopped, closed]);
      if (page === 'stopped') return;
      for (const record of page.records) process.stdout.write((opts.json ? JSON.stringify(record) : recordText(record)) + '\n');
      for (const notice of notices(page, true)) process.stderr.write(`mcbridge logs: ${notice}\n`);
      since = page.next;
      // A cut page goes on at once; a whole one waits for more to be written.
      if (page.truncated) continue;
      const waited = await Promise.race([new Promise<'again'>((resolve) => (timer = setTimeout(() => resolve('again'), FOLLOW_POLL_MS))), stopped, closed]);
      if (waited === 'stopped') return;
    }
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', stop);
  }
}
