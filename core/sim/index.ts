/**
 * The simulated `mc-agent-interface` mod: a real loopback TCP server speaking the legacy
 * JSON-lines protocol of docs/protocol.md over a small deterministic world. Used by the daemon's
 * tests, by `mcbridge run --sim`, and by plugin authors as a testkit. See core/sim/README.md.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ChatContexts, type ChatVariant, type PendingChat } from './chat-context.js';
import { CLIENT_CAPABILITIES, ClientState, emitClientChat, matchClientVerb, planClientVerb, sampleTick, type ClientHost } from './client-vantage.js';
import { killEntity, tickEntities } from './entity-life.js';
import { normaliseId } from './entity-types.js';
import { defaultFaultAction, FaultBook, specToAction, type Fault, type FaultAction, type FaultSpec, type RequestInfo } from './faults.js';
import { errorReply, textEvent, type Plan, type Reply } from './host.js';
import { javaTrim } from './java-text.js';
import { toJavaJson } from './json.js';
import { JavaLineReader } from './line-reader.js';
import { namedSeed, SeededRandom } from './random.js';
import { SerialQueue } from './serial-queue.js';
import { matchServerVerb, planServerVerb, SERVER_CAPABILITIES } from './server-vantage.js';
import { checkSimOptions } from './options.js';
import { ControlServer, type ControlOptions } from './control/server.js';
import { parseSnbtCompound, type CompoundTag } from './snbt.js';
import { summonEntity } from './summon.js';
import { parseUuid } from './uuid.js';
import { canonicalVerb, VERB_CAPABILITY, type VerbMatch } from './verbs.js';
import { defaultWorld, OVERWORLD, World, type DeathMode, type EntitySpec, type PlayerSpec, type SimEntity, type WorldSpec } from './world.js';
import { DEFAULT_WORLD_BYTES, WorldDisk, type LoadedEntities, type SaveReport, type WorldDiskOptions } from './world-disk.js';

export { dbl, flt, toJavaJson } from './json.js';
export { orderHash, snapshotNameProblem } from './snapshot.js';
export { CLIENT_CAPABILITIES } from './client-vantage.js';
export { SERVER_CAPABILITIES } from './server-vantage.js';
export { defaultWorld, STEVE_UUID, RESTING_VY, OVERWORLD, THE_NETHER, THE_END, World } from './world.js';
export type { DeathMode, EntitySpec, GameMode, PlayerSpec, SimEntity, ViewOverride, WorldSpec } from './world.js';
export { DEFAULT_WORLD_BYTES, dimensionFolder, writeRegionFiller, WorldDisk } from './world-disk.js';
export type { GeneratedWorld, SaveReport, WorldDiskOptions, WorldLayout } from './world-disk.js';
export { readRegion, decodeChunk, SECTOR, HEADER_BYTES } from './anvil.js';
export { readNbt } from './nbt-binary.js';
export { defaultFaultAction } from './faults.js';
export { SimOptionsError } from './options.js';
export type { Fault, FaultAction, FaultSpec, RequestInfo } from './faults.js';
export type { ChatVariant, PendingChat } from './chat-context.js';
export type { ControlOptions, ControlServer } from './control/server.js';

export type Vantage = 'server' | 'client';
export type LineEnding = '\n' | '\r\n';
/** Milliseconds before each queued (server-thread) verb runs: one number, or per verb (`{ STATE: 500, '*': 0 }`). */
export type ReplyDelay = number | Record<string, number>;

export interface SimOptions {
  vantage?: Vantage;
  /** Bind address; the mod only ever binds loopback. */
  host?: string;
  /** Exact port; 0 (the default) lets the OS choose. */
  port?: number;
  /** Like the mod: try basePort … basePort+19. Used when `port` is not given. */
  basePort?: number;
  /** Game directory. Default: a fresh temp dir, removed again by stop(). */
  dir?: string;
  /** Mod version on the wire (hello, CAPS, STATE, PLAYER, meta). Default "0.8.0". */
  version?: string;
  capabilities?: string[];
  /** Seeds every generated UUID and context id. Default 1. */
  seed?: number;
  /** Whose ids (a daemon's target name): the seed and the default world's UUIDs derive from it. Default: none. */
  name?: string;
  /** Ticks per second of the automatic tick loop. Default 20. */
  tps?: number;
  /** false: no timer; call sim.tick(n) to advance. Default true. */
  autoTick?: boolean;
  lineEnding?: LineEnding;
  /** Write one event line before the greeting on each new connection (true: the startup hello event). */
  eventBeforeHello?: boolean | Reply;
  replyDelayMs?: ReplyDelay;
  /** Verbs (canonical or alias) that are read but never answered, e.g. to test timeouts. */
  silentVerbs?: string[];
  /** Replaces parts of defaultWorld(). */
  world?: Partial<WorldSpec>;
  /** Online players; `[]` for an empty server. Overrides world.players. */
  players?: PlayerSpec[];
  /** Non-player entities. Overrides world.entities. */
  entities?: EntitySpec[];
  contextCacheSize?: number;
  contextTtlSeconds?: number;
  /** Wall clock for `millis` and context ages. Default Date.now; see also advanceClock(). */
  now?: () => number;
  /** Client vantage: whether a world is open. Default true. */
  inWorld?: boolean;
  /** Client vantage: `host:port` of the multiplayer server, or null for single player. */
  connectedServer?: string | null;
  /** Client vantage: the local player's name. Default: the first online player. */
  localPlayer?: string;
  /**
   * The world folder `<dir>/<levelName>` (server vantage): created with filler files of about
   * `bytes` (default 256 KiB) in the 26.x layout, or reused when it already holds a level.dat
   * (entities then load from its entity files unless `entities`/`world.entities` are given).
   * Default: on when `dir` is given, off for a temp dir (pass `{}` to turn it on). Off (`false`):
   * an empty folder, nothing saved or loaded.
   */
  worldDisk?: WorldDiskOptions | false;
  /** `kill`: `instant` (default) removes at once; `vanilla` leaves dying bodies for 20 running ticks and drops loot. */
  deaths?: DeathMode;
  /** Entities move by their velocity on running ticks (gravity, drag, a flat floor). Default false. */
  motion?: boolean;
  /** Faults armed from the start (see faults.ts); `times` defaults to every matching request. */
  faults?: FaultSpec[];
  /** Also serve control protocol 1 (TLS) on a listener of its own; see core/sim/README.md. */
  control?: boolean | ControlOptions;
}

export interface ChatOptions {
  variant?: ChatVariant;
  /** receipt_expired: how old the receipt is when broadcast. Default 61 000 ms. */
  receiptAgeMs?: number;
}

const DEFAULT_VERSION = '0.8.0';

/** Where a request's reply goes: a legacy socket, or one control-protocol request. */
interface Requester {
  open: boolean;
  send(reply: Reply): void;
}

/** One control request carried out by the legacy verb handlers: the first reply answers it. */
class VerbCall implements Requester {
  open = true;

  constructor(private readonly answer: (reply: Reply | null) => void) {}

  send(reply: Reply): void {
    if (!this.open) return;
    this.open = false;
    this.answer(reply);
  }

  /** A hang-up fault: no reply will come. */
  hangUp(): void {
    if (!this.open) return;
    this.open = false;
    this.answer(null);
  }
}

/** One accepted socket. Writes never wait; a failed write drops the client, as in the mod. */
class Connection implements Requester {
  open = true;

  constructor(
    readonly socket: net.Socket,
    private readonly lineEnding: () => LineEnding,
  ) {}

  sendLine(line: string): void {
    if (!this.open || this.socket.destroyed) return;
    this.socket.write(line + this.lineEnding());
  }

  /** A reply that cannot be written as JSON (NaN, say) goes out as an `error` reply instead. */
  send(reply: Reply): void {
    let line: string;
    try {
      line = toJavaJson(reply);
    } catch (err) {
      const millis = typeof reply.millis === 'number' ? reply.millis : Date.now();
      line = toJavaJson(errorReply(millis, `task failed: ${(err as Error).message}`));
    }
    this.sendLine(line);
  }
}

interface PendingWait {
  conn: Requester;
  remaining: number;
}

/** How a fault changes the way a planned request is carried out. */
interface Delivery {
  extraDelayMs?: number;
  /** Run the request, then drop the connection instead of replying. */
  hangUpAfter?: boolean;
}

/** Vanilla's autosave period (ticks), when saving is on. */
const AUTOSAVE_TICKS = 6000;

export class SimulatedMod {
  readonly vantage: Vantage;
  readonly host: string;
  readonly version: string;
  readonly dir: string;
  /** `<dir>/mc-agent-server` or `<dir>/mc-agent`. */
  readonly modDir: string;
  readonly portFile: string;
  readonly eventsFile: string;
  readonly samplesFile: string;
  readonly snapshotsDir: string;
  /** Absolute, not normalised, ending in `/.` like the mod reports it. */
  readonly worldDir: string;
  /** The world folder itself (`<dir>/<levelName>`), absolute. */
  readonly worldRoot: string;
  /** The on-disk world (server vantage, unless `worldDisk: false`). */
  readonly worldDisk: WorldDisk | null;
  readonly world: World;
  readonly client: ClientState;
  /** Every request line received, trimmed (empty ones too), in order. */
  readonly received: string[] = [];

  lineEnding: LineEnding;
  eventBeforeHello: boolean | Reply;
  replyDelayMs: ReplyDelay;
  silentVerbs: string[];

  /** Context cache, receipts and chat seq of this server start (replaced by restart()). */
  contexts: ChatContexts;
  private caps: string[];
  private readonly random: SeededRandom;
  private readonly clock: () => number;
  private clockOffset = 0;
  private readonly ownsDir: boolean;
  private server: net.Server | null = null;
  private boundPort = 0;
  private readonly clients = new Set<Connection>();
  private readonly serverThread = new SerialQueue();
  private clientQueue: { match: VerbMatch; plan: Extract<Plan, { kind: 'task' }>; conn: Requester; delivery: Delivery }[] = [];
  private waits: PendingWait[] = [];
  private tickTimer: NodeJS.Timeout | null = null;
  private running = false;
  private started = false;
  private loadEntitiesFromDisk: boolean;
  private pendingSave = false;
  private readonly faultBook = new FaultBook();
  private readonly requestListeners = new Set<(request: RequestInfo) => void>();
  private readonly eventListeners = new Set<(event: Reply) => void>();
  private readonly connectionListeners = new Set<(change: 'open' | 'close', peer: string) => void>();
  /** The control protocol 1 listener (`control` option), or null. */
  readonly control: ControlServer | null;

  constructor(private readonly options: SimOptions = {}) {
    checkSimOptions(options);
    this.vantage = options.vantage ?? 'server';
    this.host = options.host ?? '127.0.0.1';
    this.version = options.version ?? DEFAULT_VERSION;
    this.ownsDir = options.dir === undefined;
    this.dir = path.resolve(options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-sim-')));
    this.modDir = path.join(this.dir, this.vantage === 'server' ? 'mc-agent-server' : 'mc-agent');
    this.portFile = path.join(this.modDir, 'port.txt');
    this.eventsFile = path.join(this.modDir, 'events.jsonl');
    this.samplesFile = path.join(this.modDir, 'samples.jsonl');
    this.snapshotsDir = path.join(this.modDir, 'snapshots');
    this.random = new SeededRandom(options.name === undefined ? (options.seed ?? 1) : namedSeed(options.name, options.seed ?? 1));
    this.clock = options.now ?? Date.now;
    const spec: WorldSpec = { ...defaultWorld(options.name), ...options.world };
    if (options.players) spec.players = options.players;
    if (options.entities) spec.entities = options.entities;
    this.worldRoot = path.join(this.dir, spec.levelName);
    // A given game dir gets a world folder by default; a throwaway temp dir only when asked (it costs file I/O per sim).
    const diskOptions = options.worldDisk === false ? null : (options.worldDisk ?? (this.ownsDir ? null : {}));
    this.worldDisk = diskOptions && this.vantage === 'server' ? new WorldDisk(this.worldRoot, diskOptions.layout ?? '26.x') : null;
    const explicitEntities = options.entities !== undefined || options.world?.entities !== undefined;
    this.loadEntitiesFromDisk = this.worldDisk !== null && !diskOptions?.fresh && this.worldDisk.exists() && !explicitEntities;
    if (this.loadEntitiesFromDisk) spec.entities = [];
    this.world = new World(spec, this.random);
    this.world.tickRate = options.tps ?? 20;
    this.world.deaths = options.deaths ?? 'instant';
    this.world.motion = options.motion ?? false;
    this.worldDir = `${this.worldRoot}${path.sep}.`;
    this.client = new ClientState(options.inWorld ?? true, options.connectedServer ?? null, options.localPlayer ?? null);
    this.caps = [...(options.capabilities ?? (this.vantage === 'server' ? SERVER_CAPABILITIES : CLIENT_CAPABILITIES))];
    this.lineEnding = options.lineEnding ?? '\n';
    this.eventBeforeHello = options.eventBeforeHello ?? false;
    this.replyDelayMs = options.replyDelayMs ?? 0;
    this.silentVerbs = [...(options.silentVerbs ?? [])];
    for (const spec of options.faults ?? []) this.faultBook.add(spec.target, specToAction(spec), spec.times);
    this.contexts = this.newChatContexts();
    this.control = options.control ? new ControlServer(this.controlHost(), options.control === true ? {} : options.control) : null;
  }

  // ---- lifecycle -------------------------------------------------------------------------

  get port(): number {
    return this.boundPort;
  }

  /** Open connections right now. */
  get connections(): number {
    return this.clients.size;
  }

  get capabilities(): readonly string[] {
    return this.caps;
  }

  /** Changes what new hellos and CAPS advertise; verbs of withdrawn capabilities become unknown. */
  setCapabilities(capabilities: readonly string[]): void {
    this.caps = [...capabilities];
  }

  /** Binds, writes port.txt, emits the startup `hello` event and starts ticking. */
  async start(port?: number): Promise<void> {
    fs.mkdirSync(this.modDir, { recursive: true });
    if (this.vantage === 'server') fs.mkdirSync(this.worldRoot, { recursive: true });
    if (!this.started) await this.openWorld();
    this.started = true;
    if (!fs.existsSync(this.samplesFile)) fs.writeFileSync(this.samplesFile, '');
    this.boundPort = await this.bind(port);
    this.running = true;
    // A new run before the startup event, so that event is seq 1 of it.
    await this.control?.start();
    try {
      fs.writeFileSync(this.portFile, String(this.boundPort));
    } catch (err) {
      this.emit({ type: 'portfile_error', millis: this.millis(), message: String(err) });
    }
    this.emit(textEvent('hello', this.millis(), this.startupEventText()));
    if (this.options.autoTick ?? true) this.scheduleTick();
  }

  /**
   * Server stop + start: clients hung up, WAITs dropped, context cache, chat seq and tick reset.
   * With a world folder the world is saved on the way down and its entities load back from it,
   * so their tick order becomes chunk order (as after a real restart).
   */
  async restart(options: { port?: number } = {}): Promise<void> {
    await this.shutdown(true);
    this.contexts = this.newChatContexts();
    this.world.serverRestarted(this.options.tps ?? 20);
    if (this.worldDisk) {
      this.world.clearNonPlayers();
      this.addLoadedEntities(this.worldDisk.load(this.world));
    }
    await this.start(options.port);
  }

  /** First start: create the world folder, or reuse an existing one (loading its entities). */
  private async openWorld(): Promise<void> {
    const disk = this.worldDisk;
    if (!disk) return;
    const diskOptions = this.options.worldDisk || {};
    if (diskOptions.fresh || !disk.exists()) {
      await disk.create(this.world, { bytes: diskOptions.bytes ?? DEFAULT_WORLD_BYTES, seed: this.options.seed ?? 1, millis: this.millis() });
    } else {
      disk.layout = disk.detectLayout() ?? disk.layout;
      const loaded = disk.load(this.world);
      if (this.loadEntitiesFromDisk) this.addLoadedEntities(loaded);
      // Times given as options win over the saved ones, like the entities do.
      if (this.options.world?.gameTime !== undefined) this.world.gameTime = this.options.world.gameTime;
      if (this.options.world?.dayTime !== undefined) this.world.dayTime = this.options.world.dayTime;
    }
    disk.lock();
  }

  /** Entities read from disk join the tick list in load order, before the online players. */
  private addLoadedEntities(loaded: LoadedEntities[]): void {
    for (const { dimension, tags } of loaded) {
      for (const tag of tags) {
        const id = tag.entries.get('id');
        const pos = tag.entries.get('Pos');
        if (id?.kind !== 'string' || pos?.kind !== 'list' || pos.items.length !== 3) continue;
        const xyz = pos.items.map((t) => ('value' in t && typeof t.value === 'number' ? t.value : NaN)) as [number, number, number];
        if (!xyz.every(Number.isFinite)) continue;
        try {
          summonEntity(this.world, normaliseId(id.value), xyz, dimension, tag as CompoundTag);
        } catch {
          // A duplicate UUID is skipped with a warning by the game; so is it here.
        }
      }
    }
    this.world.playersLast();
    this.world.renumber();
  }

  /**
   * Writes the world folder now, as `save-all flush` does (a no-op without one). Also what a
   * shutdown does.
   */
  save(): SaveReport {
    this.pendingSave = false;
    if (!this.worldDisk) return { files: [] };
    return this.worldDisk.save(this.world, this.millis());
  }

  /** Drops every current connection; the sim keeps listening. */
  hangUp(): void {
    for (const conn of [...this.clients]) this.drop(conn);
  }

  async stop(): Promise<void> {
    await this.shutdown(!this.ownsDir);
    if (this.ownsDir) fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Stops serving; a running server saves its world on the way down. */
  private async shutdown(save: boolean): Promise<void> {
    if (save && this.running) {
      try {
        this.save();
      } catch {
        // The folder was removed or is unwritable: the game would log it and stop anyway.
      }
    }
    this.running = false;
    if (this.tickTimer) clearTimeout(this.tickTimer);
    this.tickTimer = null;
    this.serverThread.clear();
    this.clientQueue = [];
    this.waits = [];
    this.hangUp();
    await this.control?.stop();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private newChatContexts(): ChatContexts {
    return new ChatContexts(this.world, {
      capacity: this.options.contextCacheSize ?? 256,
      ttlMillis: (this.options.contextTtlSeconds ?? 300) * 1000,
      now: () => this.millis(),
      random: this.random,
    });
  }

  private listenOn(port: number): Promise<net.Server> {
    return new Promise((resolve, reject) => {
      const server = net.createServer((socket) => this.accept(socket));
      server.once('error', reject);
      server.listen({ port, host: this.host, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', () => {}); // accept errors must never crash the host process
        resolve(server);
      });
    });
  }

  private async bind(port?: number): Promise<number> {
    const exact = port ?? this.options.port;
    const candidates = exact !== undefined || this.options.basePort === undefined ? [exact ?? 0] : Array.from({ length: 20 }, (_, i) => this.options.basePort! + i);
    for (const candidate of candidates) {
      try {
        this.server = await this.listenOn(candidate);
        return (this.server.address() as net.AddressInfo).port;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || candidates.length === 1) throw err;
      }
    }
    const message = this.vantage === 'server' ? 'no free server port' : 'no free bridge port';
    this.emit({ type: 'bind_error', millis: this.millis(), message });
    throw new Error(`${message} in ${candidates[0]}..${candidates[candidates.length - 1]}`);
  }

  // ---- connections -------------------------------------------------------------------------

  /** Exactly the mod's concatenated greeting: fixed field order, no millis, no event flag. */
  greeting(): string {
    const caps = this.caps.map((c) => JSON.stringify(c)).join(',');
    return (
      `{"type":"hello","mod":"mc-agent-interface","version":${JSON.stringify(this.version)},"protocol":1,` +
      `"minecraft":"26.2","port":${this.boundPort},"instance":"${this.vantage}","capabilities":[${caps}]}`
    );
  }

  private startupEventText(): string {
    return this.vantage === 'server' ? `mc-agent-interface server started port=${this.boundPort} dir=${this.modDir}` : `mc-agent-interface started port=${this.boundPort}`;
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    const conn = new Connection(socket, () => this.lineEnding);
    // The mod adds the client to the broadcast list before writing the greeting (the race docs/protocol.md#the-greeting warns of).
    this.clients.add(conn);
    for (const listener of this.connectionListeners) listener('open', `${socket.remoteAddress}:${socket.remotePort}`);
    if (this.eventBeforeHello) {
      const early = this.eventBeforeHello === true ? textEvent('hello', this.millis(), this.startupEventText()) : this.eventBeforeHello;
      conn.sendLine(toJavaJson(withEventFlag(early)));
    }
    conn.sendLine(this.greeting());
    const reader = new JavaLineReader((line) => this.onLine(conn, line));
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('end', () => {
      reader.end();
      this.drop(conn);
    });
    socket.on('error', () => this.drop(conn));
    socket.on('close', () => this.drop(conn));
  }

  private drop(conn: Requester): void {
    if (conn instanceof VerbCall) return conn.hangUp();
    if (!(conn instanceof Connection) || !this.clients.delete(conn)) return;
    conn.open = false;
    // Read before destroy(), which may forget the peer.
    const peer = `${conn.socket.remoteAddress}:${conn.socket.remotePort}`;
    conn.socket.destroy();
    this.waits = this.waits.filter((w) => w.conn !== conn);
    for (const listener of this.connectionListeners) listener('close', peer);
  }

  private verbEnabled(verb: string): boolean {
    const capability = VERB_CAPABILITY[verb];
    return capability === undefined || this.caps.includes(capability);
  }

  private onLine(conn: Requester, raw: string): void {
    const line = javaTrim(raw);
    this.received.push(line);
    if (line === '') return;
    try {
      const match = this.vantage === 'server' ? matchServerVerb(line) : matchClientVerb(line);
      if (!match || !this.verbEnabled(match.verb)) {
        conn.send(errorReply(this.millis(), `unknown command: ${line}`));
        return;
      }
      for (const listener of this.requestListeners) listener({ line, verb: match.verb, arg: match.arg });
      if (!conn.open) return; // a listener may hang up or restart the sim
      if (this.silentVerbs.some((v) => canonicalVerb(v) === match.verb)) return;
      const fault = this.faultBook.take(match);
      if (fault && 'noReply' in fault) return;
      if (fault && 'unsolicited' in fault) for (const reply of [fault.unsolicited].flat()) conn.send({ millis: this.millis(), ...reply });
      if (fault && 'hangUp' in fault && fault.hangUp === 'before') {
        this.drop(conn);
        return;
      }
      const plan =
        fault && ('error' in fault || 'output' in fault)
          ? this.faultPlan(match, fault)
          : this.vantage === 'server'
            ? planServerVerb(this.vantageHost(), match)
            : planClientVerb(this.vantageHost(), match);
      const delivery: Delivery = {
        extraDelayMs: fault && 'delayMs' in fault ? fault.delayMs : 0,
        hangUpAfter: fault !== null && 'hangUp' in fault && fault.hangUp === 'after',
      };
      this.execute(conn, match, plan, delivery);
    } catch (err) {
      conn.send(errorReply(this.millis(), `task failed: java.lang.RuntimeException: ${(err as Error).message}`));
    }
  }

  /** The reply an `error` or `output` fault gives instead, on the thread the verb would run on. */
  private faultPlan(match: VerbMatch, fault: Extract<FaultAction, { error: string } | { output: string | string[] }>): Plan {
    const build = (): Reply => {
      if ('error' in fault) return errorReply(this.millis(), fault.error);
      const output = typeof fault.output === 'string' ? [fault.output] : [...fault.output];
      const detail = match.arg.startsWith('/') ? match.arg.slice(1) : match.arg;
      if (this.vantage === 'client') return { type: 'cmd_ack', millis: this.millis(), detail };
      if (this.caps.includes('events:game')) for (const text of output) this.emit(textEvent('game', this.millis(), text));
      return { type: 'cmd_ack', millis: this.millis(), detail, output };
    };
    const queued = ['PLAYER', 'CONTEXT', 'STATE', 'ENTITIES', 'CMD', 'SNAPSHOT', 'SNAPSHOTS'].includes(match.verb) || this.vantage === 'client';
    return queued ? { kind: 'task', run: build } : { kind: 'now', reply: build() };
  }

  private execute(conn: Requester, match: VerbMatch, plan: Plan, delivery: Delivery = {}): void {
    switch (plan.kind) {
      case 'now': {
        const deliver = () => {
          if (!conn.open) return;
          if (delivery.hangUpAfter) this.drop(conn);
          else conn.send(plan.reply);
          plan.then?.();
        };
        if (delivery.extraDelayMs) setTimeout(deliver, delivery.extraDelayMs).unref();
        else deliver();
        return;
      }
      case 'wait':
        if (delivery.hangUpAfter) this.drop(conn);
        else this.waits.push({ conn, remaining: plan.ticks });
        return;
      case 'task':
        if (this.vantage === 'client') this.clientQueue.push({ match, plan, conn, delivery });
        else this.runOnServerThread(conn, match, plan, delivery);
        return;
    }
  }

  private runOnServerThread(conn: Requester, match: VerbMatch, plan: Extract<Plan, { kind: 'task' }>, delivery: Delivery = {}): void {
    this.serverThread.submit(this.delayFor(match.verb) + (delivery.extraDelayMs ?? 0), () => {
      if (!conn.open) return;
      try {
        const reply = plan.run();
        if (delivery.hangUpAfter) this.drop(conn);
        else if (reply) conn.send(reply);
        plan.then?.();
      } catch (err) {
        if (delivery.hangUpAfter) this.drop(conn);
        else conn.send(errorReply(this.millis(), `task failed: java.lang.RuntimeException: ${(err as Error).message}`));
      }
    });
  }

  private delayFor(verb: string): number {
    const delay = this.replyDelayMs;
    if (typeof delay === 'number') return delay;
    for (const [key, ms] of Object.entries(delay)) if (canonicalVerb(key) === verb) return ms;
    return delay['*'] ?? 0;
  }

  // ---- ticks -------------------------------------------------------------------------------

  private scheduleTick(): void {
    this.tickTimer = setTimeout(() => {
      this.tickTimer = null;
      if (!this.running) return;
      this.tickOnce();
      this.scheduleTick();
    }, 1000 / this.world.tickRate);
    this.tickTimer.unref();
  }

  /** Advances n ticks at once (for `autoTick: false` tests; also works alongside the timer). */
  tick(n = 1): void {
    for (let i = 0; i < n; i++) this.tickOnce();
  }

  private tickOnce(): void {
    tickEntities(this.world, this.world.advanceTick());
    if (this.worldDisk && this.world.saveEnabled && this.world.tick % AUTOSAVE_TICKS === 0) this.pendingSave = true;
    if (this.pendingSave) {
      try {
        this.save();
      } catch {
        // An autosave or background save that cannot write is logged by the game, not fatal.
      }
    }
    if (this.vantage === 'client') {
      // Client requests queued since the last tick run now (the mod's client-tick queue), then recording.
      for (const item of this.clientQueue.splice(0)) this.runOnServerThread(item.conn, item.match, item.plan, item.delivery);
      sampleTick(this.vantageHost());
    }
    // END_SERVER_TICK: every pending WAIT counts down (also while frozen; see README).
    const due: PendingWait[] = [];
    for (const wait of this.waits) if (--wait.remaining <= 0) due.push(wait);
    this.waits = this.waits.filter((w) => w.remaining > 0);
    for (const wait of due) wait.conn.send({ type: 'wait_ack', millis: this.millis(), detail: 'ticks=0' });
  }

  // ---- events and scripting ----------------------------------------------------------------

  /** Sim clock: `now` option (default Date.now) plus advanceClock() offsets. */
  millis(): number {
    return this.clock() + this.clockOffset;
  }

  /** Moves the sim clock forward, e.g. past the context TTL. */
  advanceClock(ms: number): void {
    this.clockOffset += ms;
  }

  /** Pushes an event (`event:true` is added) to events.jsonl and every connection, in order. */
  emit(event: Reply): void {
    const line = toJavaJson(withEventFlag(event));
    try {
      fs.appendFileSync(this.eventsFile, `${line}\n`);
    } catch {
      // The file is a side channel; a missing directory must not stop the broadcast.
    }
    for (const conn of this.clients) conn.sendLine(line);
    this.control?.publish(line);
    for (const listener of this.eventListeners) listener(event);
  }

  /** Calls `listener` with every event pushed (the `--console` lines). Returns an unsubscribe. */
  onEvent(listener: (event: Reply) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Calls `listener` when a legacy connection opens or closes (`peer`: address:port). Returns an unsubscribe. */
  onConnection(listener: (change: 'open' | 'close', peer: string) => void): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  /**
   * A line typed at the server console: a `CMD` on the server thread, as the legacy socket runs
   * it (faults included). Its feedback lines; an `error` reply's message as one line.
   */
  async consoleCommand(command: string): Promise<string[]> {
    const reply = await this.runVerb(`CMD ${command}`);
    if (reply === null) return [];
    if (Array.isArray(reply.output)) return reply.output.map(String);
    return typeof reply.message === 'string' ? [reply.message] : [];
  }

  /** A player's chat message, receipt to broadcast, in one go. Returns the pushed event. */
  chat(playerName: string, text: string, options: ChatOptions = {}): Reply | null {
    if (this.vantage === 'client') {
      const sender = this.world.findPlayerByName(playerName, true);
      return sender ? emitClientChat(this.vantageHost() as ClientHost, sender, text) : null;
    }
    const event = this.contexts.chat(playerName, text, options.variant ?? 'receipt', options.receiptAgeMs);
    if (this.caps.includes('events:chat')) this.emit(event);
    return event;
  }

  /** Two-step chat (server): the receipt now, the broadcast later, e.g. to reorder seqs. */
  receiveChat(playerName: string, text: string): PendingChat {
    return this.contexts.receive(playerName, text);
  }

  broadcastChat(pending: PendingChat): Reply {
    const event = this.contexts.broadcast(pending);
    if (this.caps.includes('events:chat')) this.emit(event);
    return event;
  }

  addPlayer(spec: PlayerSpec): SimEntity {
    return this.world.addPlayer(spec);
  }

  /** An online player by name (any case) or UUID. */
  findPlayer(nameOrUuid: string): SimEntity | undefined {
    const uuid = parseUuid(nameOrUuid);
    return (uuid ? this.world.players.find((p) => p.uuid === uuid) : undefined) ?? this.world.findPlayerByName(nameOrUuid);
  }

  /** Logs a player out (by name, any case, or UUID). */
  removePlayer(nameOrUuid: string): boolean {
    const player = this.findPlayer(nameOrUuid);
    if (!player) return false;
    this.world.removeEntity(player);
    return true;
  }

  /** A player dies as by `/kill` and respawns at the world spawn at once (no event, as on a server). */
  killPlayer(nameOrUuid: string): SimEntity | undefined {
    const player = this.findPlayer(nameOrUuid);
    if (player) killEntity(this.world, player);
    return player;
  }

  /** Adds an entity; with `nbt` (SNBT compound) it goes through the same path as `/summon`. */
  summon(spec: EntitySpec & { nbt?: string }): SimEntity {
    if (spec.nbt === undefined) return this.world.addEntity(spec);
    const { tag } = parseSnbtCompound(spec.nbt);
    return summonEntity(this.world, normaliseId(spec.type), [spec.x, spec.y, spec.z], normaliseId(spec.dimension ?? OVERWORLD), tag);
  }

  setBlock(x: number, y: number, z: number, block: string, dimension = OVERWORLD): void {
    this.world.setBlock(normaliseId(dimension), x, y, z, block);
  }

  // ---- fault knobs -------------------------------------------------------------------------

  /**
   * Arms a fault for requests matching `target` (a verb like `SNAPSHOT`, or a command prefix
   * like `tick unfreeze`; see faults.ts). Without an action: vanilla's failure text for a
   * command, an `error` reply for a verb. Hits every match unless `times` is given.
   */
  fault(target: string, action?: FaultAction, options: { times?: number } = {}): Fault {
    return this.faultBook.add(target, action ?? defaultFaultAction(target), options.times);
  }

  /** The next matching request fails (see fault()). */
  failNext(target: string, action?: FaultAction): Fault {
    return this.fault(target, action, { times: 1 });
  }

  /** The connection drops at the next matching request: `before` it runs, or `after` it ran (reply lost). */
  disconnectOn(target: string, when: 'before' | 'after' = 'before'): Fault {
    return this.fault(target, { hangUp: when }, { times: 1 });
  }

  get faults(): readonly Fault[] {
    return this.faultBook.armed;
  }

  clearFaults(): void {
    this.faultBook.clear();
  }

  /** Calls `listener` for every matched request line as it is read, before it runs. Returns an unsubscribe. */
  onRequest(listener: (request: RequestInfo) => void): () => void {
    this.requestListeners.add(listener);
    return () => this.requestListeners.delete(listener);
  }

  private vantageHost(): ClientHost {
    return {
      world: this.world,
      version: this.version,
      port: this.boundPort,
      modDir: this.modDir,
      worldDir: this.worldDir,
      snapshotsDir: this.snapshotsDir,
      chat: this.contexts,
      client: this.client,
      millis: () => this.millis(),
      capabilities: () => this.caps,
      has: (capability) => this.caps.includes(capability),
      emit: (event) => this.emit(event),
      connectionCount: () => this.clients.size,
      appendSample: (line) => fs.appendFileSync(this.samplesFile, `${line}\n`),
      saveWorld: (flush) => {
        if (flush) this.save();
        else this.pendingSave = true;
      },
      consoleCommand: (command) => this.control?.console(command) ?? null,
      controlStatus: () => this.control?.status() ?? { enabled: false, transport: 'same-port-tls' },
    };
  }

  /** One request line carried out as on the legacy socket, for a control-protocol request. */
  private runVerb(line: string): Promise<Reply | null> {
    return new Promise((resolve) => this.onLine(new VerbCall(resolve), line));
  }

  private controlHost() {
    return {
      host: this.host,
      modDir: this.modDir,
      version: this.version,
      vantage: this.vantage,
      millis: () => this.millis(),
      capabilities: () => this.caps,
      runVerb: (line: string) => this.runVerb(line),
    };
  }
}

function withEventFlag(event: Reply): Reply {
  const { event: _flag, ...rest } = event;
  return { ...rest, event: true };
}

/** Creates and starts a simulated mod. Remember `await sim.stop()`. */
export async function startSim(options: SimOptions = {}): Promise<SimulatedMod> {
  const sim = new SimulatedMod(options);
  try {
    await sim.start();
  } catch (err) {
    await sim.stop();
    throw err;
  }
  return sim;
}
