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
import type { ErrorCode } from '../host/errors.js';
import type { Logger } from '../util/log.js';
import { redactValue } from '../util/redact.js';
import { RotatingFile, type RotatingFileStatus } from './rotating-file.js';

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

export class ActivityLog {
  private file: RotatingFile | null;
  private losing = false;
  private readonly log: Logger;

  constructor(options: ActivityLogOptions) {
    const log = (this.log = options.log);
    const file = options.file;
    this.file = file
      ? new RotatingFile(file, options.maxBytes ?? DEFAULT_ACTIVITY_MAX_BYTES, options.keep ?? DEFAULT_ACTIVITY_KEEP, () =>
          log.warn({ file }, 'the activity log file was removed or replaced (logrotate?); opened it again'),
        )
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
    const lost = this.file.write(JSON.stringify(record) + '\n');
    // One warning when lines start being lost and one when they stop (a full disk would otherwise warn on every call).
    if (lost && !this.losing) {
      this.log.warn({ err: lost.message, file: this.file.file }, 'could not write the activity log; its lines are lost (counted in status: api.activityLog.lost) until it can');
    } else if (!lost && this.losing) {
      this.log.warn({ file: this.file.file, lost: this.file.status().lost }, 'the activity log is written again');
    }
    this.losing = lost !== null;
  }

  /** For the daemon's status: lines lost and reopenings, when a file is configured. */
  status(): RotatingFileStatus | null {
    return this.file?.status() ?? null;
  }

  /** Calls that end after this still reach the process log, not the file. */
  close(): void {
    this.file?.close();
    this.file = null;
  }
}
