/**
 * The activity log: one line per call that reaches the daemon through any front-end (the local
 * API, which the CLI and the MCP server use too), with who asked, what, how long it took and how
 * it ended. Arguments are redacted by core/util/redact.ts: secret-named keys, URL credentials,
 * paths and queries never appear; long strings and deep values are cut.
 *
 * Lines go to pino (debug for read-only calls that succeeded, info for mutating or refused ones,
 * so those are always visible at the default level) and, with `--activity-log FILE`, to a
 * JSON-lines file that rotates by size.
 */
import fs from 'node:fs';
import type { ErrorCode } from '../host/errors.js';
import type { Logger } from '../util/log.js';
import { redactValue } from '../util/redact.js';

export const DEFAULT_ACTIVITY_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_ACTIVITY_KEEP = 3;

export interface Caller {
  /** Which front-end: `api` (a plain local-API client), `cli`, `mcp`. */
  frontend: string;
  /** The local-API connection, numbered from 1 per daemon run. */
  conn: number;
  /** The MCP session, when the front-end said. */
  session?: string;
  remote?: string;
}

export interface ActivityRecord {
  /** `start` for a mutating call as it arrives; `call` when any call ends. */
  event: 'start' | 'call';
  at: string;
  id: string | number | null;
  tool: string;
  caller: Caller;
  mutating: boolean;
  args: unknown;
  ms?: number;
  outcome?: 'ok' | ErrorCode;
}

export interface ActivityLogOptions {
  log: Logger;
  file?: string;
  maxBytes?: number;
  keep?: number;
}

/** A file that is renamed to FILE.1 (FILE.1 to FILE.2, ...) when it grows past maxBytes. */
class RotatingFile {
  private fd: number;
  private size: number;

  constructor(private readonly file: string, private readonly maxBytes: number, private readonly keep: number) {
    this.fd = fs.openSync(file, 'a', 0o600);
    this.size = fs.fstatSync(this.fd).size;
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    fs.writeSync(this.fd, line);
    this.size += bytes;
  }

  private rotate(): void {
    fs.closeSync(this.fd);
    for (let i = this.keep - 1; i >= 1; i--) {
      if (fs.existsSync(`${this.file}.${i}`)) fs.renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    }
    if (this.keep > 0) fs.renameSync(this.file, `${this.file}.1`);
    else fs.rmSync(this.file, { force: true });
    this.fd = fs.openSync(this.file, 'a', 0o600);
    this.size = 0;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export class ActivityLog {
  private file: RotatingFile | null;
  private readonly log: Logger;

  constructor(options: ActivityLogOptions) {
    this.log = options.log;
    this.file = options.file
      ? new RotatingFile(options.file, options.maxBytes ?? DEFAULT_ACTIVITY_MAX_BYTES, options.keep ?? DEFAULT_ACTIVITY_KEEP)
      : null;
  }

  /** Note a call's arrival; the returned function notes its end (call it exactly once). */
  begin(call: { id: string | number | null; tool: string; caller: Caller; mutating: boolean; args: unknown }): (outcome: 'ok' | ErrorCode) => void {
    const started = performance.now();
    const arrived = Date.now();
    // On the hot path (a read that succeeds, no file, debug off) nothing is built, formatted or redacted.
    let base: Omit<ActivityRecord, 'event'> | undefined;
    const record = () => (base ??= { at: new Date(arrived).toISOString(), id: call.id, tool: call.tool, caller: call.caller, mutating: call.mutating, args: redactValue(call.args) });
    if (call.mutating) this.write({ event: 'start', ...record() }, 'info');
    return (outcome) => {
      const level = call.mutating || outcome !== 'ok' ? 'info' : 'debug';
      if (!this.file && !this.log.isLevelEnabled(level)) return;
      this.write({ event: 'call', ...record(), ms: Math.round((performance.now() - started) * 10) / 10, outcome }, level);
    };
  }

  private write(record: ActivityRecord, level: 'info' | 'debug'): void {
    const what = record.event === 'start' ? 'started' : record.outcome === 'ok' ? 'ok' : record.outcome;
    this.log[level]({ activity: record }, `${record.tool} ${what} (${record.caller.frontend}#${record.caller.conn})`);
    if (!this.file) return;
    try {
      this.file.write(JSON.stringify(record) + '\n');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not write the activity log');
    }
  }

  /** Calls that end after this still reach the process log, not the file. */
  close(): void {
    this.file?.close();
    this.file = null;
  }
}
