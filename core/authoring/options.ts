/**
 * The daemon's options, declared once: config key, command-line flag, help text, accepted value,
 * default, and how each is resolved. `McbridgeConfig`, the config schema, the CLI's flags and
 * merge, and `mcbridge config` all read this table (docs/decisions.md, "One option table"). It
 * lives in the public API because `McbridgeConfig`'s types come from it, and the public API may
 * not import the daemon.
 */
import type { ValueOf, ValueSpec } from './option-value.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Where a flag is offered: on these commands, or on the program (before or after any command). */
export type OptionCommand = 'run' | 'discover' | 'mcp' | 'sim' | 'global';

export interface OptionSpec {
  /** commander's spelling, which camelCases to the config key: `--buffer <n>`, `--sim`, `--no-watch`. */
  flag: string;
  /** The `--help` line. */
  description: string;
  /** What it accepts (option-value.ts); checks the config value and the parsed flag alike, with the same messages. */
  value: ValueSpec;
  /** When nothing else gives a value. None where absence means something (discover the port, no token). */
  default?: unknown;
  /** Shown as "[redacted]" by `mcbridge config`. */
  secret?: boolean;
  /** A path: relative to the config file when the config gives it, to the working directory as a flag. */
  path?: boolean;
  /** Read by the CLI: a flag wins over it, and it wins over the config. Empty counts as unset. */
  env?: string;
  /** The predecessor's name for the same variable (mc-agent-bridge), read when `env` is unset. */
  legacyEnv?: string;
  /**
   * The predecessor's client's name for it (its LocalApiClient), read by the client commands only,
   * after `env` and before the config: `run` does not take it as the token to require.
   */
  clientEnv?: string;
  /** Read by port discovery itself (core/host/link/discovery.ts), only when neither flag nor config gives a value. */
  discoveryEnv?: string;
  commands: readonly OptionCommand[];
  /**
   * `daemon`: read when the daemon starts (a config change waits for a restart), printed under
   * `daemon`. `policy`: the config's applies on every reload, beneath the flags, printed under
   * `policy`. `config`: how the config file itself is treated.
   */
  group: 'daemon' | 'policy' | 'config';
}

/** A whole number in [min, max]; a number that misses gets "expected <expected>", the flag's refusal too. */
function wholeNumber(expected: string, min: number, max?: number) {
  return { type: 'integer', min, ...(max !== undefined ? { max } : {}), expected } as const;
}

function text(expected: string) {
  return { type: 'text', expected } as const;
}

const DISCOVERY = ['run', 'discover', 'mcp'] as const;

/**
 * The table. Each entry's JSDoc is what an editor shows on the `McbridgeConfig` field of the same
 * name (config-schema.ts maps over it homomorphically, which keeps it); `description` is the `--help` line.
 */
export const DAEMON_OPTIONS = {
  /** `server` (default) or `client`; client only for an explicit client endpoint. */
  vantage: {
    flag: '--vantage <vantage>',
    description: 'server or client; client only for an explicit client endpoint',
    value: { type: 'enum', values: ['server', 'client'], expected: 'server or client' },
    default: 'server',
    commands: [...DISCOVERY, 'sim'],
    group: 'daemon',
  },
  /** Game directory holding mc-agent-server/ (relative to this file). */
  serverDir: {
    flag: '--server-dir <dir>',
    description: 'game directory holding mc-agent-server/',
    value: text('a directory'),
    path: true,
    discoveryEnv: 'MC_AGENT_SERVER_DIR',
    commands: DISCOVERY,
    group: 'daemon',
  },
  /** The exact port.txt to read (relative to this file). */
  portFile: {
    flag: '--port-file <file>',
    description: 'the exact port.txt to read',
    value: text('a file'),
    path: true,
    discoveryEnv: 'MC_AGENT_PORT_FILE',
    commands: DISCOVERY,
    group: 'daemon',
  },
  /** The mod port itself, instead of discovering it. */
  modPort: {
    flag: '--mod-port <port>',
    description: 'the mod port itself',
    value: wholeNumber('a TCP port 1-65535', 1, 65535),
    commands: DISCOVERY,
    group: 'daemon',
  },
  /** Run on an in-process simulated mod. */
  sim: {
    flag: '--sim',
    description: 'run on an in-process simulated mod instead of a game',
    value: { type: 'boolean' },
    default: false,
    commands: ['run'],
    group: 'daemon',
  },
  /** Address of the mod (default 127.0.0.1). */
  modHost: {
    flag: '--mod-host <host>',
    description: 'address of the mod',
    value: text('a host name or address'),
    default: '127.0.0.1',
    commands: ['run'],
    group: 'daemon',
  },
  /** How the mod is reached: `legacy` (the loopback JSON-lines socket, default) or `control` (control protocol 1 over TLS, docs/control.md). */
  transport: {
    flag: '--transport <transport>',
    description: "legacy (the mod's loopback socket) or control (its TLS control protocol on the game port)",
    value: { type: 'enum', values: ['legacy', 'control'], expected: 'legacy or control' },
    default: 'legacy',
    commands: ['run'],
    group: 'daemon',
  },
  /** transport control: the game port, `host:port`. */
  address: {
    flag: '--address <host:port>',
    description: 'transport control: the game port of the server (host:port)',
    value: text('host:port'),
    commands: ['run'],
    group: 'daemon',
  },
  /** transport control: the SHA-256 fingerprint of the server's certificate (`sha256:<hex>`); or caFile; or serverDir (its control/fingerprint.txt is read). */
  pin: {
    flag: '--pin <sha256>',
    description: "transport control: the server certificate's SHA-256 fingerprint",
    value: text('sha256:<64 hex digits>'),
    commands: ['run'],
    group: 'daemon',
  },
  /** transport control: a PEM file trusted as the only root (the server's control/server.crt, or its CA). */
  caFile: {
    flag: '--ca-file <file>',
    description: 'transport control: trust this PEM certificate as the only root',
    value: text('a PEM file'),
    path: true,
    commands: ['run'],
    group: 'daemon',
  },
  /** transport control with caFile: the name the certificate must carry (default: the address's host). */
  serverName: {
    flag: '--server-name <name>',
    description: 'transport control with --ca-file: the name the certificate must carry',
    value: text('a host name'),
    commands: ['run'],
    group: 'daemon',
  },
  /** transport control: a file holding the credential (`mca1.<id>.<secret>`); read at each connect. */
  tokenFile: {
    flag: '--token-file <file>',
    description: 'transport control: file holding the control credential (mca1.…)',
    value: text('a file'),
    path: true,
    commands: ['run'],
    group: 'daemon',
  },
  /** transport control: the environment variable holding the credential. */
  tokenEnv: {
    flag: '--token-env <name>',
    description: 'transport control: environment variable holding the control credential',
    value: text('an environment variable name'),
    commands: ['run'],
    group: 'daemon',
  },
  /** Seconds between attempts to reach the mod, fixed (the predecessor's flag); without it the pause grows from 0.25 s to 5 s. */
  reconnectDelay: {
    flag: '--reconnect-delay <seconds>',
    description: 'a fixed pause between attempts to reach the mod (default: from 0.25 s, doubling up to 5 s)',
    value: { type: 'number', min: 0.05, max: 3600, expected: 'a number of seconds 0.05-3600' },
    commands: ['run'],
    group: 'daemon',
  },
  /** Events kept for replay (default 1000). */
  buffer: {
    flag: '--buffer <n>',
    description: 'events kept for replay',
    value: wholeNumber('a positive whole number', 1),
    // DEFAULT_BUFFER in core/host/events/event-log.ts, written out so that reading the table loads
    // nothing else (every CLI command reads it); a test keeps the two equal.
    default: 1000,
    commands: ['run'],
    group: 'daemon',
  },
  /** MiB of event JSON kept for replay at most (default 64); the oldest events go first, counted as evicted. */
  bufferBytes: {
    flag: '--buffer-bytes <MiB>',
    description: 'MiB of event JSON kept for replay at most; past it the oldest events are evicted',
    value: wholeNumber('a whole number of MiB 1-65536', 1, 65536),
    // DEFAULT_BUFFER_BYTES in core/host/events/event-log.ts, in MiB; a test keeps the two equal.
    default: 64,
    commands: ['run'],
    group: 'daemon',
  },
  /** MiB of pushed events a subscriber may fall behind before it is sent a `gap` frame instead (default 8). */
  pushBuffer: {
    flag: '--push-buffer <MiB>',
    description: 'how far (MiB) a subscriber may fall behind before it gets a gap frame instead of events',
    value: wholeNumber('a whole number of MiB 1-4096', 1, 4096),
    // DEFAULT_PUSH_BUFFER_BYTES in core/api/server.ts, in MiB; a test keeps the two equal.
    default: 8,
    commands: ['run'],
    group: 'daemon',
  },
  /**
   * Also write the activity log (one JSON line per tool call: caller, tool, redacted arguments,
   * duration, outcome) to this file; it rotates at 10 MiB and keeps 3 old files (relative to this file).
   */
  activityLog: {
    flag: '--activity-log <file>',
    description: 'also write one JSON line per tool call (caller, tool, redacted arguments, duration, outcome) to this file; rotates at 10 MiB, keeps 3',
    value: text('a file path'),
    path: true,
    commands: ['run'],
    group: 'daemon',
  },
  /** Let the API bind a non-loopback `apiHost` (requires `apiToken`). */
  allowRemote: {
    flag: '--allow-remote',
    description: 'allow a non-loopback --api-host (requires --api-token)',
    value: { type: 'boolean' },
    default: false,
    commands: ['run'],
    group: 'daemon',
  },
  /** Address of the daemon's local API (default 127.0.0.1). */
  apiHost: {
    flag: '--api-host <host>',
    description: 'daemon API address',
    value: text('a host name or address'),
    // DEFAULT_API_HOST in core/api/server.ts and address.ts; a test keeps them equal.
    default: '127.0.0.1',
    env: 'MCBRIDGE_API_HOST',
    legacyEnv: 'MC_AGENT_API_HOST',
    commands: ['global'],
    group: 'daemon',
  },
  /** Port of the daemon's local API; 0 = any free port (default 8765). */
  apiPort: {
    flag: '--api-port <port>',
    description: 'daemon API port (0 = any free port, for run)',
    value: wholeNumber('a TCP port 0-65535', 0, 65535),
    // DEFAULT_API_PORT in core/api/server.ts and address.ts; a test keeps them equal.
    default: 8765,
    env: 'MCBRIDGE_API_PORT',
    legacyEnv: 'MC_AGENT_API_PORT',
    commands: ['global'],
    group: 'daemon',
  },
  /** Shown as "[redacted]" by `mcbridge config`. Prefer MCBRIDGE_API_TOKEN over committing it. */
  apiToken: {
    flag: '--api-token <token>',
    description: 'token the daemon requires (at least 16 characters)',
    // The same bound as checkTokenStrength in core/api/connection-guard.ts, which a test keeps equal.
    value: { type: 'text', min: 16, expected: 'a token of at least 16 characters, e.g. the output of: openssl rand -hex 16' },
    secret: true,
    env: 'MCBRIDGE_API_TOKEN',
    clientEnv: 'MC_AGENT_IPC_TOKEN',
    commands: ['global'],
    group: 'daemon',
  },
  /** pino level for the stderr logs (default info); MCBRIDGE_LOG_LEVEL wins over it. */
  logLevel: {
    flag: '--log-level <level>',
    description: `pino level for stderr logs: ${LOG_LEVELS.join(', ')}`,
    value: { type: 'enum', values: LOG_LEVELS, expected: `one of ${LOG_LEVELS.join(', ')}` },
    default: 'info',
    env: 'MCBRIDGE_LOG_LEVEL',
    commands: ['global'],
    group: 'daemon',
  },
  /** How stderr logs look: `pretty` lines for a person or `json` lines; default pretty on a terminal, json otherwise. */
  logFormat: {
    flag: '--log-format <format>',
    description: 'stderr logs as pretty lines or json (default: pretty on a terminal, json otherwise)',
    value: { type: 'enum', values: ['json', 'pretty'], expected: 'json or pretty' },
    env: 'MCBRIDGE_LOG_FORMAT',
    commands: ['global'],
    group: 'daemon',
  },
  /** Keep only tools annotated read-only. */
  readOnly: {
    flag: '--read-only',
    description: 'hide every tool that can change the game',
    value: { type: 'boolean' },
    default: false,
    commands: ['run'],
    group: 'policy',
  },
  /** Tool names, globs (`*`, `?`) or selectors (`cap:<token>`, `effect:mutating`, `plugin:<name>`...); when given, only matching tools stay. */
  allow: {
    flag: '--allow <globs>',
    description: 'only these tools (names or globs, comma-separated), e.g. "state,entities,sky_*"',
    value: { type: 'globs' },
    commands: ['run'],
    group: 'policy',
  },
  /** Tool names, globs or selectors removed even when allowed. */
  deny: {
    flag: '--deny <globs>',
    description: 'hide these tools (names or globs, comma-separated)',
    value: { type: 'globs' },
    commands: ['run'],
    group: 'policy',
  },
  /** Reload plugins, composites and policy when this file changes (default true). */
  watch: {
    flag: '--no-watch',
    description: 'do not reload plugins, composites and policy when the config file changes',
    value: { type: 'boolean' },
    default: true,
    commands: ['run'],
    group: 'config',
  },
} as const satisfies Record<string, OptionSpec>;

type Table = typeof DAEMON_OPTIONS;
export type OptionKey = keyof Table;
type OptionGroup = OptionSpec['group'];
/** The keys of one group, e.g. `GroupKey<'daemon'>`. */
export type GroupKey<G extends OptionGroup> = { [K in OptionKey]: Table[K]['group'] extends G ? K : never }[OptionKey];

/** An option's value once resolved: never undefined when the table gives a default. */
export type ResolvedValue<K extends OptionKey> = Table[K] extends { default: unknown } ? OptionValue<K> : OptionValue<K> | undefined;

/** What one option's value is, as its table entry declares it. */
export type OptionValue<K extends OptionKey> = ValueOf<Table[K]['value']>;

/** The keys in table order (which is also `--help` order). */
export const OPTION_KEYS = Object.keys(DAEMON_OPTIONS) as OptionKey[];

export function groupKeys<G extends OptionGroup>(group: G): GroupKey<G>[] {
  return OPTION_KEYS.filter((key) => DAEMON_OPTIONS[key].group === group) as GroupKey<G>[];
}
