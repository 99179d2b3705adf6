import fs from 'node:fs';
import { pino, type Logger } from 'pino';
import { prettyLine } from './pretty-log.js';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

/**
 * stdout is data (MCP stdio, `call` results, `watch` lines), so every log line goes to
 * fd 2. Synchronous writes keep the last lines when a CLI exits right after logging.
 * `pretty` (the default on a terminal) is for people, coloured only on a terminal; `json`
 * (the default otherwise) for log collectors.
 */
export function createLogger(options: { level?: string; name?: string; format?: LogFormat } = {}): Logger {
  const level = options.level ?? process.env.MCBRIDGE_LOG_LEVEL ?? 'info';
  const tty = process.stderr.isTTY === true;
  const format = options.format ?? (tty ? 'pretty' : 'json');
  const settings = { name: options.name ?? 'mcbridge', level, base: { pid: process.pid } };
  if (format === 'json') return pino(settings, pino.destination({ fd: 2, sync: true }));
  const colour = tty && !process.env.NO_COLOR;
  return pino(settings, { write: (line: string) => void fs.writeSync(2, prettyLine(line, colour)) });
}

/** A logger that drops everything, for library use and quiet tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
