/**
 * `mcbridge mcp`: the front-end process. stdio (stdout carries nothing but protocol) or
 * streamable HTTP; optionally hosting the daemon itself (`--embedded`).
 */
import { inspect, type InspectOptions } from 'node:util';
import type { Logger } from '../../util/log.js';
import type { Vantage } from '../../host/link/discovery.js';
import type { EmbeddedDaemonOptions } from './embedded.js';
import { McpFrontend } from './frontend.js';
import type { HttpOptions } from './http.js';
import { StdioTransport } from './stdio.js';
import { resolveToken } from './token.js';

// The command takes its logger from here, so that pino comes in the build's bundle with the rest
// of the front-end (scripts/bundle-mcp.mjs) rather than as modules of its own.
export { createLogger } from '../../util/log.js';

export interface RunMcpOptions {
  transport: 'stdio' | 'http';
  /** The daemon's local API. */
  api: { host: string; port: number; token?: string };
  vantage: Vantage;
  startupWaitMs?: number;
  http?: Omit<HttpOptions, 'log' | 'token'> & { token?: string; tokenFile?: string };
  /** Host the daemon in this process when none answers. */
  embedded?: Omit<EmbeddedDaemonOptions, 'api' | 'log' | 'vantage'>;
  /** The target a call that names none goes to (`--target`); without it, the daemon's default. */
  target?: string;
  log: Logger;
}

/**
 * stdout is the protocol: anything printed through console goes to stderr instead.
 * `console.dir` writes to stdout directly (not through `console.log`), so it is moved too.
 */
export function keepStdoutForProtocol(target: Console = console): void {
  const toStderr = (...args: unknown[]) => target.error(...args);
  target.log = toStderr;
  target.info = toStderr;
  target.debug = toStderr;
  target.dir = (item?: unknown, options?: InspectOptions) => target.error(inspect(item, { customInspect: false, ...options }));
}

/** Run until stdin ends (stdio) or a signal arrives (both). */
export async function runMcp(options: RunMcpOptions): Promise<void> {
  const { log } = options;
  // Refuse an unsafe HTTP setup before touching anything.
  const token = options.transport === 'http' ? resolveToken(options.http?.token, options.http?.tokenFile) : null;
  if (options.transport === 'stdio') keepStdoutForProtocol();

  // Each transport and the embedded daemon load only when asked for (the first tools/list waits for them).
  const embedded = options.embedded ? new (await import('./embedded.js')).EmbeddedDaemon({ ...options.embedded, vantage: options.vantage, api: { ...options.api }, log }) : null;
  const frontend = new McpFrontend({
    api: options.api,
    vantage: options.vantage,
    startupWaitMs: options.startupWaitMs,
    ...(options.target !== undefined ? { target: options.target } : {}),
    log: log.child({ part: 'mcp' }),
    onUnreachable: embedded ? () => embedded.startIfNeeded() : undefined,
  });

  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let closeTransport: () => Promise<void> = async () => {};

  try {
    if (options.transport === 'http') {
      const { startHttp } = await import('./http.js');
      const server = await startHttp(frontend, { ...options.http, token: token?.token, log: log.child({ part: 'mcp-http' }) });
      closeTransport = () => server.close();
      frontend.start();
      if (token?.generated) {
        process.stderr.write(`mcbridge MCP bearer token (shown once; stored in ${token.file}): ${token.token}\n`);
      } else if (token?.file) {
        log.info({ tokenFile: token.file }, 'using the MCP bearer token stored in the token file');
      }
      log.info({ url: server.url, auth: token ? 'bearer' : 'none' }, `mcbridge MCP endpoint on ${server.url}`);
      process.stdout.write(JSON.stringify({ transport: 'http', url: server.url, port: server.port, auth: token ? 'bearer' : 'none' }) + '\n');
    } else {
      frontend.start();
      const transport = new StdioTransport(process.stdin, process.stdout, { log: log.child({ part: 'mcp-stdio' }) });
      const server = frontend.createServer();
      // The client going away (stdin closed) ends this process.
      process.stdin.once('end', stop);
      process.stdin.once('close', stop);
      const onclose = server.onclose;
      server.onclose = () => {
        onclose?.();
        stop();
      };
      await server.connect(transport);
      log.info({ daemon: frontend.upstream.daemonAddress }, 'mcbridge MCP server on stdio');
    }
    await stopped;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await closeTransport();
    await frontend.close();
    await embedded?.stop();
    if (options.transport === 'stdio') process.stdin.destroy();
  }
}
