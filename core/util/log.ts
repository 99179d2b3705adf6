import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * stdout is data (MCP stdio, `call` results, `watch` lines), so every log line goes to
 * fd 2. Synchronous writes keep the last lines when a CLI exits right after logging.
 */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.MCBRIDGE_LOG_LEVEL ?? 'info';
  return pino(
    { name: options.name ?? 'mcbridge', level, base: { pid: process.pid } },
    pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger that drops everything, for library use and quiet tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
