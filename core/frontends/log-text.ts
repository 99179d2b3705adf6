/**
 * A `logs` record as a line for a person (`mcbridge logs`, the MCP logs resource):
 * `12:34:56 ERROR [Server thread] logger: message`, then its trace lines. The text comes from a
 * game server's output, so control characters are shown escaped: a log line must not drive the
 * reader's terminal.
 */

/** The fields of a `logs` record this reads; anything else it carries is left out. */
export interface LogRecordView {
  seq: number;
  at: number;
  time?: string | null;
  level?: string | null;
  thread?: string | null;
  logger?: string | null;
  message: string;
  trace?: string;
}

/** The page `logs` answers, as far as a reader pages on with it. */
export interface LogPageView {
  records: LogRecordView[];
  next: number;
  dropped: boolean;
  evicted: number;
  truncated: boolean;
  truncatedBy?: 'items' | 'bytes' | 'time';
  reset?: true;
}

// C0 but tab, DEL, C1: escape sequences start with ESC (0x1b) or CSI (0x9b).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it finds
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** The record's line, then each trace line as it was printed. */
export function recordText(record: LogRecordView): string {
  const head = [record.time ?? clock(record.at), record.level, record.thread ? `[${record.thread}]` : null, record.logger].filter((p) => p !== null && p !== undefined && p !== '').join(' ');
  // A plain line (no Log4j layout) has nothing before its message but the time it was read.
  const line = record.level || record.thread ? `${head}: ${record.message}` : `${head} ${record.message}`;
  const lines = [printable(line)];
  if (record.trace) for (const t of record.trace.split('\n')) lines.push(printable(t));
  return lines.join('\n');
}
