/**
 * Client-vantage verbs (docs/protocol.md#client-vantage-verbs, from the 0.5.0 source): everything but PING, ECHO, MARK and parse
 * errors runs on the next client tick; CMD has no output (feedback arrives as `game` events);
 * CHAT sends as the local player; recording, screen, connect, world and LAN are modelled with
 * a small ClientState.
 */
import { entitySource, runCommand } from './commands.js';
import { entityRecord } from './entity-json.js';
import { errorReply, now, task, textEvent, type Plan, type Reply, type VantageHost } from './host.js';
import { JavaException, javaDoubleString, javaTrim, parseJavaDouble, parseJavaInt } from './java-text.js';
import { dbl, flt, toJavaJson } from './json.js';
import { VerbMatcher, type VerbMatch } from './verbs.js';
import type { SimEntity } from './world.js';

export const CLIENT_CAPABILITIES = ['state', 'entities', 'command', 'chat', 'record', 'wait', 'screen', 'mark', 'connect', 'world', 'lan', 'events:chat', 'events:game'];

/** The default LAN port when `LAN` names none (vanilla would pick a free one). */
export const DEFAULT_LAN_PORT = 25565;

interface Recording {
  ticks: number;
  radius: number;
  interval: number;
  elapsed: number;
  samples: number;
}

export class ClientState {
  recording: Recording | null = null;
  lan: { port: number; online: boolean } | null = null;

  constructor(
    public inWorld: boolean,
    /** `host:port` of a multiplayer server; null in single player. */
    public connectedServer: string | null,
    /** The local player's name; null means the first online player. */
    public playerName: string | null,
  ) {}
}

export interface ClientHost extends VantageHost {
  readonly client: ClientState;
}

export function localPlayer(host: ClientHost): SimEntity | null {
  if (!host.client.inWorld) return null;
  const { world, client } = host;
  return (client.playerName ? world.findPlayerByName(client.playerName, true) : world.players[0]) ?? null;
}

export function matchClientVerb(line: string): VerbMatch | null {
  const m = new VerbMatcher(line);
  let arg: string | null;
  if (m.exact('PING')) return { verb: 'PING', arg: '' };
  if ((arg = m.argument('ECHO')) !== null) return { verb: 'ECHO', arg };
  if (m.exact('CAPS', 'CAPABILITIES', 'CAPS_GET')) return { verb: 'CAPS', arg: '' };
  if (m.exact('STATE', 'STATE_GET')) return { verb: 'STATE', arg: '' };
  if (m.exact('ENTITIES', 'ENTITY_LIST')) return { verb: 'ENTITIES', arg: '' };
  if ((arg = m.argument('ENTITIES', 'ENTITY_LIST')) !== null) return { verb: 'ENTITIES', arg: javaTrim(arg) };
  if ((arg = m.argument('CMD', 'COMMAND')) !== null) return { verb: 'CMD', arg: javaTrim(arg) };
  if ((arg = m.argument('CHAT', 'SAY')) !== null) return { verb: 'CHAT', arg };
  // Matched by prefix in the mod, so `SAMPLE_STARTX 20` works too; arguments follow the first token.
  if (m.startsWith('SAMPLE_START', 'RECORD_START')) return { verb: 'SAMPLE_START', arg: line.split(/\s+/).slice(1).join(' ') };
  if (m.exact('SAMPLE_STOP', 'RECORD_STOP')) return { verb: 'SAMPLE_STOP', arg: '' };
  if ((arg = m.argument('WAIT')) !== null) return { verb: 'WAIT', arg };
  if (m.exact('SCREEN')) return { verb: 'SCREEN', arg: '' };
  if ((arg = m.argument('CONNECT')) !== null) return { verb: 'CONNECT', arg: javaTrim(arg) };
  if ((arg = m.argument('WORLD')) !== null) return { verb: 'WORLD', arg: javaTrim(arg) };
  if (m.exact('LAN')) return { verb: 'LAN', arg: '' };
  if ((arg = m.argument('LAN')) !== null) return { verb: 'LAN', arg: javaTrim(arg) };
  if ((arg = m.argument('MARK')) !== null) return { verb: 'MARK', arg };
  return null;
}

function stateReply(host: ClientHost): Reply {
  const player = localPlayer(host);
  const reply: Reply = {
    type: 'state',
    millis: host.millis(),
    protocol: 1,
    modVersion: host.version,
    tick: host.world.tick,
    clients: host.connectionCount(),
    bridgePort: host.port,
    inWorld: host.client.inWorld,
  };
  if (player) {
    Object.assign(reply, {
      name: player.player!.name,
      x: dbl(player.x),
      y: dbl(player.y),
      z: dbl(player.z),
      vx: dbl(player.vx),
      vy: dbl(player.vy),
      vz: dbl(player.vz),
      yaw: flt(player.yaw),
      pitch: flt(player.pitch),
      health: flt(player.health),
      onGround: player.onGround,
      dimension: `ResourceKey[minecraft:dimension / ${player.dimension}]`,
      entityCount: host.world.entitiesIn(player.dimension).length,
    });
  }
  reply.server = host.client.connectedServer ? serverDataString(host.client.connectedServer) : 'null';
  return reply;
}

/** `ServerData` has no toString, so the mod prints `Object.toString()`: class@hash. */
function serverDataString(address: string): string {
  let hash = 0;
  for (const ch of address) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
  return `net.minecraft.client.multiplayer.ServerData@${(hash >>> 0).toString(16)}`;
}

function visibleEntities(host: ClientHost, radius: number): SimEntity[] {
  const player = localPlayer(host);
  if (!player) return [];
  const all = host.world.entitiesIn(player.dimension);
  if (radius <= 0) return all;
  return all.filter((e) => Math.hypot(e.x - player.x, e.y - player.y, e.z - player.z) <= radius);
}

function entitiesReply(host: ClientHost, radius: number): Reply {
  const local = localPlayer(host);
  const entities = visibleEntities(host, radius).map((e) => entityRecord(e, { localPlayer: local }));
  return { type: 'entities', millis: host.millis(), tick: host.world.tick, radius: dbl(radius), entities };
}

function screenReply(host: ClientHost): Reply {
  const inWorld = host.client.inWorld;
  return {
    type: 'screen',
    millis: host.millis(),
    tick: host.world.tick,
    screen: inWorld ? 'null' : 'net.minecraft.client.gui.screens.TitleScreen',
    title: inWorld ? '' : 'Title Screen',
    narration: inWorld ? '' : 'Title Screen',
    inWorld,
  };
}

const LAN_MODES: Record<string, boolean> = { online: true, true: true, '1': true, offline: false, false: false, '0': false };

function parseLan(arg: string): { port: number; online: boolean | null } {
  const tokens = arg.split(/\s+/).filter(Boolean);
  let port = 0;
  let online: boolean | null = null;
  const mode = (token: string) => {
    const value = LAN_MODES[token.toLowerCase()];
    if (value === undefined) throw new JavaException('java.lang.IllegalArgumentException', `expected online or offline, got ${token}`);
    return value;
  };
  if (tokens[0] !== undefined) {
    if (/^(online|offline|true|false)$/i.test(tokens[0])) online = mode(tokens[0]);
    else port = parseJavaInt(tokens[0]);
  }
  if (tokens[1] !== undefined) online = mode(tokens[1]);
  return { port, online };
}

function lanReply(host: ClientHost, port: number, online: boolean | null): { reply: Reply; published: boolean } {
  const millis = host.millis();
  const { client } = host;
  const player = localPlayer(host);
  if (!player) return { reply: errorReply(millis, 'no single-player world is open'), published: false };
  if (client.connectedServer) return { reply: errorReply(millis, 'no single-player server'), published: false };
  const address = '127.0.0.1';
  if (client.lan) {
    return { reply: { type: 'lan_ack', millis, detail: `port=${client.lan.port} address=${address} online=${client.lan.online}` }, published: false };
  }
  client.lan = { port: port > 0 ? port : DEFAULT_LAN_PORT, online: online ?? true };
  const detail = `port=${client.lan.port} address=${address} gamemode=${player.player!.gameMode} cheats=false online=${client.lan.online}`;
  return { reply: { type: 'lan_ack', millis, detail }, published: true };
}

/** Per-tick recording: samples go to samples.jsonl only; progress and done are events. */
export function sampleTick(host: ClientHost): void {
  const rec = host.client.recording;
  if (!rec) return;
  if (rec.elapsed % rec.interval === 0) {
    const entities = visibleEntities(host, rec.radius).map((e) => entityRecord(e, { localPlayer: localPlayer(host) }));
    host.appendSample(toJavaJson({ type: 'sample', millis: host.millis(), tick: host.world.tick, entities }));
    rec.samples++;
    if (rec.samples % 20 === 0) host.emit(textEvent('sample_progress', host.millis(), `sampled=${rec.samples}`));
  }
  rec.elapsed++;
  if (rec.elapsed >= rec.ticks) {
    host.client.recording = null;
    host.emit(textEvent('sample_done', host.millis(), `samples=${rec.samples}`));
  }
}

function parseOrBad<T>(host: VantageHost, parse: () => T): T | Plan {
  try {
    return parse();
  } catch (err) {
    if (err instanceof JavaException) return now(errorReply(host.millis(), `bad command: ${err.toJavaString()}`));
    throw err;
  }
}

const isPlan = (value: unknown): value is Plan => typeof value === 'object' && value !== null && 'kind' in value;

export function planClientVerb(host: ClientHost, { verb, arg }: VerbMatch): Plan {
  const millis = host.millis();
  const { client } = host;
  switch (verb) {
    case 'PING':
      return now({ type: 'pong', t: millis });
    case 'ECHO':
      return now({ type: 'echo_ack', millis, detail: arg });
    case 'MARK':
      return now({ type: 'mark_ack', millis, detail: arg }, () => host.emit(textEvent('mark', host.millis(), arg)));
    case 'CAPS':
      return task(() => ({ type: 'capabilities', millis: host.millis(), protocol: 1, mod: 'mc-agent-interface', version: host.version, capabilities: [...host.capabilities()] }));
    case 'STATE':
      return task(() => stateReply(host));
    case 'ENTITIES': {
      const radius = parseOrBad(host, () => (arg === '' ? 0 : parseJavaDouble(arg)));
      return isPlan(radius) ? radius : task(() => entitiesReply(host, radius));
    }
    case 'CMD': {
      const command = arg.startsWith('/') ? arg.slice(1) : arg;
      let output: string[] = [];
      return task(
        () => {
          const player = localPlayer(host);
          if (!player) return errorReply(host.millis(), 'no server connection');
          output = runCommand({ world: host.world, source: entitySource(host.world, player), onSay: (who, text) => sayAsPlayer(host, who, text) }, command);
          return { type: 'cmd_ack', millis: host.millis(), detail: command };
        },
        () => {
          if (!host.has('events:game')) return;
          for (const line of output) host.emit({ type: 'game', millis: host.millis(), text: line, overlay: false, event: true });
        },
      );
    }
    case 'CHAT': {
      let sent = false;
      return task(
        () => {
          if (!localPlayer(host)) return errorReply(host.millis(), 'no server connection');
          sent = true;
          return { type: 'chat_ack', millis: host.millis(), detail: arg };
        },
        () => {
          const player = localPlayer(host);
          if (sent && player) emitClientChat(host, player, arg);
        },
      );
    }
    case 'SAMPLE_START': {
      const parsed = parseOrBad(host, () => {
        const [ticks, radius, interval] = arg.split(/\s+/).filter(Boolean);
        return {
          ticks: Math.max(1, ticks === undefined ? 200 : parseJavaInt(ticks)),
          radius: radius === undefined ? 64 : parseJavaDouble(radius),
          interval: Math.max(1, interval === undefined ? 1 : parseJavaInt(interval)),
        };
      });
      if (isPlan(parsed)) return parsed;
      return task(
        () => {
          client.recording = { ...parsed, elapsed: 0, samples: 0 };
          return { type: 'sample_start_ack', millis: host.millis(), detail: `ticks=${parsed.ticks}` };
        },
        () => host.emit(textEvent('sample_start', host.millis(), `ticks=${parsed.ticks} radius=${javaDoubleString(parsed.radius)} interval=${parsed.interval}`)),
      );
    }
    case 'SAMPLE_STOP':
      return task(() => {
        const samples = client.recording?.samples ?? 0;
        client.recording = null;
        return { type: 'sample_stop_ack', millis: host.millis(), detail: `samples=${samples}` };
      });
    case 'WAIT': {
      const ticks = parseOrBad(host, () => parseJavaInt(arg));
      // 0.5.0 quirk: the countdown drains within one tick, so any n answers on the next tick.
      return isPlan(ticks) ? ticks : task(() => ({ type: 'wait_ack', millis: host.millis(), detail: 'ticks=0' }));
    }
    case 'SCREEN':
      return task(() => screenReply(host));
    case 'CONNECT':
      // The join completes at once here; the real client finishes it a few ticks later.
      return task(() => {
        enterWorld(host, arg);
        return { type: 'connect_ack', millis: host.millis(), detail: arg };
      });
    case 'WORLD':
      return task(() => {
        if (client.inWorld) return errorReply(host.millis(), 'already in a world');
        enterWorld(host, null);
        return { type: 'world_ack', millis: host.millis(), detail: arg };
      });
    case 'LAN': {
      const parsed = parseOrBad(host, () => parseLan(arg));
      if (isPlan(parsed)) return parsed;
      let published = false;
      return task(
        () => {
          const outcome = lanReply(host, parsed.port, parsed.online);
          published = outcome.published;
          return outcome.reply;
        },
        () => {
          if (published && client.lan) host.emit(textEvent('lan', host.millis(), `port=${client.lan.port} address=127.0.0.1`));
        },
      );
    }
    default:
      throw new Error(`no client verb ${verb}`);
  }
}

/** Joining a world or server: the local player appears at spawn if the world has none yet. */
function enterWorld(host: ClientHost, server: string | null): void {
  const { client, world } = host;
  client.inWorld = true;
  client.connectedServer = server;
  client.lan = null;
  if (!localPlayer(host)) {
    const name = client.playerName ?? 'Steve';
    world.addPlayer({ name, x: world.spawn.x + 0.5, y: world.spawn.y, z: world.spawn.z + 0.5 });
  }
}

/** A player chat message as the client receives it: rendered text plus the opaque sender string. */
export function emitClientChat(host: ClientHost, sender: SimEntity, text: string): Reply | null {
  if (!host.has('events:chat')) return null;
  const event = {
    type: 'chat',
    millis: host.millis(),
    text: `<${sender.player!.name}> ${text}`,
    sender: `GameProfile[id=${sender.uuid}, name=${sender.player!.name}, properties={}]`,
    event: true,
  };
  host.emit(event);
  return event;
}

/** `/say` from the local player comes back to the client as a player chat message. */
function sayAsPlayer(host: ClientHost, speaker: string, text: string): void {
  const player = host.world.findPlayerByName(speaker, true);
  if (!player || !host.has('events:chat')) return;
  host.emit({
    type: 'chat',
    millis: host.millis(),
    text: `[${speaker}] ${text}`,
    sender: `GameProfile[id=${player.uuid}, name=${speaker}, properties={}]`,
    event: true,
  });
}
