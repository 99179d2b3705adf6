/**
 * One target's launched server through its life: start (and wait for the mod link), stop, restart,
 * reset the world, and the watchdog (restart after a crash with backoff, give up on a crash loop,
 * report a hung link, stop when idle and start again on the next call). One lifecycle operation
 * runs at a time; a stop does not wait behind a start that is still waiting for the game.
 */
import fs from 'node:fs';
import { McbridgeError } from 'mcbridge';
import type { ServerConsole } from 'mcbridge/kit';
import { CrashPolicy, type CrashPolicyOptions } from './crash-policy.js';
import type { ProcessJournal } from './journal.js';
import { AdoptedProcess } from './adopted.js';
import type { JournalEntry } from './journal.js';
import { type ExitInfo, type Log, ServerProcess, ServerProcessError } from './process.js';

/** What the supervisor runs: a server it started, or one it adopted from a killed daemon. */
type Running = Pick<ServerProcess, 'pid' | 'exited' | 'stop'>;
import { recoverWorld, replaceWorld, WorldError, type WorldSource } from './world.js';

export type ServerState = 'stopped' | 'starting' | 'running' | 'stopping' | 'crashed' | 'backing-off';
type Progress = (message: string) => void;
type Why = 'asked' | 'watchdog' | 'call' | 'daemon' | 'idle' | 'adopted';

export interface SupervisorOptions {
  target: string;
  command: string[];
  cwd: string;
  env?: Record<string, string>;
  worldDir: string;
  /** Where a reset (and a first start without a world) takes the world from, when nothing else is named. */
  world: WorldSource | null;
  readyTimeoutMs: number;
  stopTimeoutMs: number;
  killGraceMs?: number;
  restart: 'never' | 'on-crash';
  idleStopMs: number | null;
  hungAfterMs: number | null;
  crash?: Partial<CrashPolicyOptions>;
  journal: ProcessJournal | null;
  /** launch.adopt: what it starts is recorded as adoptable by the next daemon. */
  adopt?: boolean;
  link: { readonly connected: boolean; retryLink(): void };
  /** A cheap call that needs the game (`state`): true when it answered. The hung watch sends it. */
  probe(): Promise<boolean>;
  /** The tool `probe` calls: its calls while a probe runs are not someone's activity. */
  probeTool: string;
  /** Calls running on the target now: an idle stop never cuts one off. */
  busy(): boolean;
  emit(type: string, fields: Record<string, unknown>): void;
  console: ServerConsole;
  log: Log;
}

const POLL_MS = 25;
const LAST_LINES_SHOWN = 20;
const noop: Progress = () => undefined;

function exitText(info: Pick<ExitInfo, 'code' | 'signal'>): string {
  if (info.signal) return `killed by ${info.signal}`;
  // An adopted server is not our child: its exit status is not ours to read.
  return info.code === null ? 'exited (an adopted server: its exit code is unknown)' : `exit code ${info.code}`;
}

export class Supervisor {
  private state: ServerState = 'stopped';
  private proc: Running | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private startAbort: AbortController | null = null;
  private startWhy: Why = 'asked';
  private runningSince: number | null = null;
  private lastExit: ExitInfo | null = null;
  private lastCrash: string | null = null;
  private gaveUp: string | null = null;
  private restarts = 0;
  private backoffTimer: NodeJS.Timeout | null = null;
  private restartAt: number | null = null;
  private readonly policy: CrashPolicy;
  private lastCallAt = Date.now();
  private idleStopped = false;
  private startOnCall: boolean;
  private lastAnswerAt = Date.now();
  private probing = false;
  private hung = false;
  private lastReset: { at: number; source: WorldSource; bytes: number; files: number } | null = null;
  private readonly monitor: NodeJS.Timeout | null;
  private disposed = false;
  /** Counts stops, restarts and resets asked for: a start queued before one of them does not run. */
  private generation = 0;
  /** The start under way, for calls that wait for it. */
  private starting: Promise<unknown> | null = null;

  constructor(
    private readonly opts: SupervisorOptions,
    autoStart: boolean,
  ) {
    this.policy = new CrashPolicy(opts.crash);
    // Not started with the daemon: the first call on the target starts it.
    this.startOnCall = !autoStart;
    const every = [opts.idleStopMs, opts.hungAfterMs].filter((ms): ms is number => ms !== null);
    this.monitor = every.length > 0 ? setInterval(() => this.watch(), Math.max(50, Math.min(1_000, ...every.map((ms) => ms / 4)))) : null;
    this.monitor?.unref();
  }

  status(): Record<string, unknown> {
    const now = Date.now();
    return {
      target: this.opts.target,
      launched: true,
      state: this.state,
      pid: this.proc?.pid ?? null,
      uptimeSeconds: this.runningSince === null ? null : Math.round((now - this.runningSince) / 1000),
      restarts: this.restarts,
      lastExit: this.lastExit && { code: this.lastExit.code, signal: this.lastExit.signal, at: this.lastExit.at, requested: this.lastExit.requested, uptimeMs: this.lastExit.uptimeMs },
      lastCrash: this.lastCrash,
      gaveUp: this.gaveUp,
      restartAt: this.restartAt,
      hung: this.hung,
      idle: { stopAfterMs: this.opts.idleStopMs, idleMs: now - this.lastCallAt, stoppedForIdle: this.idleStopped, startsOnNextCall: this.state === 'stopped' && this.startOnCall },
      restart: this.opts.restart,
      command: this.opts.command,
      cwd: this.opts.cwd,
      world: { dir: this.opts.worldDir, source: this.opts.world, lastReset: this.lastReset },
    };
  }

  /** Starts it unless it runs; resolves once the mod link is connected. */
  start(progress: Progress = noop, why: Why = 'asked'): Promise<Record<string, unknown>> {
    const asked = this.generation;
    const run = this.serial(async () => {
      // A stop, restart or reset asked after this start wins: it is not started behind their back.
      if (asked !== this.generation) throw new McbridgeError('cancelled', `the start of '${this.opts.target}' was given up: a stop, restart or reset was asked for meanwhile`);
      if (this.state === 'running' && this.proc) return { ...this.status(), started: false };
      await this.launch(progress, why);
      return { ...this.status(), started: true };
    });
    this.starting = run;
    const settled = () => {
      if (this.starting === run) this.starting = null;
    };
    void run.then(settled, settled);
    return run;
  }

  /** Saves and stops it (the console's `stop`), then terminates and kills its process group. */
  stop(progress: Progress = noop, why: Why = 'asked'): Promise<Record<string, unknown>> {
    this.preempt();
    return this.serial(async () => {
      const stopped = await this.halt(progress, why === 'asked' ? 'asked' : why);
      // Asked to stop: it stays stopped until asked again (an idle stop starts on the next call).
      if (why === 'asked') this.startOnCall = false;
      return { ...this.status(), stopped };
    });
  }

  restart(progress: Progress = noop): Promise<Record<string, unknown>> {
    this.preempt();
    return this.serial(async () => {
      await this.halt(progress, 'restart');
      await this.launch(progress, 'asked');
      return { ...this.status(), started: true };
    });
  }

  /** Stop, put the world in place from `source` (the configured one by default), start. */
  reset(source: WorldSource | null, progress: Progress = noop): Promise<Record<string, unknown>> {
    const from = source ?? this.opts.world;
    if (from === null) {
      return Promise.reject(
        new McbridgeError('invalid_params', `the server of '${this.opts.target}' has no world source: pass from: { template: '<folder>' } or { fork: '<name>' }, or set launch.world in the config`),
      );
    }
    this.preempt();
    return this.serial(async () => {
      await this.halt(progress, 'reset');
      const copied = await this.putWorld(from, progress);
      this.lastReset = { at: Date.now(), source: from, ...copied };
      this.opts.emit('server_reset', { target: this.opts.target, source: from.kind, name: from.name, bytes: copied.bytes, files: copied.files });
      await this.launch(progress, 'asked');
      return { ...this.status(), started: true, reset: { source: from, ...copied } };
    });
  }

  /** Before a call on the target: it counts as activity, and starts a server stopped for being idle. */
  async beforeCall(tool: string, requires: readonly string[], progress: Progress): Promise<void> {
    if (tool.startsWith('server_') || (this.probing && tool === this.opts.probeTool)) return;
    this.lastCallAt = Date.now();
    if (requires.length > 0 && this.state === 'starting' && this.starting) {
      // A call that needs the game waits for the start under way (with the daemon, by the watchdog)
      // rather than failing not_connected; a start that fails leaves the call to say so.
      progress(`waiting for the server of '${this.opts.target}' to start`);
      await this.starting.catch(() => undefined);
      return;
    }
    if (requires.length === 0 || this.state !== 'stopped' || !this.startOnCall || this.disposed) return;
    const why = this.idleStopped ? `stopped after ${Math.round((this.opts.idleStopMs ?? 0) / 1000)} s without a call` : 'not started yet';
    progress(`starting the server of '${this.opts.target}' for this call (${why})`);
    await this.start(progress, 'call');
    this.lastCallAt = Date.now();
  }

  /** The daemon is stopping: nothing of the server may outlive it. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.monitor) clearInterval(this.monitor);
    this.preempt();
    await this.serial(() => this.halt(noop, 'daemon')).catch((err: unknown) => this.opts.log.error({ err: String(err) }, 'the server could not be stopped'));
  }

  // ---- inside the serial chain ------------------------------------------------------

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.chain.then(op, op);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** A stop, restart or reset ends a start's wait and a pending watchdog restart at once. */
  private preempt(): void {
    this.generation += 1;
    this.startAbort?.abort();
    this.clearBackoff();
  }

  private clearBackoff(): void {
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.backoffTimer = null;
    this.restartAt = null;
    if (this.state === 'backing-off') this.state = 'crashed';
  }

  private async putWorld(source: WorldSource, progress: Progress): Promise<{ bytes: number; files: number }> {
    try {
      const done = await replaceWorld(source, this.opts.worldDir, progress);
      this.say(`world ${done.replaced ? 'replaced' : 'put in place'} from the ${source.kind} ${source.name} (${done.files} files, ${done.bytes} bytes)`);
      return done;
    } catch (err) {
      if (err instanceof WorldError) throw new McbridgeError('server_failed', err.message, { target: this.opts.target, ...err.details });
      throw err;
    }
  }

  private async launch(progress: Progress, why: Why): Promise<void> {
    this.clearBackoff();
    const recovered = recoverWorld(this.opts.worldDir);
    if (recovered) this.say(`world: ${recovered}`);
    if (this.opts.world && !fs.existsSync(this.opts.worldDir)) await this.putWorld(this.opts.world, progress);
    const proc = new ServerProcess({
      target: this.opts.target,
      command: this.opts.command,
      cwd: this.opts.cwd,
      env: this.opts.env,
      stopTimeoutMs: this.opts.stopTimeoutMs,
      killGraceMs: this.opts.killGraceMs,
      journal: this.opts.journal,
      adopt: this.opts.adopt,
      log: this.opts.log,
      onOutput: (chunk) => this.opts.console.publish({ ...chunk, at: Date.now() }),
    });
    const abort = new AbortController();
    this.startAbort = abort;
    this.startWhy = why;
    this.state = 'starting';
    let pid: number;
    try {
      ({ pid } = await proc.start());
    } catch (err) {
      this.state = 'stopped';
      if (err instanceof ServerProcessError) throw new McbridgeError('server_failed', err.message, { target: this.opts.target, reason: err.code, ...err.details });
      throw err;
    }
    progress(`server started (pid ${pid}); waiting for its mod to answer`);
    await this.untilReady(proc, pid, abort, progress, why);
  }

  /** Takes over a server a killed daemon left running (launch.adopt), then waits for its mod as a start does. */
  adopt(entry: JournalEntry, journal: NonNullable<SupervisorOptions['journal']>): Promise<Record<string, unknown>> {
    return this.serial(async () => {
      const proc = new AdoptedProcess(entry, { stopTimeoutMs: this.opts.stopTimeoutMs, journal, log: this.opts.log });
      await proc.adopt();
      const abort = new AbortController();
      this.startAbort = abort;
      this.startWhy = 'adopted';
      this.state = 'starting';
      this.say(`adopted the server (pid ${entry.pid}) a daemon that stopped left running`);
      this.opts.emit('server_adopted', { target: this.opts.target, pid: entry.pid, startedAt: entry.startedAt });
      await this.untilReady(proc, entry.pid ?? 0, abort, noop, 'adopted');
      return { ...this.status(), adopted: true };
    });
  }

  private async untilReady(proc: Running, pid: number, abort: AbortController, progress: Progress, why: Why): Promise<void> {
    this.proc = proc;
    void proc.exited.then((info) => this.exited(proc, info));
    const began = Date.now();
    const outcome = await this.ready(proc, abort.signal);
    if (this.startAbort === abort) this.startAbort = null;
    if (outcome === 'ready') {
      this.state = 'running';
      this.runningSince = Date.now();
      this.lastCallAt = Date.now();
      this.lastAnswerAt = Date.now();
      this.idleStopped = false;
      this.startOnCall = true;
      this.gaveUp = null;
      this.opts.emit('server_started', { target: this.opts.target, pid, readyMs: Date.now() - began, why });
      progress(`ready: the mod answered after ${Date.now() - began} ms`);
      return;
    }
    if (outcome === 'aborted') {
      // Not left running half started: the stop that preempted this start may find nothing else to stop.
      await this.halt(noop, 'start given up');
      throw new McbridgeError('cancelled', `the start of '${this.opts.target}' was given up: a stop, restart or reset was asked for meanwhile`);
    }
    if (outcome === 'timeout') {
      const info = await this.halt(noop, 'not ready');
      const lines = info?.lastLines.slice(-LAST_LINES_SHOWN) ?? [];
      throw new McbridgeError(
        'timeout',
        `the server of '${this.opts.target}' started but its mod did not answer within ${this.opts.readyTimeoutMs} ms, so it was stopped; is the mc-agent-interface mod installed, and is readyTimeout long enough? Last lines:\n${lines.join('\n')}`,
        { target: this.opts.target, pid, lastLines: lines },
      );
    }
    const lines = outcome.lastLines.slice(-LAST_LINES_SHOWN);
    throw new McbridgeError('server_failed', `the server of '${this.opts.target}' exited before its mod answered (${exitText(outcome)}). Last lines:\n${lines.join('\n')}`, {
      target: this.opts.target,
      exitCode: outcome.code,
      signal: outcome.signal,
      lastLines: lines,
    });
  }

  /** Until the mod link is up (ready), the process exits, the timeout passes, or a stop preempts. */
  private async ready(proc: Running, signal: AbortSignal): Promise<'ready' | 'timeout' | 'aborted' | ExitInfo> {
    const deadline = Date.now() + this.opts.readyTimeoutMs;
    let exit: ExitInfo | null = null;
    void proc.exited.then((info) => (exit = info));
    while (!signal.aborted) {
      if (exit) return exit;
      if (this.opts.link.connected) return 'ready';
      if (Date.now() >= deadline) return 'timeout';
      this.opts.link.retryLink();
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return 'aborted';
  }

  /** Stops the process if there is one; its exit, or null when nothing ran. */
  private async halt(progress: Progress, reason: string): Promise<ExitInfo | null> {
    const proc = this.proc;
    if (!proc) return null;
    this.state = 'stopping';
    progress(`stopping the server (${reason}): asking it to save and stop`);
    const info = await proc.stop(reason);
    // The link must have seen it go, or the next start would take the old session for the new one.
    const deadline = Date.now() + 2_000;
    while (this.opts.link.connected && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
    progress(`stopped (${exitText(info)})`);
    return info;
  }

  // ---- outside the chain: exits and the watchdog ------------------------------------

  private exited(proc: Running, info: ExitInfo): void {
    if (this.proc !== proc) return;
    this.proc = null;
    this.runningSince = null;
    this.lastExit = info;
    this.hung = false;
    const fields = { target: this.opts.target, code: info.code, signal: info.signal, uptimeMs: info.uptimeMs };
    if (info.requested) {
      this.state = 'stopped';
      this.opts.emit('server_stopped', fields);
      return;
    }
    const last = info.lastLines.at(-1);
    this.lastCrash = `${exitText(info)} after ${Math.round(info.uptimeMs / 1000)} s${last ? `; last line: ${last}` : ''}`;
    this.opts.emit('server_crashed', { ...fields, lastLines: info.lastLines.slice(-LAST_LINES_SHOWN) });
    const starting = this.state === 'starting';
    this.state = 'crashed';
    // A start someone asked for reports its own failure; the watchdog takes crashes of the rest.
    if (this.opts.restart !== 'on-crash' || this.disposed || (starting && (this.startWhy === 'asked' || this.startWhy === 'call'))) return;
    const decision = this.policy.onCrash(Date.now());
    if ('giveUp' in decision) {
      this.gaveUp = decision.giveUp;
      this.opts.emit('server_gave_up', { target: this.opts.target, reason: decision.giveUp });
      this.opts.log.error({ target: this.opts.target }, `not restarting the server: ${decision.giveUp}`);
      return;
    }
    this.state = 'backing-off';
    this.restartAt = Date.now() + decision.restartInMs;
    this.opts.emit('server_restarting', { target: this.opts.target, inMs: decision.restartInMs });
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = null;
      this.restartAt = null;
      this.restarts += 1;
      this.start(noop, 'watchdog').catch((err: unknown) => this.opts.log.warn({ target: this.opts.target, err: String(err) }, 'a watchdog restart failed'));
    }, decision.restartInMs);
    this.backoffTimer.unref();
  }

  private watch(): void {
    if (this.state !== 'running') return;
    const now = Date.now();
    const { hungAfterMs, idleStopMs } = this.opts;
    if (idleStopMs !== null && !this.idleStopped && !this.probing && now - this.lastCallAt >= idleStopMs && !this.opts.busy()) {
      this.idleStopped = true;
      this.opts.emit('server_idle_stop', { target: this.opts.target, idleMs: now - this.lastCallAt });
      this.stop(noop, 'idle')
        .then(() => {
          this.startOnCall = true;
        })
        .catch((err: unknown) => this.opts.log.warn({ err: String(err) }, 'the idle stop failed'));
    }
    if (hungAfterMs !== null && !this.probing) void this.probeOnce(hungAfterMs);
  }

  /** One probe at a time; hung once nothing answered for `hungAfterMs`, answering again once it does. */
  private async probeOnce(hungAfterMs: number): Promise<void> {
    this.probing = true;
    const proc = this.proc;
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([this.opts.probe(), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), hungAfterMs)))]).finally(() => clearTimeout(timer));
    this.probing = false;
    if (this.proc !== proc || this.state !== 'running') return;
    const now = Date.now();
    if (answered) {
      if (this.hung) this.opts.emit('server_responding', { target: this.opts.target, silentMs: now - this.lastAnswerAt });
      this.hung = false;
      this.lastAnswerAt = now;
    } else if (!this.hung && now - this.lastAnswerAt >= hungAfterMs) {
      this.hung = true;
      this.opts.emit('server_hung', { target: this.opts.target, pid: proc?.pid ?? null, silentMs: now - this.lastAnswerAt });
      this.opts.log.warn({ target: this.opts.target }, `the server runs but its mod has not answered for ${now - this.lastAnswerAt} ms: server_restart restarts it`);
    }
  }

  private say(line: string): void {
    this.opts.console.publish({ stream: 'mcbridge', data: Buffer.from(`[mcbridge] ${line}\n`), at: Date.now() });
  }
}
