/**
 * Server-vantage verbs (docs/protocol.md#server-vantage-verbs): matching in the mod's order, argument parsing on the reader thread,
 * and the replies built on the server thread.
 */
import { consoleSource, runCommand } from './commands.js';
import { entityRecord, eyePosition } from './entity-json.js';
import { errorReply, now, task, textEvent, type Plan, type Reply, type VantageHost } from './host.js';
import { JavaException, javaTrim, parseJavaDouble, parseJavaInt } from './java-text.js';
import { dbl, dblArray } from './json.js';
import { listSnapshots, parseSnapshotArgs, takeSnapshot } from './snapshot.js';
import { parseUuid } from './uuid.js';
import { VerbMatcher, type VerbMatch } from './verbs.js';
import { pickView, playerViewJson } from './view.js';

export const SERVER_CAPABILITIES = ['state', 'entities', 'player', 'player:view', 'command', 'context', 'wait', 'mark', 'snapshot', 'events:game', 'events:chat'];

/** Finds the verb of a trimmed, non-empty line; null means `unknown command`. */
export function matchServerVerb(line: string): VerbMatch | null {
  const m = new VerbMatcher(line);
  const players = ['PLAYER', 'PLAYER_GET', 'PLAYER_CONTEXT', 'PLAYER_STATE'];
  if (m.exact(...players)) return { verb: 'PLAYER', arg: '' };
  let arg = m.argument(...players);
  if (arg !== null) return { verb: 'PLAYER', arg: javaTrim(arg) };
  if (m.exact('PING')) return { verb: 'PING', arg: '' };
  if ((arg = m.argument('ECHO')) !== null) return { verb: 'ECHO', arg };
  if (m.exact('CAPS', 'CAPABILITIES', 'CAPS_GET')) return { verb: 'CAPS', arg: '' };
  if (m.exact('CONTEXT', 'CONTEXT_STATS', 'CONTEXT_STATS_GET')) return { verb: 'CONTEXT_STATS', arg: '' };
  if ((arg = m.argument('CONTEXT_GET', 'CONTEXT')) !== null) return { verb: 'CONTEXT', arg: javaTrim(arg) };
  if (m.exact('STATE', 'STATE_GET')) return { verb: 'STATE', arg: '' };
  if (m.exact('ENTITIES', 'ENTITY_LIST')) return { verb: 'ENTITIES', arg: '' };
  if ((arg = m.argument('ENTITIES', 'ENTITY_LIST')) !== null) return { verb: 'ENTITIES', arg: javaTrim(arg) };
  if ((arg = m.argument('CMD', 'COMMAND')) !== null) return { verb: 'CMD', arg: javaTrim(arg) };
  if (m.exact('SNAPSHOTS')) return { verb: 'SNAPSHOTS', arg: '' };
  if (m.exact('SNAPSHOT')) return { verb: 'SNAPSHOT', arg: '' };
  if ((arg = m.argument('SNAPSHOT')) !== null) return { verb: 'SNAPSHOT', arg: javaTrim(arg) };
  if ((arg = m.argument('WAIT')) !== null) return { verb: 'WAIT', arg };
  if ((arg = m.argument('MARK')) !== null) return { verb: 'MARK', arg };
  return null;
}

function badCommand(host: VantageHost, err: unknown): Plan {
  if (err instanceof JavaException) return now(errorReply(host.millis(), `bad command: ${err.toJavaString()}`));
  throw err;
}

function header(host: VantageHost): Reply {
  return { millis: host.millis(), instance: 'server', protocol: 1, modVersion: host.version, tick: host.world.tick };
}

function stateReply(host: VantageHost): Reply {
  const { world } = host;
  return {
    type: 'state',
    millis: host.millis(),
    instance: 'server',
    protocol: 1,
    modVersion: host.version,
    tick: world.tick,
    inWorld: true,
    levelName: world.levelName,
    worldDir: host.worldDir,
    players: world.players.length,
    serverVersion: '26.2',
    playerList: world.players.map((p) => ({
      name: p.player!.name,
      uuid: p.uuid,
      x: dbl(p.x),
      y: dbl(p.y),
      z: dbl(p.z),
      dimension: p.dimension,
    })),
    levels: world.dimensions.map((dimension) => ({ dimension, entities: world.entitiesIn(dimension).length })),
    samePortSpike: { enabled: false, transport: 'same-port-spike', allowRemote: false, sessions: 0, open: [] },
    control: host.controlStatus(),
  };
}

function entitiesReply(host: VantageHost, radius: number): Reply {
  const { world } = host;
  const dimension = world.primaryDimension();
  let entities = world.entitiesIn(dimension);
  if (radius > 0) {
    const centre = world.firstPlayerIn(dimension);
    if (!centre) return errorReply(host.millis(), 'a radius needs at least one player; use ENTITIES for everything');
    entities = entities.filter((e) => Math.hypot(e.x - centre.x, e.y - centre.y, e.z - centre.z) <= radius);
  }
  return {
    type: 'entities',
    millis: host.millis(),
    instance: 'server',
    tick: world.tick,
    radius: dbl(radius),
    dimension,
    entities: entities.map((e) => entityRecord(e)),
  };
}

/** UUID (dashed or 32 hex) of an online player first, then exact name, then any-case name. */
function playerReply(host: VantageHost, query: string): Reply {
  const { world } = host;
  const uuid = parseUuid(query);
  const byUuid = uuid ? world.players.find((p) => p.uuid === uuid) : undefined;
  const player = byUuid ?? world.findPlayerByName(query);
  const base = { type: 'player', ...header(host), query };
  if (!player) return { ...base, found: false, error: `no online player matches ${query}` };
  const record = entityRecord(player);
  record.gameMode = player.player!.gameMode;
  record.dimension = player.dimension;
  record.eye = dblArray(eyePosition(player).map((v) => Math.round(v * 1000) / 1000));
  const reply: Reply = { ...base, found: true, matchedBy: byUuid ? 'uuid' : 'name', player: record };
  if (host.has('player:view')) reply.view = playerViewJson(pickView(world, player));
  return reply;
}

function commandReply(host: VantageHost, raw: string): Reply {
  const command = raw.startsWith('/') ? raw.slice(1) : raw;
  // Control administration answers its source only: a new secret must not reach the event stream.
  const own = host.consoleCommand(command);
  if (own) return { type: 'cmd_ack', millis: host.millis(), detail: command, output: own };
  const output = runCommand({ world: host.world, source: consoleSource(host.world), onSave: (flush) => host.saveWorld(flush) }, command);
  // Feedback goes through the event sink while the command runs, so it precedes the ack here.
  if (host.has('events:game')) for (const line of output) host.emit(textEvent('game', host.millis(), line));
  return { type: 'cmd_ack', millis: host.millis(), detail: command, output };
}

function snapshotReply(host: VantageHost, args: string): Reply {
  const millis = host.millis();
  const outcome = takeSnapshot({ world: host.world, snapshotsDir: host.snapshotsDir, millis, modVersion: host.version, worldDir: host.worldDir, emit: (e) => host.emit(e) }, parseSnapshotArgs(args));
  return outcome.ok ? outcome.reply : errorReply(millis, outcome.message);
}

export function planServerVerb(host: VantageHost, { verb, arg }: VerbMatch): Plan {
  const millis = host.millis();
  switch (verb) {
    case 'PLAYER':
      if (arg === '') return now(errorReply(millis, 'PLAYER needs a player uuid or name'));
      return task(() => playerReply(host, arg));
    case 'PING':
      return now({ type: 'pong', t: millis });
    case 'ECHO':
      return now({ type: 'echo_ack', millis, detail: arg });
    case 'CAPS':
      return now({ type: 'capabilities', millis, protocol: 1, mod: 'mc-agent-interface', version: host.version, instance: 'server', capabilities: [...host.capabilities()] });
    case 'CONTEXT_STATS':
      return now(host.chat.statsReply(millis));
    case 'CONTEXT':
      return task(() => host.chat.contextReply(arg, host.millis()));
    case 'STATE':
      return task(() => stateReply(host));
    case 'ENTITIES': {
      let radius = 0;
      try {
        if (arg !== '') radius = parseJavaDouble(arg);
      } catch (err) {
        return badCommand(host, err);
      }
      return task(() => entitiesReply(host, radius));
    }
    case 'CMD':
      return task(() => commandReply(host, arg));
    case 'SNAPSHOTS':
      return task(() => ({ type: 'snapshots', millis: host.millis(), snapshots: listSnapshots(host.snapshotsDir) }));
    case 'SNAPSHOT':
      return task(() => snapshotReply(host, arg));
    case 'WAIT': {
      let ticks: number;
      try {
        ticks = parseJavaInt(arg);
      } catch (err) {
        return badCommand(host, err);
      }
      return ticks <= 0 ? now({ type: 'wait_ack', millis, detail: 'ticks=0' }) : { kind: 'wait', ticks };
    }
    case 'MARK':
      return now({ type: 'mark_ack', millis, detail: arg }, () => host.emit(textEvent('mark', host.millis(), arg)));
    default:
      throw new Error(`no server verb ${verb}`);
  }
}
