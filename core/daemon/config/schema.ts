/** The zod check of what a config file exported; its types are in core/authoring/config.ts. */
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const glob = z.string().trim().min(1, 'must be a tool name or glob, e.g. "state" or "sky_*"');

/** Top-level keys, checked strictly so a typo is named rather than ignored. */
export const configSchema = z.object({
  vantage: z.enum(['server', 'client']).optional(),
  sim: z.boolean().optional(),
  serverDir: z.string().min(1).optional(),
  portFile: z.string().min(1).optional(),
  modHost: z.string().min(1).optional(),
  modPort: z.number().int().min(1).max(65535).optional(),
  buffer: z.number().int().min(1).optional(),
  pushBuffer: z.number().int().min(1).max(4096).optional(),
  apiHost: z.string().min(1).optional(),
  apiPort: z.number().int().min(0).max(65535).optional(),
  apiToken: z.string().min(1).optional(),
  allowRemote: z.boolean().optional(),
  logLevel: z.enum(LOG_LEVELS).optional(),
  readOnly: z.boolean().optional(),
  allow: z.array(glob).optional(),
  deny: z.array(glob).optional(),
  plugins: z.array(z.unknown()).optional(),
  composites: z.array(z.unknown()).optional(),
  watch: z.boolean().optional(),
}).strict();

/** The daemon options a config may set; the CLI merges them under its flags. */
export const DAEMON_KEYS = [
  'vantage', 'sim', 'serverDir', 'portFile', 'modHost', 'modPort', 'buffer', 'pushBuffer', 'apiHost', 'apiPort', 'apiToken', 'allowRemote', 'logLevel',
] as const;
export type DaemonKey = (typeof DAEMON_KEYS)[number];
