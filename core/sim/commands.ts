/**
 * The vanilla command subset the sim runs for `CMD`, with vanilla's English feedback lines:
 * tick, save-all/save-off/save-on, summon, kill, data get entity, say, time, list, gamemode,
 * tp/teleport, forceload, weather, setblock. Anything else is vanilla's unknown-command failure.
 * Output is what the command sends to its source; a failing command still "succeeds" at the
 * protocol level (the mod wraps it in a cmd_ack).
 */
import { CommandFailure, CommandReader, CommandSyntaxError, contextLine, UNKNOWN_COMMAND, type Vec3 } from './command-reader.js';
import { entityNbt } from './entity-json.js';
import { killEntity } from './entity-life.js';
import { isKnownType, normaliseId, typeInfo } from './entity-types.js';
import { formatFixed, javaDoubleString, javaFloatString } from './java-text.js';
import { evaluateNbtPath, parseNbtPath } from './nbt-path.js';
import { isSingle, playersOnly, readTarget, resolveTargets, type CommandSource } from './selectors.js';
import { numberOf, writePrettySnbt } from './snbt.js';
import { summonEntity } from './summon.js';
import { GAME_MODES, OVERWORLD, type GameMode, type SimEntity, type World } from './world.js';

export type { CommandSource } from './selectors.js';

export interface CommandContext {
  world: World;
  source: CommandSource;
  /** `say` from a player: broadcast to players as chat instead of answering its source (the console's comes back as feedback). */
  onSay?: (speaker: string, message: string) => void;
  /** `save-all`: writes the world folder (at once with `flush`, else on the next tick); throws when it cannot. */
  onSave?: (flush: boolean) => void;
}

type Handler = (reader: CommandReader, ctx: CommandContext) => string[];

const MAX_PLAYERS = 20;
const ENTITY_REQUIRED = 'An entity is required to run this command here';
const PLAYER_REQUIRED = 'A player is required to run this command here';
const NO_ENTITY = 'No entity was found';
const NO_PLAYER = 'No player was found';

export function consoleSource(world: World): CommandSource {
  return { name: 'Server', entity: null, dimension: OVERWORLD, pos: [world.spawn.x, world.spawn.y, world.spawn.z] };
}

export function entitySource(world: World, entity: SimEntity): CommandSource {
  return { name: world.displayName(entity), entity, dimension: entity.dimension, pos: [entity.x, entity.y, entity.z] };
}

function targets(reader: CommandReader, ctx: CommandContext, failure = NO_ENTITY): SimEntity[] {
  const spec = readTarget(reader);
  const found = resolveTargets(ctx.world, spec, ctx.source);
  if (found.length === 0) throw new CommandFailure(failure);
  return found;
}

function singleTarget(reader: CommandReader, ctx: CommandContext): SimEntity {
  const spec = readTarget(reader);
  if (!isSingle(spec)) reader.syntax('Only one entity is allowed, but the provided selector allows more than one', spec.start);
  const found = resolveTargets(ctx.world, spec, ctx.source);
  if (found.length === 0) throw new CommandFailure(NO_ENTITY);
  return found[0];
}

function tickQuery(world: World): string[] {
  const status = world.frozen ? 'The game is frozen' : 'The game is running normally';
  const target = formatFixed(1000 / world.tickRate, 1);
  return [status, `Target tick rate: ${javaFloatString(world.tickRate)} per second.\nAverage time per tick: 1.2ms (Target: ${target}ms)`, 'Percentiles: P50: 1.1ms P95: 1.6ms P99: 2.0ms, sample: 100'];
}

const tick: Handler = (r, { world }) => {
  const step = (ticks: number) => {
    if (!world.frozen) throw new CommandFailure('Unable to step the game - the game must be frozen first');
    world.stepTicks = ticks;
    return [`Stepping ${ticks} tick(s)`];
  };
  switch (r.readLiteral(['query', 'rate', 'step', 'freeze', 'unfreeze'] as const)) {
    case 'query':
      r.expectEnd();
      return tickQuery(world);
    case 'rate': {
      const rate = Math.fround(r.readFloat(1, 10000));
      r.expectEnd();
      world.tickRate = rate;
      return [`Set the target tick rate to ${formatFixed(rate, 1)} per second`];
    }
    case 'step': {
      if (r.atEnd()) return step(1);
      if (r.peekWord() === 'stop') {
        r.readWord();
        r.expectEnd();
        if (world.stepTicks === 0) throw new CommandFailure('No tick step is currently running');
        world.stepTicks = 0;
        return ['Interrupted the current step'];
      }
      const ticks = r.readInt(1);
      r.expectEnd();
      return step(ticks);
    }
    case 'freeze':
      r.expectEnd();
      world.frozen = true;
      return ['The game is frozen'];
    case 'unfreeze':
      r.expectEnd();
      world.frozen = false;
      world.stepTicks = 0;
      return ['The game is running normally'];
  }
};

const saveAll: Handler = (r, { world, onSave }) => {
  const flush = !r.atEnd() && r.readLiteral(['flush'] as const) === 'flush';
  r.expectEnd();
  const saving = 'Saving the game (this may take a moment!)';
  try {
    onSave?.(flush);
  } catch {
    return [saving, 'Unable to save the game (is there enough disk space?)'];
  }
  world.saves++;
  return [saving, 'Saved the game'];
};

const saveOff: Handler = (r, { world }) => {
  r.expectEnd();
  if (!world.saveEnabled) throw new CommandFailure('Saving is already turned off');
  world.saveEnabled = false;
  return ['Automatic saving is now disabled'];
};

const saveOn: Handler = (r, { world }) => {
  r.expectEnd();
  if (world.saveEnabled) throw new CommandFailure('Saving is already turned on');
  world.saveEnabled = true;
  return ['Automatic saving is now enabled'];
};

const summon: Handler = (r, ctx) => {
  const start = r.nextStart();
  const id = r.readWord();
  if (id === '') r.incomplete();
  const type = normaliseId(id);
  if (!isKnownType(type)) r.syntax(`Can't find element '${type}' of type 'minecraft:entity_type'`, start);
  if (!typeInfo(type).summonable) throw new CommandFailure('Unable to summon entity');
  const pos = r.atEnd() ? ctx.source.pos : r.readVec3(ctx.source.pos);
  const tag = r.atEnd() ? null : r.readCompound();
  r.expectEnd();
  const entity = summonEntity(ctx.world, type, pos, ctx.source.dimension, tag);
  return [`Summoned new ${ctx.world.displayName(entity)}`];
};

const kill: Handler = (r, ctx) => {
  let victims: SimEntity[];
  if (r.atEnd()) {
    if (!ctx.source.entity) throw new CommandFailure(ENTITY_REQUIRED);
    victims = [ctx.source.entity];
  } else {
    victims = targets(r, ctx);
    r.expectEnd();
  }
  const names = victims.map((e) => ctx.world.displayName(e));
  for (const victim of victims) killEntity(ctx.world, victim);
  return victims.length === 1 ? [`Killed ${names[0]}`] : [`Killed ${victims.length} entities`];
};

const data: Handler = (r, ctx) => {
  r.readLiteral(['get'] as const);
  r.readLiteral(['entity'] as const);
  const entity = singleTarget(r, ctx);
  const name = ctx.world.displayName(entity);
  const tag = entityNbt(entity);
  if (r.atEnd()) return [`${name} has the following entity data: ${writePrettySnbt(tag)}`];
  const pathStart = r.nextStart();
  const path = r.readWord();
  const steps = parseNbtPath(path);
  if (typeof steps === 'number') return r.syntax('Invalid NBT path element', pathStart + steps);
  const found = evaluateNbtPath(tag, steps);
  if (found.length === 0) throw new CommandFailure(`Found no elements matching ${path}`);
  if (found.length > 1) throw new CommandFailure('This argument accepts a single NBT value');
  if (r.atEnd()) return [`${name} has the following entity data: ${writePrettySnbt(found[0])}`];
  const scale = r.readDouble();
  r.expectEnd();
  const value = numberOf(found[0]);
  if (value === null) throw new CommandFailure(`Can't get ${path}; only numeric tags are allowed`);
  return [`${path} in ${name} after scale factor of ${javaDoubleString(scale)} is ${Math.floor(value * scale)}`];
};

const say: Handler = (r, ctx) => {
  const message = r.readRest();
  if (message === '') r.incomplete();
  if (ctx.onSay) {
    ctx.onSay(ctx.source.name, message);
    return [];
  }
  // The console hears its own broadcast: the mod's control fixture answers `say hello` with
  // ["[Server] hello"] (reference/mod-protocol.md, open question 7), and each line is a game event.
  return [`[${ctx.source.name}] ${message}`];
};

const NAMED_TIMES: Record<string, number> = { day: 1000, noon: 6000, night: 13000, midnight: 18000 };

function readTime(r: CommandReader): number {
  const start = r.nextStart();
  const word = r.readWord();
  if (word === '') r.incomplete();
  const match = /^(\d+(?:\.\d+)?)([tsd]?)$/.exec(word);
  if (!match) r.syntax(`Invalid float '${word}'`, start);
  const scale = match[2] === 'd' ? 24000 : match[2] === 's' ? 20 : 1;
  return Math.round(Number(match[1]) * scale);
}

const time: Handler = (r, { world }) => {
  switch (r.readLiteral(['query', 'set', 'add'] as const)) {
    case 'query': {
      const what = r.readLiteral(['daytime', 'gametime', 'day'] as const);
      r.expectEnd();
      const value = what === 'daytime' ? world.dayTime % 24000 : what === 'gametime' ? world.gameTime : Math.floor(world.dayTime / 24000);
      return [`The time is ${value}`];
    }
    case 'set': {
      const named = NAMED_TIMES[r.peekWord()];
      const value = named ?? readTime(r);
      if (named !== undefined) r.readWord();
      r.expectEnd();
      world.dayTime = value;
      return [`Set the time to ${value}`];
    }
    case 'add': {
      const value = readTime(r);
      r.expectEnd();
      world.dayTime += value;
      return [`Set the time to ${world.dayTime % 24000}`];
    }
  }
};

const list: Handler = (r, { world }) => {
  const withUuids = !r.atEnd() && r.readLiteral(['uuids'] as const) === 'uuids';
  r.expectEnd();
  const names = world.players.map((p) => (withUuids ? `${p.player!.name} (${p.uuid})` : p.player!.name));
  return [`There are ${world.players.length} of a max of ${MAX_PLAYERS} players online: ${names.join(', ')}`];
};

const MODE_NAMES: Record<GameMode, string> = {
  survival: 'Survival Mode',
  creative: 'Creative Mode',
  adventure: 'Adventure Mode',
  spectator: 'Spectator Mode',
};

const gamemode: Handler = (r, ctx) => {
  const start = r.nextStart();
  const word = r.readWord();
  if (word === '') r.incomplete();
  if (!(GAME_MODES as readonly string[]).includes(word)) r.syntax(`Unknown game mode: ${word}`, start);
  const mode = word as GameMode;
  let players: SimEntity[];
  if (r.atEnd()) {
    if (!ctx.source.entity?.player) throw new CommandFailure(PLAYER_REQUIRED);
    players = [ctx.source.entity];
  } else {
    const spec = readTarget(r);
    if (!playersOnly(spec)) r.syntax('Only players may be affected by this command, but the provided selector includes entities', spec.start);
    r.expectEnd();
    players = resolveTargets(ctx.world, spec, ctx.source).filter((e) => e.player);
    if (players.length === 0) throw new CommandFailure(NO_PLAYER);
  }
  const output: string[] = [];
  for (const player of players) {
    if (player.player!.gameMode === mode) continue; // vanilla says nothing when nothing changes
    player.player!.gameMode = mode;
    output.push(player === ctx.source.entity ? `Set own game mode to ${MODE_NAMES[mode]}` : `Set ${player.player!.name}'s game mode to ${MODE_NAMES[mode]}`);
  }
  return output;
};

function moveTo(world: World, entity: SimEntity, dimension: string, pos: Vec3, rotation?: [number, number]): void {
  world.dismount(entity);
  world.changeDimension(entity, dimension);
  Object.assign(entity, { x: pos[0], y: pos[1], z: pos[2] });
  if (rotation) [entity.yaw, entity.pitch] = rotation;
  for (const passenger of entity.passengers) {
    world.changeDimension(passenger, dimension);
    Object.assign(passenger, { x: pos[0], y: pos[1], z: pos[2] });
  }
}

/** A whole coordinate token (`12`, `-3.5`, `~`, `^1`): brigadier falls back to an entity when it is not one (a UUID starting with a digit). */
const looksLikeCoordinate = (word: string) => /^([~^]([-+]?(\d+\.?\d*|\.\d+))?|[-+]?(\d+\.?\d*|\.\d+))$/.test(word);

const teleport: Handler = (r, ctx) => {
  const { world, source } = ctx;
  const location = (movers: SimEntity[]) => {
    const pos = r.readVec3(source.pos);
    let rotation: [number, number] | undefined;
    if (!r.atEnd()) {
      const yaw = r.readFloat();
      const pitch = r.readFloat();
      rotation = [yaw, pitch];
    }
    r.expectEnd();
    for (const mover of movers) moveTo(world, mover, source.dimension, pos, rotation);
    const where = pos.map((v) => formatFixed(v, 6)).join(', ');
    return movers.length === 1 ? [`Teleported ${world.displayName(movers[0])} to ${where}`] : [`Teleported ${movers.length} entities to ${where}`];
  };
  const toEntity = (movers: SimEntity[]) => {
    const destination = singleTarget(r, ctx);
    r.expectEnd();
    for (const mover of movers) moveTo(world, mover, destination.dimension, [destination.x, destination.y, destination.z]);
    const name = world.displayName(destination);
    return movers.length === 1 ? [`Teleported ${world.displayName(movers[0])} to ${name}`] : [`Teleported ${movers.length} entities to ${name}`];
  };
  if (r.atEnd()) r.incomplete();
  const self = () => {
    if (!source.entity) throw new CommandFailure(ENTITY_REQUIRED);
    return [source.entity];
  };
  if (looksLikeCoordinate(r.peekWord())) return location(self());
  const save = r.cursor;
  const movers = targets(r, ctx);
  if (r.atEnd()) {
    r.cursor = save; // `tp <destination>`: the source itself moves
    return toEntity(self());
  }
  return looksLikeCoordinate(r.peekWord()) ? location(movers) : toEntity(movers);
};

const chunkText = (x: number, z: number) => `[${x}, ${z}]`;

const forceload: Handler = (r, { world, source }) => {
  const dimension = source.dimension;
  const forced = world.forcedChunks.get(dimension) ?? new Set<string>();
  world.forcedChunks.set(dimension, forced);
  const sub = r.readLiteral(['add', 'remove', 'query'] as const);
  if (sub === 'remove' && r.peekWord() === 'all') {
    r.readWord();
    r.expectEnd();
    forced.clear();
    return [`Unmarked all force loaded chunks in ${dimension}`];
  }
  if (sub === 'query') {
    if (r.atEnd()) {
      const chunks = [...forced].map((key) => chunkText(...(key.split(' ').map(Number) as [number, number])));
      if (chunks.length === 0) return [`No force loaded chunks were found in ${dimension}`];
      if (chunks.length === 1) return [`A force loaded chunk was found in ${dimension} at: ${chunks[0]}`];
      return [`${chunks.length} force loaded chunks were found in ${dimension} at: ${chunks.join(', ')}`];
    }
    const [x, z] = r.readColumn(source.pos);
    r.expectEnd();
    const [cx, cz] = [x >> 4, z >> 4];
    if (forced.has(`${cx} ${cz}`)) return [`Chunk at ${chunkText(cx, cz)} in ${dimension} is marked for force loading`];
    throw new CommandFailure(`Chunk at ${chunkText(cx, cz)} in ${dimension} is not marked for force loading`);
  }
  const from = r.readColumn(source.pos);
  const to = r.atEnd() ? from : r.readColumn(source.pos);
  r.expectEnd();
  const [x0, x1] = [Math.min(from[0], to[0]) >> 4, Math.max(from[0], to[0]) >> 4];
  const [z0, z1] = [Math.min(from[1], to[1]) >> 4, Math.max(from[1], to[1]) >> 4];
  const area = (x1 - x0 + 1) * (z1 - z0 + 1);
  if (area > 256) throw new CommandFailure(`Too many chunks in the specified area (maximum 256, found ${area})`);
  const changed: [number, number][] = [];
  for (let cx = x0; cx <= x1; cx++) {
    for (let cz = z0; cz <= z1; cz++) {
      const key = `${cx} ${cz}`;
      if (sub === 'add' ? forced.has(key) : !forced.has(key)) continue;
      if (sub === 'add') forced.add(key);
      else forced.delete(key);
      changed.push([cx, cz]);
    }
  }
  const [first, last] = [chunkText(x0, z0), chunkText(x1, z1)];
  if (sub === 'add') {
    if (changed.length === 0) throw new CommandFailure('No chunks were marked for force loading');
    if (changed.length === 1) return [`Marked chunk ${chunkText(...changed[0])} in ${dimension} to be force loaded`];
    return [`Marked ${changed.length} chunks in ${dimension} from ${first} to ${last} to be force loaded`];
  }
  if (changed.length === 0) throw new CommandFailure('No chunks were removed from force loading');
  if (changed.length === 1) return [`Unmarked chunk ${chunkText(...changed[0])} in ${dimension} for force loading`];
  return [`Unmarked ${changed.length} chunks in ${dimension} from ${first} to ${last} for force loading`];
};

const weather: Handler = (r, { world }) => {
  const kind = r.readLiteral(['clear', 'rain', 'thunder'] as const);
  if (!r.atEnd()) readTime(r);
  r.expectEnd();
  world.weather = kind;
  return [kind === 'clear' ? 'Set the weather to clear' : kind === 'rain' ? 'Set the weather to rain' : 'Set the weather to rain & thunder'];
};

const setblock: Handler = (r, { world, source }) => {
  const [x, y, z] = r.readBlockPos(source.pos);
  const start = r.nextStart();
  const word = r.readWord();
  if (word === '') r.incomplete();
  const id = word.replace(/\[.*$/, '');
  if (!/^([a-z0-9_.-]+:)?[a-z0-9_./-]+$/.test(id)) r.syntax(`Unknown block type '${id}'`, start);
  if (!r.atEnd()) r.readLiteral(['replace', 'keep', 'destroy', 'strict'] as const);
  r.expectEnd();
  const block = normaliseId(id);
  if (world.blockAt(source.dimension, x, y, z) === block) throw new CommandFailure('Could not set the block');
  world.setBlock(source.dimension, x, y, z, block);
  return [`Changed the block at ${x}, ${y}, ${z}`];
};

const COMMANDS: Record<string, Handler> = {
  tick,
  'save-all': saveAll,
  'save-off': saveOff,
  'save-on': saveOn,
  summon,
  kill,
  data,
  say,
  time,
  list,
  gamemode,
  tp: teleport,
  teleport,
  forceload,
  weather,
  setblock,
};

/** Runs one command (no leading slash) and returns its feedback lines. */
export function runCommand(ctx: CommandContext, command: string): string[] {
  const reader = new CommandReader(command);
  try {
    const name = reader.readWord();
    const handler = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!handler) throw new CommandSyntaxError(UNKNOWN_COMMAND, 0);
    return handler(reader, ctx);
  } catch (err) {
    if (err instanceof CommandSyntaxError) return [err.message, contextLine(command, err.cursor)];
    if (err instanceof CommandFailure) return [err.message];
    return ['An unexpected error occurred trying to execute that command'];
  }
}
