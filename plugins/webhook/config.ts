import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { EVENT_CATEGORIES, McbridgeError } from 'mcbridge';
import { redactUrl } from './redact.js';
import type { ReceiverConfig } from './receiver.js';

/**
 * Where receivers come from. The URL and the secret are credentials, so they are read only from
 * the environment or a file (never a flag, which `ps` shows): the predecessor's
 * `MC_AGENT_WEBHOOK_*` variables and JSON file for one receiver, or a list of receivers that name
 * the variables or files holding theirs.
 */
const seconds = z.number().finite().min(0);
export const receiverOptions = z
  .object({
    url: z.string().optional(),
    secret: z.string().optional(),
    urlEnv: z.string().min(1).optional(),
    secretEnv: z.string().min(1).optional(),
    urlFile: z.string().min(1).optional(),
    secretFile: z.string().min(1).optional(),
    events: z.union([z.string(), z.array(z.string())]).optional(),
    queueSize: z.number().int().min(1).optional(),
    maxAttempts: z.number().int().min(1).optional(),
    backoff: seconds.optional(),
    maxBackoff: seconds.optional(),
    timeout: z.number().finite().positive().optional(),
  })
  .strict();
export type ReceiverOptions = z.infer<typeof receiverOptions>;

/** The spool's default byte bound, as `mcbridge forward --spool-max-bytes`. */
export const DEFAULT_SPOOL_MAX_BYTES = 16 * 1024 * 1024;

const inConfigFile = (kind: 'url' | 'secret') =>
  z
    .never({
      error: `a ${kind} written into mcbridge.config.ts would be committed and printed; name the environment variable (${kind}Env) or the file (${kind}File) that holds it`,
    })
    .optional();

/**
 * The plugin's options: `plugins: [['webhook', { receivers, spool }]]` in mcbridge.config.ts.
 * A receiver's URL (whose path and query are often the token) and secret are credentials, and a
 * config is code that gets committed and printed by `mcbridge config`: so it names the
 * environment variable (`urlEnv`, `secretEnv`) or the file (`urlFile`, `secretFile`, relative to
 * the config) holding each, never the value. Per receiver: `events` (a comma list or a list, or
 * `*`; default chat,game,mark,error), `queueSize` (256), `maxAttempts` (5, the first included),
 * `backoff` (1 s, doubled with jitter up to `maxBackoff`, 30 s), `timeout` (10 s per attempt).
 * Without `receivers`: the MC_AGENT_WEBHOOK_* environment. `spool` (relative to the config) keeps
 * the queues and the stream cursor across restarts, within `spoolMaxBytes` (16 MiB).
 */
export const webhookOptions = z
  .object({
    receivers: z.array(receiverOptions.extend({ url: inConfigFile('url'), secret: inConfigFile('secret') }).strict()).optional(),
    spool: z.string().min(1).optional(),
    spoolMaxBytes: z.number().int().min(4096, 'spoolMaxBytes must be at least 4096 bytes').optional(),
  })
  .strict();
export type WebhookOptions = z.infer<typeof webhookOptions>;

/** The options with their paths made absolute from `dir` (the config's folder). */
export function resolvePaths(options: WebhookOptions, dir: string): WebhookOptions {
  const at = (file: string | undefined) => (file === undefined ? undefined : path.resolve(dir, file));
  return {
    ...options,
    ...(options.spool !== undefined ? { spool: at(options.spool) } : {}),
    ...(options.receivers ? { receivers: options.receivers.map((r) => ({ ...r, ...(r.urlFile ? { urlFile: at(r.urlFile) } : {}), ...(r.secretFile ? { secretFile: at(r.secretFile) } : {}) })) } : {}),
  };
}

/**
 * The spool of one target's forwarder: each target's instance keeps its own queues and cursor,
 * so beside `default` the file name carries the target (`spool.jsonl` → `spool.live.jsonl`).
 */
export function spoolOfTarget(spool: string, target: string): string {
  if (target === 'default') return spool;
  const ext = path.extname(spool);
  return path.join(path.dirname(spool), `${path.basename(spool, ext)}.${target}${ext}`);
}

export const DEFAULT_EVENTS = ['chat', 'game', 'mark', 'error'];
const DEFAULTS = { queueSize: 256, maxAttempts: 5, backoff: 1, maxBackoff: 30, timeout: 10 };
const ENV = {
  url: 'MC_AGENT_WEBHOOK_URL',
  secret: 'MC_AGENT_WEBHOOK_SECRET',
  events: 'MC_AGENT_WEBHOOK_EVENTS',
  queueSize: 'MC_AGENT_WEBHOOK_QUEUE',
  maxAttempts: 'MC_AGENT_WEBHOOK_MAX_ATTEMPTS',
  backoff: 'MC_AGENT_WEBHOOK_BACKOFF',
  maxBackoff: 'MC_AGENT_WEBHOOK_MAX_BACKOFF',
  timeout: 'MC_AGENT_WEBHOOK_TIMEOUT',
  config: 'MC_AGENT_WEBHOOK_CONFIG',
} as const;
const FILE_KEYS = { queueSize: 'queue_size', maxAttempts: 'max_attempts', backoff: 'backoff', maxBackoff: 'max_backoff', timeout: 'timeout' } as const;

export const OFF_MESSAGE = 'webhook forwarding is off by default: set both MC_AGENT_WEBHOOK_URL and MC_AGENT_WEBHOOK_SECRET (or url and secret in the config file)';

/** Receivers to run, or why there are none (off by default is not an error). */
export type Resolved = { receivers: ReceiverConfig[]; off?: undefined } | { receivers: []; off: string };

const refuse = (message: string) => new McbridgeError('invalid_params', message);

/** A JSON object from a file; its contents are never echoed (they may hold the secret). */
function readJsonObject(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw refuse(`webhook config file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): check the path given by --config or MC_AGENT_WEBHOOK_CONFIG`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse(`webhook config file ${path} is not valid JSON: write a JSON object such as {"events": ["chat"]}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw refuse(`webhook config file ${path} must hold a JSON object`);
  return value as Record<string, unknown>;
}

function readSecretFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw refuse(`${what}: the file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function parseEvents(value: unknown, where: string): string[] {
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value.map(String) : null;
  if (!list) throw refuse(`${where}: events must be a comma list or a list of categories`);
  const out = [...new Set(list.map((s) => s.trim()).filter(Boolean))];
  for (const c of out) {
    if (c !== '*' && !(EVENT_CATEGORIES as readonly string[]).includes(c)) {
      throw refuse(`${where}: unknown event category '${c}'; use * or some of ${EVENT_CATEGORIES.join(', ')}`);
    }
  }
  if (out.length === 0) throw refuse(`${where}: events is empty; name at least one category, or * for all`);
  return out;
}

function parseNumber(value: unknown, where: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0) throw refuse(`${where} must be a non-negative number; got ${JSON.stringify(String(value)).slice(0, 40)}`);
  return n;
}

/** Checks the resolved numbers and URL together; every message names where the value came from. */
function finish(url: string, secret: string, events: string[], n: typeof DEFAULTS, where: string): ReceiverConfig {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
    const shown = redactUrl(url);
    throw refuse(`${where}: the webhook URL must be an absolute http:// or https:// URL with a host (got ${shown ? `'${shown}/…'` : 'something that is not one'})`);
  }
  if (!Number.isInteger(n.queueSize) || n.queueSize < 1) throw refuse(`${where}: queue size must be a whole number >= 1`);
  if (!Number.isInteger(n.maxAttempts) || n.maxAttempts < 1) throw refuse(`${where}: max attempts must be a whole number >= 1 (the first try counts)`);
  if (!(n.timeout > 0)) throw refuse(`${where}: timeout must be more than 0 seconds`);
  if (n.maxBackoff < n.backoff) throw refuse(`${where}: max backoff (${n.maxBackoff} s) must be at least backoff (${n.backoff} s)`);
  return { url, secret, events, ...n };
}

/** The predecessor's single receiver: environment over file over default. */
function defaultReceiver(env: NodeJS.ProcessEnv, file: Record<string, unknown>, flags: ForwardFlags): Resolved {
  const fromFile = (k: string) => (typeof file[k] === 'string' && file[k] !== '' ? (file[k] as string) : undefined);
  const url = env[ENV.url] || fromFile('url');
  const secret = env[ENV.secret] || fromFile('secret');
  if (!url && !secret) return { receivers: [], off: OFF_MESSAGE };
  if (!url || !secret) {
    const missing = url ? ENV.secret : ENV.url;
    throw refuse(`${missing} is not set: webhook forwarding needs both ${ENV.url} and ${ENV.secret} (or url and secret in the config file)`);
  }
  const events =
    env[ENV.events] !== undefined && env[ENV.events] !== '' ? parseEvents(env[ENV.events], ENV.events) : file.events !== undefined ? parseEvents(file.events, 'config file: events') : DEFAULT_EVENTS;
  const n = { ...DEFAULTS };
  for (const key of Object.keys(FILE_KEYS) as Array<keyof typeof FILE_KEYS>) {
    const e = env[ENV[key]];
    if (e !== undefined && e !== '') n[key] = parseNumber(e, ENV[key]);
    else if (file[FILE_KEYS[key]] !== undefined) n[key] = parseNumber(file[FILE_KEYS[key]], `config file: ${FILE_KEYS[key]}`);
  }
  const given = withFlags(events, n, flags);
  return { receivers: [finish(url, secret, given.events, given.n, 'webhook')] };
}

function credential(o: ReceiverOptions, kind: 'url' | 'secret', env: NodeJS.ProcessEnv, where: string): string {
  const direct = o[kind];
  if (direct) return direct;
  const envName = kind === 'url' ? o.urlEnv : o.secretEnv;
  const fileName = kind === 'url' ? o.urlFile : o.secretFile;
  if (envName) {
    const v = env[envName];
    if (v) return v;
    if (!fileName) throw refuse(`${where}: the environment variable ${envName} (${kind}Env) is not set; set it to the receiver's ${kind}`);
  }
  if (fileName) {
    const v = readSecretFile(fileName, where);
    if (v) return v;
    throw refuse(`${where}: the file ${fileName} (${kind}File) is empty; write the receiver's ${kind} into it`);
  }
  throw refuse(`${where}: no ${kind}: set ${kind}Env to an environment variable that holds it, or ${kind}File to a file that does`);
}

/** One receiver of a list. */
function listedReceiver(o: ReceiverOptions, env: NodeJS.ProcessEnv, where: string, flags: ForwardFlags): ReceiverConfig {
  const url = credential(o, 'url', env, where);
  const secret = credential(o, 'secret', env, where);
  const events = o.events === undefined ? DEFAULT_EVENTS : parseEvents(o.events, where);
  const n = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) if (o[key] !== undefined) n[key] = o[key];
  const given = withFlags(events, n, flags);
  return finish(url, secret, given.events, given.n, where);
}

/**
 * The receivers to run. `options.receivers` (the plugin's options), else a `receivers` list in
 * the JSON file (`configFile`, else MC_AGENT_WEBHOOK_CONFIG), else the single receiver of the
 * MC_AGENT_WEBHOOK_* variables and that file. Throws `invalid_params` saying what to set.
 */
export function resolveReceivers(options: WebhookOptions, env: NodeJS.ProcessEnv, configFile?: string, flags: ForwardFlags = {}): Resolved {
  const configPath = configFile ?? (env[ENV.config] || undefined);
  const file = configPath ? readJsonObject(configPath) : {};
  let list: ReceiverOptions[] | undefined = options.receivers;
  if (!list?.length && file.receivers !== undefined) {
    const parsed = z.array(receiverOptions).safeParse(file.receivers);
    if (!parsed.success) throw refuse(`webhook config file ${configPath}: receivers: ${parsed.error.issues[0]?.message ?? 'invalid'} at ${parsed.error.issues[0]?.path.join('.')}`);
    list = parsed.data;
  }
  if (!list?.length) return defaultReceiver(env, file, flags);
  return { receivers: list.map((o, i) => listedReceiver(o, env, `webhook receiver ${i + 1}`, flags)) };
}

/**
 * The predecessor's `forward` flags, as typed. A flag wins over the environment, the file and the
 * default, for every receiver; units as the predecessor's (seconds, events per queue).
 */
export interface ForwardFlags {
  events?: string | undefined;
  queue?: string | number | undefined;
  maxAttempts?: string | number | undefined;
  backoff?: string | number | undefined;
  maxBackoff?: string | number | undefined;
  deliveryTimeout?: string | number | undefined;
}

const FLAG_FIELDS = {
  queue: ['queueSize', '--queue'],
  maxAttempts: ['maxAttempts', '--max-attempts'],
  backoff: ['backoff', '--backoff'],
  maxBackoff: ['maxBackoff', '--max-backoff'],
  deliveryTimeout: ['timeout', '--delivery-timeout'],
} as const;

/** `events` and `n` with the flags given put over them; a bad flag is refused by its name. */
function withFlags(events: string[], n: typeof DEFAULTS, flags: ForwardFlags): { events: string[]; n: typeof DEFAULTS } {
  const out = { ...n };
  for (const [flag, [key, name]] of Object.entries(FLAG_FIELDS) as Array<[keyof typeof FLAG_FIELDS, (typeof FLAG_FIELDS)[keyof typeof FLAG_FIELDS]]>) {
    const given = flags[flag];
    if (given === undefined) continue;
    const value = parseNumber(given, name);
    const whole = key === 'queueSize' || key === 'maxAttempts';
    if (whole && (!Number.isInteger(value) || value < 1)) throw refuse(`${name} must be a whole number >= 1; got ${JSON.stringify(given).slice(0, 40)}`);
    if (key === 'timeout' && value <= 0) throw refuse(`${name} must be more than 0 seconds`);
    out[key] = value;
  }
  return { events: flags.events !== undefined ? parseEvents(flags.events, '--events') : events, n: out };
}
