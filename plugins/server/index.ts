/**
 * `server`: a target's game server, run by the daemon (docs/servers.md). The target's `launch`
 * (config only: no tool argument changes what is executed) is started with the daemon or on the
 * first call, watched, stopped with the daemon, and reset from a template or a fork. No CAPS: the
 * tools answer with the game down, which is when they are needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { definePlugin, defineTool, McbridgeError, type HostView } from 'mcbridge';
import { durationMs, type LaunchConfig, mcbridgeCommand, serverConsole } from 'mcbridge/kit';
import { findFork } from '../fork/kit.js';
import { CRASH_POLICY_DEFAULTS } from './crash-policy.js';
import { type JournalEntry, ProcessJournal } from './journal.js';
import { type Log, reapLeftovers } from './process.js';
import { Supervisor } from './supervisor.js';
import type { WorldSource } from './world.js';

const serverOptions = z
  .object({
    killGraceMs: z.number().int().min(100).max(120_000).default(5_000).describe('how long SIGTERM is given before SIGKILL'),
    maxCrashes: z.number().int().min(1).max(1000).default(CRASH_POLICY_DEFAULTS.maxCrashes).describe('crashes within crashWindowMs after which the watchdog gives up'),
    crashWindowMs: z.number().int().min(1000).default(CRASH_POLICY_DEFAULTS.windowMs),
    minBackoffMs: z.number().int().min(10).default(CRASH_POLICY_DEFAULTS.minDelayMs),
    maxBackoffMs: z.number().int().min(10).default(CRASH_POLICY_DEFAULTS.maxDelayMs),
  })
  .strict();
type ServerOptions = z.infer<typeof serverOptions>;

const tool = defineTool.withOptions(serverOptions);
const fromInput = z
  .union([z.object({ template: z.string().min(1).max(4096) }).strict(), z.object({ fork: z.string().min(1).max(128) }).strict()], {
    error: "from is { template: '<folder in the config folder>' } or { fork: '<fork name>' }",
  })
  .optional()
  .describe('where the new world comes from (default: the target launch.world)');

/** A call's progress messages, numbered: MCP clients keep only progress that goes up. */
function steps(ctx: { progress(done: number, total?: number, message?: string): void }): (message: string) => void {
  let n = 0;
  return (message) => ctx.progress(++n, undefined, message);
}

/**
 * One journal per state folder, shared by the targets of this daemon (writes queue in it), kept as
 * the promise of its first reap: a target whose service starts meanwhile waits for that reap too.
 */
const journals = new Map<string, Promise<ProcessJournal>>();

function journalFor(stateDir: string | null, log: Log): Promise<ProcessJournal | null> {
  if (stateDir === null) return Promise.resolve(null);
  const file = path.join(stateDir, 'servers', 'processes.json');
  let opened = journals.get(file);
  if (!opened) {
    opened = (async () => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const journal = new ProcessJournal(file, log);
      // A daemon that was SIGKILLed left its servers running: they are stopped before any start,
      // but those recorded as adoptable, which wait for their target (a minute at most).
      await reapLeftovers(journal, log, undefined, (entry) => entry.adopt === true);
      setTimeout(() => void reapLeftovers(journal, log).catch(() => undefined), ADOPT_WAIT_MS).unref();
      return journal;
    })();
    journals.set(file, opened);
  }
  return opened;
}

/** How long a server left adoptable waits for its target to take it over before it is stopped. */
const ADOPT_WAIT_MS = 60_000;

/** This target's adoptable leftover, if it adopts one; the others of this target are stopped. */
async function leftoverFor(journal: ProcessJournal, target: string, adopt: boolean, log: Log): Promise<JournalEntry | null> {
  const kept = adopt ? (journal.leftovers().find((l) => l.entry.target === target && l.entry.adopt === true)?.entry ?? null) : null;
  await reapLeftovers(journal, log, undefined, (entry) => entry.target !== target || entry.adopt !== true || entry.id === kept?.id);
  return kept;
}

function commandOf(launch: LaunchConfig, cwd: string): string[] {
  if (launch.sim !== true) return launch.command;
  return [...mcbridgeCommand(), '--log-level', 'warn', 'sim', '--console', '--dir', cwd, '--port', '0', ...(launch.seed !== undefined ? ['--seed', String(launch.seed)] : [])];
}

/**
 * Where a world comes from, resolved: a fork must be known; a tool's template must lie inside the
 * config folder, while the config's own (`launch.world`, its path already absolute) is trusted.
 */
function resolveFrom(from: LaunchConfig['world'] | null, host: HostView, configDir: string, trusted = false): WorldSource | null {
  if (!from) return null;
  if ('fork' in from) {
    const found = findFork(host.stateDir, from.fork);
    if ('problem' in found) throw new McbridgeError('not_found', `cannot reset from fork ${JSON.stringify(from.fork)}: ${found.problem}`);
    return { kind: 'fork', name: from.fork, dir: found.forkDir };
  }
  const dir = path.resolve(configDir, from.template);
  if (trusted) return { kind: 'template', name: from.template, dir };
  const real = fs.existsSync(dir) ? fs.realpathSync(dir) : dir;
  const root = fs.realpathSync(configDir);
  if (real !== root && !real.startsWith(root + path.sep)) {
    throw new McbridgeError('invalid_params', `from.template ${JSON.stringify(from.template)} is outside the config folder ${root}: a reset copies only templates kept beside the config`);
  }
  return { kind: 'template', name: from.template, dir: real };
}

export function createServerPlugin() {
  let supervisor: Supervisor | null = null;
  let host: HostView | null = null;
  let configDir = process.cwd();
  let configured: LaunchConfig['world'] | null = null;

  const running = (): Supervisor => {
    if (supervisor) return supervisor;
    const target = host?.target ?? 'this target';
    throw new McbridgeError(
      'unavailable',
      `mcbridge does not run the server of '${target}': give the target a launch in the config, e.g. launch: { command: ['java', '-jar', 'server.jar', 'nogui'], cwd: 'servers/${target}' } or launch: { sim: true } (docs/servers.md)`,
    );
  };

  return definePlugin({
    name: 'server',
    version: '1.0.0',
    apiVersion: 1,
    description: 'A game server the daemon runs: start, stop, restart, reset its world, watch it',
    options: serverOptions,
    guide:
      "`server_status` says whether mcbridge runs this target's server and how it is; `server_start`/`server_stop`/`server_restart` run it; `server_reset` puts a clean world in place (from a template or a fork) and starts it again. `logs` shows what it printed.",
    services: [
      {
        name: 'supervisor',
        async start(ctx) {
          host = ctx.host;
          configDir = ctx.configDir;
          const launch = ctx.host.targetOptions.launch;
          if (!launch) return;
          const cwd = launch.cwd!;
          if (launch.sim === true) fs.mkdirSync(cwd, { recursive: true });
          configured = launch.world ?? null;
          const worldDir = path.join(cwd, launch.sim === true ? 'world' : (launch.worldDir ?? 'world'));
          const options: ServerOptions = ctx.config;
          const journal = await journalFor(ctx.host.stateDir, ctx.log);
          const s = new Supervisor(
            {
              target: ctx.host.target,
              command: commandOf(launch, cwd),
              cwd,
              env: launch.sim === true ? undefined : launch.env,
              worldDir,
              world: configured && 'template' in configured ? resolveFrom(configured, ctx.host, configDir, true) : null,
              readyTimeoutMs: launch.readyTimeout !== undefined ? durationMs(launch.readyTimeout) : launch.sim === true ? 30_000 : 120_000,
              stopTimeoutMs: launch.stopTimeout !== undefined ? durationMs(launch.stopTimeout) : 60_000,
              killGraceMs: options.killGraceMs,
              restart: launch.restart ?? 'never',
              idleStopMs: launch.idleStop !== undefined ? durationMs(launch.idleStop) : null,
              hungAfterMs: launch.hungAfter !== undefined ? durationMs(launch.hungAfter) : null,
              crash: { maxCrashes: options.maxCrashes, windowMs: options.crashWindowMs, minDelayMs: options.minBackoffMs, maxDelayMs: options.maxBackoffMs },
              journal,
              adopt: launch.adopt === true,
              link: ctx.host,
              probe: () =>
                ctx.call('state', {}).then(
                  () => true,
                  () => false,
                ),
              probeTool: 'state',
              busy: () => ctx.host.status().calls.inProgress > 0,
              emit: (type, fields) => ctx.events.emit(type, fields),
              console: serverConsole(ctx.host),
              log: ctx.log,
            },
            launch.autoStart !== false,
          );
          supervisor = s;
          ctx.beforeCall((call) => s.beforeCall(call.tool, call.requires, call.progress));
          const left = journal ? await leftoverFor(journal, ctx.host.target, launch.adopt === true, ctx.log) : null;
          // In the background: the daemon serves (status, logs) while the game comes up.
          if (left && journal) {
            s.adopt(left, journal).catch((err: unknown) => ctx.log.error({ err: String(err) }, 'the adopted server did not answer'));
          } else if (launch.autoStart !== false) {
            const fork = configured && 'fork' in configured ? resolveFrom(configured, ctx.host, configDir) : null;
            const first = fork && !fs.existsSync(worldDir) ? s.reset(fork) : s.start(undefined, 'daemon');
            first.catch((err: unknown) => ctx.log.error({ err: String(err) }, 'the server did not start'));
          }
          return async () => {
            supervisor = null;
            await s.dispose();
          };
        },
        status: () => supervisor?.status() ?? { launched: false },
      },
    ],
    tools: [
      tool({
        name: 'server_status',
        description:
          "The server mcbridge runs for this target: state (stopped, starting, running, stopping, crashed, backing-off), pid, uptime, last exit code and signal, restarts, the reason of the last crash, whether the watchdog gave up, hung, idle. `launched: false`: mcbridge does not run this target's server.",
        input: z.object({}).strict(),
        annotations: { readOnly: true, idempotent: true },
        run: async () => supervisor?.status() ?? { launched: false, hint: 'give the target a launch in the config for mcbridge to run its server (docs/servers.md)' },
      }),
      tool({
        name: 'server_start',
        description: 'Starts the server (unless it runs) and waits until its mod answers; fails with server_failed (exit code and last log lines) or timeout. Reports progress.',
        input: z.object({}).strict(),
        annotations: { readOnly: false, destructive: false, idempotent: true },
        run: async (_args, ctx) => running().start(steps(ctx)),
      }),
      tool({
        name: 'server_stop',
        description: "Saves and stops the server: the console's `stop`, then after stopTimeout SIGTERM and at last SIGKILL to its whole process group. It stays stopped until started again.",
        input: z.object({}).strict(),
        annotations: { readOnly: false, destructive: true, idempotent: true },
        run: async (_args, ctx) => running().stop(steps(ctx)),
      }),
      tool({
        name: 'server_restart',
        description: 'Stops the server (as server_stop) and starts it again, waiting until its mod answers. Also the way out of a hung or crashed server.',
        input: z.object({}).strict(),
        annotations: { readOnly: false, destructive: true, idempotent: false },
        run: async (_args, ctx) => running().restart(steps(ctx)),
      }),
      tool({
        name: 'server_reset',
        description:
          'Stops the server, replaces its world folder with a copy of a template or of a fork (taken with `fork`), and starts it again. The world is swapped whole: an interrupted reset leaves the old world or the new one, never a mix; the template is never changed.',
        input: z.object({ from: fromInput }).strict(),
        annotations: { readOnly: false, destructive: true, idempotent: false },
        run: async (args, ctx) => {
          const s = running();
          const source = args.from ? resolveFrom(args.from, ctx.host, configDir) : resolveFrom(configured, ctx.host, configDir, true);
          return s.reset(source, steps(ctx));
        },
      }),
    ],
  });
}

export default createServerPlugin;
