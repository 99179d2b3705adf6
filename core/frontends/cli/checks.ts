/**
 * The checks behind `mcbridge status` and `mcbridge doctor`: each says what it found, whether
 * that is fine, and what to do when it is not. Every check is bounded in time and none throws.
 */
import { ApiClient } from '../../api/client.js';
import { ModConnection, type ModMessage } from '../../host/link/connection.js';
import type { PortResolution, Vantage } from '../../host/link/discovery.js';
import type { Manifest, PluginInfo } from '../../host/plugin-api.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../util/lines.js';
import type { GlobalOptions } from './options.js';
import { callSomeTarget, singleTarget } from './target.js';
import { errorCell } from './targets.js';

export interface Check {
  name: string;
  /** null: not checked (what it depends on failed). */
  ok: boolean | null;
  detail: string;
  /** What to do about a failure. */
  advice?: string;
}

/** The least Node this package runs on (package.json "engines"). */
const MIN_NODE_MAJOR = 20;
/** How long the mod gets to greet and to answer CAPS when probed directly. */
const PROBE_MS = 3_000;

const START_DAEMON = 'start one: `mcbridge run` in the server directory (or `mcbridge run --sim` to try it without a game)';
const START_MOD = 'start the Minecraft server with the mc-agent-interface mod (or `mcbridge sim` for a simulated one), then check `mcbridge discover`';

export function nodeCheck(version = process.versions.node): Check {
  const major = Number(version.split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? { name: 'node', ok: true, detail: `Node ${version}` }
    : { name: 'node', ok: false, detail: `Node ${version} is too old`, advice: `install Node ${MIN_NODE_MAJOR} or newer` };
}

/** What the running daemon says about itself. */
export interface DaemonView {
  status: DaemonStatus;
  manifest: Manifest;
  /** The target the status is of when none was named and none is the default: the first listed. */
  first?: string;
}

export interface DaemonStatus {
  version?: string;
  connected: boolean;
  vantage: Vantage;
  instance?: string | null;
  mod: { host: string; port: number | null; portSource: string | null };
  discovery: PortResolution | null;
  capabilities: string[] | null;
  capsSource?: string | null;
  hello?: ModMessage | null;
  lastError: string | null;
  api?: { host?: string; port?: number };
  plugins: PluginInfo[];
  memory?: { rssBytes: number; heapUsedBytes: number };
  calls?: { inProgress: number; oldest: Array<{ tool: string; runningMs: number }> };
  /** On a daemon of several targets (or one marked default): every target's link. */
  targets?: Record<string, { connected: boolean; state: string; lastError: string | null }>;
  /** A target reached over control protocol 1: its session (docs/control.md). */
  control?: Record<string, unknown>;
}

/**
 * Every target's link, on a daemon of several, and whose the checks below are: the target asked,
 * or (`first`) the first listed when none was named and none is the default; null (no line) on a
 * daemon of one.
 */
export function targetsCheck(targets: DaemonStatus['targets'], asked: string | undefined, first?: string): Check | null {
  const names = Object.keys(targets ?? {});
  if (!targets || names.length < 2) return null;
  const down = names.filter((name) => !targets[name]!.connected);
  const links = names.map((name) => `${name} ${targets[name]!.connected ? 'connected' : `not connected (${errorCell(targets[name]!.lastError ?? targets[name]!.state).cell})`}`).join(', ');
  const shown =
    asked !== undefined ? `; the checks below are ${asked}'s` : first !== undefined ? `; no target is the default, so the checks below are ${first}'s, the first listed (--target names another)` : '';
  if (down.length === 0) return { name: 'targets', ok: true, detail: `${names.length} targets: ${links}${shown}` };
  return {
    name: 'targets',
    ok: false,
    detail: `${names.length} targets: ${links}${shown}`,
    advice: `start the game of ${down.join(', ')}; \`mcbridge targets\` shows where each one's mod is looked for (\`--json\`: each error whole)`,
  };
}

/** The daemon's resident memory and V8 heap in use; not judged, only reported. */
export function memoryCheck(memory: DaemonStatus['memory']): Check {
  if (!memory) return { name: 'memory', ok: null, detail: 'not reported by this daemon (an older mcbridge)' };
  const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return { name: 'memory', ok: true, detail: `the daemon holds ${mb(memory.rssBytes)} resident, ${mb(memory.heapUsedBytes)} of it V8 heap in use` };
}

/** The tool calls the daemon is running (a long `wait`, a fork), apart from the status call asking; not judged. */
export function callsCheck(calls: DaemonStatus['calls']): Check {
  if (!calls) return { name: 'calls', ok: null, detail: 'not reported by this daemon (an older mcbridge)' };
  const others = calls.oldest.filter((c) => c.tool !== 'status');
  if (others.length === 0) return { name: 'calls', ok: true, detail: 'none in progress' };
  const listed = others
    .slice(0, 5)
    .map((c) => `${c.tool} (${(c.runningMs / 1000).toFixed(1)} s)`)
    .join(', ');
  return { name: 'calls', ok: true, detail: `${calls.inProgress - (calls.oldest.length - others.length)} in progress: ${listed}${others.length > 5 ? ', ...' : ''}` };
}

/** Ask the daemon for its status and manifest; the check says whether it answered. */
export async function daemonCheck(global: GlobalOptions): Promise<{ check: Check; view: DaemonView | null }> {
  const where = `${global.apiHost}:${global.apiPort}`;
  let client: ApiClient | undefined;
  try {
    client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
    const { answer, first } = await callSomeTarget(client, 'status', singleTarget(global.target, 'status'), { timeoutMs: PROBE_MS });
    const status = answer as DaemonStatus;
    const manifest = (await client.call('tools', {}, { timeoutMs: PROBE_MS })) as Manifest;
    const view: DaemonView = { status, manifest, ...(first !== undefined ? { first } : {}) };
    return { check: { name: 'daemon', ok: true, detail: `mcbridge ${status.version ?? ''} answers on ${where}`.replace('  ', ' ') }, view };
  } catch (err) {
    const message = (err as Error).message;
    const refused = /ECONNREFUSED|connect timed out/.test(message);
    return {
      check: {
        name: 'daemon',
        ok: false,
        detail: refused ? `no daemon answers on ${where}` : `the daemon on ${where} refused: ${message}`,
        advice: refused
          ? `${START_DAEMON}; a daemon elsewhere: --api-port, MCBRIDGE_API_PORT or apiPort in mcbridge.config.*`
          : 'give its token: --api-token or MCBRIDGE_API_TOKEN (or apiToken in the config)',
      },
      view: null,
    };
  } finally {
    client?.close();
  }
}

export function discoveryCheck(resolution: PortResolution | null): Check {
  if (!resolution) return { name: 'discovery', ok: null, detail: 'the daemon reports no discovery yet' };
  if (resolution.resolved && resolution.port !== null) {
    return { name: 'discovery', ok: true, detail: `mod port ${resolution.port} (${resolution.source})` };
  }
  // The first line says what is missing; the lines after it repeat the flags the advice names.
  const problem = (resolution.error ?? 'the mod port is unknown').split('\n')[0]!;
  return {
    name: 'discovery',
    ok: false,
    detail: problem,
    advice: 'run the daemon in the server directory (the mod writes mc-agent-server/port.txt there once the server starts), or pass --server-dir, --port-file or --mod-port',
  };
}

function modDescription(hello: ModMessage | null | undefined, instance: string | null | undefined): string {
  const parts = [
    instance ? `${instance} vantage` : null,
    typeof hello?.version === 'string' ? `mod ${hello.version}` : null,
    typeof hello?.minecraft === 'string' ? `Minecraft ${hello.minecraft}` : null,
  ];
  return parts.filter(Boolean).join(', ');
}

/** A control target's session (docs/control.md): where, how it is trusted, whose credential, what it may do. */
export function controlCheck(control: Record<string, unknown>, connected: boolean): Check {
  const permissions = Array.isArray(control.permissions) ? control.permissions.join('+') : 'unknown until connected';
  const detail = `control protocol to ${String(control.address)}, ${String(control.trust)}, credential from ${String(control.credential)}, permissions ${permissions}`;
  if (connected) return { name: 'control', ok: true, detail: `${detail}, run ${String(control.runId)}` };
  return { name: 'control', ok: false, detail, advice: 'check the address (the game port of a server with mcagent.control=true), the pin or caFile, and the credential; docs/control.md, "Trust"' };
}

/** The daemon's link to the mod, as its status reports it. */
export function modCheckFromDaemon(status: DaemonStatus): Check {
  if (status.control && !status.connected) return { name: 'mod', ok: false, detail: `not connected: ${status.lastError ?? 'still connecting'}`, advice: 'see the control line above' };
  if (status.connected) {
    const about = modDescription(status.hello, status.instance);
    return { name: 'mod', ok: true, detail: `connected on ${status.mod.host}:${status.mod.port}${about ? ` (${about})` : ''}` };
  }
  return { name: 'mod', ok: false, detail: `not connected: ${status.lastError ?? 'still connecting'}`, advice: START_MOD };
}

export function capsCheck(caps: string[] | null | undefined, source?: string | null): Check {
  if (caps === undefined) return { name: 'caps', ok: null, detail: 'not checked: the mod was not reached' };
  if (caps === null || caps.length === 0) {
    return { name: 'caps', ok: false, detail: 'the mod advertises no capabilities, so every gated tool is hidden', advice: 'update the mc-agent-interface mod to a version that answers CAPS' };
  }
  return { name: 'caps', ok: true, detail: `${caps.length} capabilities${source ? ` (from ${source})` : ''}: ${[...caps].sort().join(', ')}` };
}

export function pluginsCheck(plugins: PluginInfo[], manifest: Manifest): Check {
  const failed = plugins.filter((p) => p.state === 'failed');
  const available = manifest.tools.filter((t) => t.available).length;
  const hidden = manifest.tools.length - available;
  const counts = `${plugins.length} plugins, ${available} tools available, ${hidden} hidden`;
  if (failed.length === 0) return { name: 'plugins', ok: true, detail: counts };
  return {
    name: 'plugins',
    ok: false,
    detail: `${counts}; failed: ${failed.map((p) => `${p.name} (${p.error ?? 'setup failed'})`).join('; ')}`,
    advice: 'fix or remove the failed plugins in mcbridge.config.*; `mcbridge plugins` shows each one',
  };
}

/** What a direct connection to the mod port found: the greeting and the CAPS answer. */
export interface ModProbe {
  check: Check;
  caps?: string[] | null;
}

/** Connect to the mod port as the daemon would: read the greeting, ask CAPS, hang up. */
export async function probeMod(host: string, port: number): Promise<ModProbe> {
  let conn: ModConnection | undefined;
  let hello: ModMessage | undefined;
  let asked = false;
  const ask = () => {
    if (asked || !conn || !hello) return;
    asked = true;
    conn.write('CAPS');
  };
  let settle!: (outcome: ModProbe) => void;
  const outcome = new Promise<ModProbe>((resolve) => (settle = resolve));
  const timer = setTimeout(
    () =>
      settle(
        hello
          ? { check: { name: 'mod', ok: true, detail: `answers on ${host}:${port} (${modDescription(hello, hello.instance as string)}) but not CAPS` }, caps: capsOf(hello) }
          : {
              check: {
                name: 'mod',
                ok: false,
                detail: `${host}:${port} accepts connections but sends no mc-agent-interface greeting`,
                advice: "is this the mod's port? Check mc-agent-server/port.txt, or pass --mod-port",
              },
            },
      ),
    PROBE_MS,
  );
  try {
    conn = await ModConnection.open(
      host,
      port,
      {
        onHello: (greeting) => {
          hello = greeting;
          ask();
        },
        onEvent: () => {},
        onReply: (reply) => {
          if (reply.type !== 'capabilities') return;
          settle({ check: { name: 'mod', ok: true, detail: `answers on ${host}:${port} (${modDescription(hello, (reply.instance ?? hello?.instance) as string)})` }, caps: capsOf(reply) });
        },
        onBadLine: () => {},
        onClose: () => settle({ check: { name: 'mod', ok: false, detail: `${host}:${port} closed the connection before answering`, advice: START_MOD } }),
      },
      { connectTimeoutMs: PROBE_MS, maxLineBytes: DEFAULT_MAX_LINE_BYTES },
    );
    ask(); // in case the greeting came before `conn` was assigned
    return await outcome;
  } catch (err) {
    return { check: { name: 'mod', ok: false, detail: `nothing answers on ${host}:${port} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, advice: START_MOD } };
  } finally {
    clearTimeout(timer);
    conn?.close();
  }
}

function capsOf(message: ModMessage): string[] | null {
  return Array.isArray(message.capabilities) ? message.capabilities.filter((c): c is string => typeof c === 'string') : null;
}
