/**
 * `logs`: a target's game-server log as structured records (docs/logs.md). Fed from the target's
 * `logFile` (a server mcbridge did not start, followed across rotation and truncation) and from a
 * launched server's console, when the server plugin publishes one. No CAPS: it answers with the
 * mod link down, which is when a log is wanted most.
 */
import path from 'node:path';
import { z } from 'zod';
import { definePlugin, defineTool, McbridgeError } from 'mcbridge';
import { serverConsole } from 'mcbridge/kit';
import { LogCapture } from './capture.js';
import { FileFollower } from './follow.js';
import { GREP_BUDGET_MS, grepMatcher, MAX_PATTERN } from './grep.js';
import { LEVELS, type Level } from './log4j.js';
import { logFileOf, RecordFile } from './persist.js';
import type { LogRecord } from './ring.js';

const logsOptions = z
  .object({
    logFile: z.string().min(1).optional().describe('a log file to follow, relative to the config folder (the target option `logFile` wins)'),
    stateDir: z.string().min(1).optional().describe('where the records are kept across restarts when the host names no state folder'),
    maxRecords: z.number().int().min(1).max(1_000_000).default(10_000),
    maxBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .default(16 * 1024 * 1024),
    fileBytes: z
      .number()
      .int()
      .min(4096)
      .default(32 * 1024 * 1024)
      .describe('bound of the records file and its one rotation together'),
    pollMs: z.number().int().min(10).max(60_000).default(250),
  })
  .strict();

const tool = defineTool.withOptions(logsOptions);
const DEFAULT_LIMIT = 200;
const DEFAULT_PAGE_BYTES = 256 * 1024;
const SEVERITY = new Map(LEVELS.map((l, i) => [l, i]));

const recordShape = z.looseObject({ seq: z.number().int(), message: z.string(), level: z.string().nullable(), at: z.number() });
const pageShape = z.object({
  records: z.array(recordShape),
  next: z.number().int(),
  dropped: z.boolean(),
  evicted: z.number().int(),
  truncated: z.boolean(),
  truncatedBy: z.enum(['items', 'bytes', 'time']).optional(),
  partial: z.boolean().optional(),
  bytes: z.number().int(),
  reset: z.literal(true).optional(),
});

export function createLogsPlugin() {
  let capture: LogCapture | null = null;
  let follower: FileFollower | null = null;
  let file: RecordFile | null = null;
  let consoleAttached = false;

  const live = (): LogCapture => {
    if (capture === null) throw new McbridgeError('unavailable', 'the logs capture is not running (the plugin failed to start: see `status`); restart the daemon after fixing its options');
    return capture;
  };

  const status = () => ({
    running: capture !== null,
    ring: capture?.ring.stats() ?? null,
    sources: capture?.counters() ?? {},
    logFile: follower ? { ...follower.status } : null,
    console: consoleAttached,
    persist: file ? { ...file.status } : null,
  });

  return definePlugin({
    name: 'logs',
    version: '1.0.0',
    apiVersion: 1,
    description: "A game server's log as structured records",
    options: logsOptions,
    guide:
      "`logs` reads the game server's log as records (level, thread, logger; stack traces joined) with a cursor; `logs_summary` shows counts by level and the most frequent stack traces; `log_trace` gives one trace whole.",
    services: [
      {
        name: 'capture',
        start(ctx) {
          const host = ctx.host;
          // The plugin's own option wins: a test or an embedding may keep the records elsewhere.
          const stateDir = ctx.config.stateDir ? path.resolve(ctx.configDir, ctx.config.stateDir) : host.stateDir;
          file = stateDir ? new RecordFile(logFileOf(stateDir, host.target), ctx.config.fileBytes) : null;
          const c = new LogCapture({ maxRecords: ctx.config.maxRecords, maxBytes: ctx.config.maxBytes, file });
          capture = c;
          const logFile = host.targetOptions?.logFile ?? (ctx.config.logFile ? path.resolve(ctx.configDir, ctx.config.logFile) : undefined);
          if (logFile !== undefined) {
            const f = new FileFollower(
              logFile,
              (chunk) => {
                c.write('file', chunk);
                // After the records it read, so a restart goes on past them instead of reading them twice.
                if (f.status.inode !== null) file?.mark({ inode: f.status.inode, offset: f.status.offset });
              },
              { pollMs: ctx.config.pollMs, resume: c.resume },
            );
            follower = f;
            follower.start();
          }
          const unsubscribe = serverConsole(ctx.host).subscribe((chunk) => {
            if (chunk.stream === 'mcbridge') c.note('mcbridge', chunk.data.toString('utf8'));
            else c.write(chunk.stream, chunk.data);
          });
          consoleAttached = true;
          return async () => {
            unsubscribe();
            await follower?.stop();
            c.stop();
            await file?.flush();
            follower = null;
            capture = null;
          };
        },
        status,
      },
    ],
    tools: [
      tool({
        name: 'logs',
        description:
          "The game server's log as records, oldest first: time, level, thread, logger, message; a stack trace is joined to its record (`trace`, and `hash` for `log_trace`). " +
          'Pass the `next` of the previous answer as `since` to get exactly the records not seen yet; `dropped` says some you never saw are missing (`evicted` from the buffer, or cut: `truncated`, page on with `next`). ' +
          'Without `since`: the newest records. `level` keeps that level and more severe ones (WARN: WARN, ERROR, FATAL). `grep` is a case-insensitive substring of the message or trace ' +
          `(at most ${MAX_PATTERN} characters); \`regex: true\` makes it a regular expression (no nested quantifiers). A search stops after ${GREP_BUDGET_MS} ms and says \`partial\`: page on with \`next\`. ` +
          'Works while the game is disconnected. Use `logs_summary` first for counts and repeated exceptions.',
        input: z
          .object({
            since: z.number().int().nonnegative().optional().describe('the `next` of the previous answer; omit for the newest records'),
            level: z
              .enum(LEVELS as [Level, ...Level[]])
              .optional()
              .describe('this level and more severe ones'),
            grep: z.string().min(1).optional().describe('case-insensitive text to look for in the message or trace'),
            regex: z.boolean().optional().describe('grep is a regular expression'),
            limit: z.number().int().min(1).max(10_000).optional().describe(`most records in one answer (default ${DEFAULT_LIMIT})`),
            max_bytes: z
              .number()
              .int()
              .min(1)
              .max(8 * 1024 * 1024)
              .optional()
              .describe(`most bytes of records in one answer (default ${DEFAULT_PAGE_BYTES})`),
          })
          .strict(),
        output: pageShape,
        annotations: { readOnly: true, idempotent: true },
        run: async (args) => {
          const c = live();
          const matchText = args.grep === undefined ? null : grepMatcher(args.grep, args.regex ?? false);
          const min = args.level === undefined ? null : SEVERITY.get(args.level)!;
          const filter =
            matchText === null && min === null ? undefined : (r: LogRecord) => (min === null || (r.level !== null && SEVERITY.get(r.level)! >= min)) && (matchText === null || matchText(r));
          const page = c.ring.page({
            since: args.since,
            limit: args.limit ?? DEFAULT_LIMIT,
            maxBytes: args.max_bytes ?? DEFAULT_PAGE_BYTES,
            filter,
            deadline: matchText === null ? undefined : performance.now() + GREP_BUDGET_MS,
          });
          return page.truncatedBy === 'time' ? { ...page, partial: true } : page;
        },
      }),
      tool({
        name: 'logs_summary',
        description:
          'What the log holds: records by level (since capture began, restored records included), the most frequent stack traces folded (first line, hash, count, first and last seen), the buffer and the sources (lines, bytes, cut lines, binary). Then `log_trace {hash}` for one trace, `logs` to read.',
        input: z.object({ top: z.number().int().min(1).max(100).optional().describe('how many traces (default 10)') }).strict(),
        annotations: { readOnly: true, idempotent: true },
        run: async (args) => {
          const c = live();
          const traces = c.folds.top(args.top ?? 10).map(({ trace: _trace, ...fold }) => fold);
          return { byLevel: { ...c.folds.byLevel }, traces, distinctTraces: c.folds.size, ...status() };
        },
      }),
      tool({
        name: 'log_trace',
        description: 'One stack trace whole, by the `hash` that `logs` or `logs_summary` showed: its record line and every frame, with how often it was seen.',
        input: z.object({ hash: z.string().regex(/^[0-9a-f]{12}$/, 'hash is the 12 hex characters `logs` shows, e.g. "3fa2c9d01b7e"') }).strict(),
        annotations: { readOnly: true, idempotent: true },
        run: async (args) => {
          const fold = live().folds.get(args.hash);
          if (!fold) throw new McbridgeError('not_found', `no stack trace with hash ${args.hash} is known (it may have been forgotten); call logs_summary for the known ones`);
          return fold;
        },
      }),
    ],
  });
}

export default createLogsPlugin;
