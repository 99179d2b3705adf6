/**
 * The options of `mcbridge mcp`, apart from the command so that the program's definition and the
 * quick path (quick-call.ts) share its defaults without loading the command.
 */
import { DAEMON_OPTIONS } from '../../authoring/options.js';
import type { Vantage } from '../../host/link/discovery.js';

export interface McpCliOptions {
  transport: 'stdio' | 'http';
  host: string;
  port?: number;
  token?: string;
  tokenFile?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  sessionIdle?: number;
  startupWait?: number;
  vantage: Vantage;
  embedded?: boolean;
  /** A file, false for --no-config, true (the default) to search the working directory. */
  config?: string | boolean;
  sim?: boolean;
  readOnly?: boolean;
  modHost?: string;
  modPort?: number;
  portFile?: string;
  serverDir?: string;
}

/** What `mcbridge mcp` with no options of its own runs with: the program's defaults (program.ts). */
export const PLAIN_MCP_OPTIONS: Readonly<McpCliOptions> = {
  transport: 'stdio',
  host: '127.0.0.1',
  vantage: DAEMON_OPTIONS.vantage.default,
};
