/**
 * Entity arguments of vanilla commands: `@e[type=pig,distance=..5]`, `@a`, `@p`, `@s`, a player
 * name or a UUID. Supports the options a bridge uses (type, name, tag, gamemode, x/y/z,
 * dx/dy/dz, distance, limit, sort); any other option is vanilla's "Unknown option" error.
 */
import type { CommandReader, Vec3 } from './command-reader.js';
import { normaliseId, typeInfo } from './entity-types.js';
import { parseUuid } from './uuid.js';
import { GAME_MODES, type SimEntity, type World } from './world.js';

export interface CommandSource {
  /** Display name (`Server` for the console). */
  name: string;
  entity: SimEntity | null;
  dimension: string;
  pos: Vec3;
}

interface Matcher {
  value: string;
  negate: boolean;
}

export interface TargetSpec {
  start: number;
  kind: 'selector' | 'name' | 'uuid';
  text: string;
  variable: string;
  types: Matcher[];
  names: Matcher[];
  tags: Matcher[];
  gameModes: Matcher[];
  x?: number;
  y?: number;
  z?: number;
  dx?: number;
  dy?: number;
  dz?: number;
  distance?: { min?: number; max?: number };
  limit?: number;
  sort?: 'nearest' | 'furthest' | 'random' | 'arbitrary';
}

const VARIABLES = ['e', 'a', 'p', 'r', 's', 'n'];
const SINGLE_VARIABLES = ['p', 'r', 's', 'n'];
const RESOURCE_ID = /^([a-z0-9_.-]+:)?[a-z0-9_./-]+$/;

function emptySpec(start: number, kind: TargetSpec['kind'], text: string, variable = ''): TargetSpec {
  return { start, kind, text, variable, types: [], names: [], tags: [], gameModes: [] };
}

/** Reads one option value: quoted, or up to the next `,` or `]`. */
function readOptionValue(reader: CommandReader, input: string): string {
  const quote = input[reader.cursor];
  if (quote === '"' || quote === "'") {
    const end = input.indexOf(quote, reader.cursor + 1);
    if (end === -1) reader.syntax('Unclosed quoted string');
    const value = input.slice(reader.cursor + 1, end);
    reader.cursor = end + 1;
    return value;
  }
  const start = reader.cursor;
  while (reader.cursor < input.length && input[reader.cursor] !== ',' && input[reader.cursor] !== ']') reader.cursor++;
  return input.slice(start, reader.cursor).trim();
}

function readRange(reader: CommandReader, text: string, at: number): { min?: number; max?: number } {
  const number = (s: string) => {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(s)) reader.syntax(`Invalid double '${s}'`, at);
    return Number(s);
  };
  if (!text.includes('..')) {
    const exact = number(text);
    return { min: exact, max: exact };
  }
  const [low, high] = text.split('..');
  if (low === '' && high === '') reader.syntax('Expected value or range of values', at);
  return { min: low === '' ? undefined : number(low), max: high === '' ? undefined : number(high) };
}

function applyOption(reader: CommandReader, spec: TargetSpec, key: string, raw: string, at: number): void {
  const negate = raw.startsWith('!');
  const value = negate ? raw.slice(1) : raw;
  const num = () => {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(raw)) reader.syntax(`Invalid double '${raw}'`, at);
    return Number(raw);
  };
  switch (key) {
    case 'type':
      if (!RESOURCE_ID.test(value)) reader.syntax(`Invalid or unknown entity type '${value}'`, at);
      spec.types.push({ value: normaliseId(value), negate });
      return;
    case 'name':
      spec.names.push({ value, negate });
      return;
    case 'tag':
      spec.tags.push({ value, negate });
      return;
    case 'gamemode':
      if (!(GAME_MODES as readonly string[]).includes(value)) reader.syntax(`Invalid or unknown game mode '${value}'`, at);
      spec.gameModes.push({ value, negate });
      return;
    case 'x':
    case 'y':
    case 'z':
    case 'dx':
    case 'dy':
    case 'dz':
      spec[key] = num();
      return;
    case 'distance': {
      const range = readRange(reader, raw, at);
      if ((range.min ?? 0) < 0 || (range.max ?? 0) < 0) reader.syntax('Distance cannot be negative', at);
      spec.distance = range;
      return;
    }
    case 'limit':
      if (!/^[-+]?\d+$/.test(raw)) reader.syntax(`Invalid integer '${raw}'`, at);
      if (Number(raw) < 1) reader.syntax('Limit must be at least 1', at);
      spec.limit = Number(raw);
      return;
    case 'sort':
      if (!['nearest', 'furthest', 'random', 'arbitrary'].includes(raw)) reader.syntax(`Invalid or unknown sort type '${raw}'`, at);
      spec.sort = raw as TargetSpec['sort'];
      return;
    default:
      reader.syntax(`Unknown option '${key}'`, at);
  }
}

function readOptions(reader: CommandReader, spec: TargetSpec): void {
  const input = reader.input;
  reader.cursor++; // '['
  for (;;) {
    while (input[reader.cursor] === ' ') reader.cursor++;
    if (input[reader.cursor] === ']') {
      reader.cursor++;
      return;
    }
    const keyStart = reader.cursor;
    while (reader.cursor < input.length && /[A-Za-z0-9_]/.test(input[reader.cursor])) reader.cursor++;
    const key = input.slice(keyStart, reader.cursor);
    while (input[reader.cursor] === ' ') reader.cursor++;
    if (input[reader.cursor] !== '=') reader.syntax(key === '' ? 'Expected option' : `Expected value for option '${key}'`, keyStart);
    reader.cursor++;
    while (input[reader.cursor] === ' ') reader.cursor++;
    const valueStart = reader.cursor;
    applyOption(reader, spec, key, readOptionValue(reader, input), valueStart);
    while (input[reader.cursor] === ' ') reader.cursor++;
    if (input[reader.cursor] === ',') {
      reader.cursor++;
      continue;
    }
    if (input[reader.cursor] !== ']') reader.syntax('Expected end of options', reader.cursor);
  }
}

export function readTarget(reader: CommandReader): TargetSpec {
  const start = reader.nextStart();
  const input = reader.input;
  if (start >= input.length) reader.incomplete();
  if (input[start] === '@') {
    const variable = input[start + 1] ?? '';
    if (!VARIABLES.includes(variable)) reader.syntax('Unknown selector type', start);
    reader.cursor = start + 2;
    const spec = emptySpec(start, 'selector', '', variable);
    if (input[reader.cursor] === '[') readOptions(reader, spec);
    spec.text = input.slice(start, reader.cursor);
    return spec;
  }
  const word = reader.readWord();
  const uuid = parseUuid(word);
  if (uuid && word.includes('-')) return { ...emptySpec(start, 'uuid', uuid) };
  if (word.length > 16 || !/^[^\s@[\]]+$/.test(word)) reader.syntax('Invalid name or UUID', start);
  return emptySpec(start, 'name', word);
}

/** Whether the argument can only ever match one entity (what `data get entity` insists on). */
export function isSingle(spec: TargetSpec): boolean {
  if (spec.kind !== 'selector') return true;
  return SINGLE_VARIABLES.includes(spec.variable) || spec.limit === 1;
}

/** Whether the argument can only match players (what `gamemode` insists on). */
export function playersOnly(spec: TargetSpec): boolean {
  if (spec.kind === 'name') return true;
  if (spec.kind === 'uuid') return false;
  if (['a', 'p', 'r'].includes(spec.variable)) return true;
  return spec.types.some((t) => !t.negate && t.value === 'minecraft:player');
}

function matches(list: Matcher[], test: (value: string) => boolean): boolean {
  return list.every((m) => test(m.value) !== m.negate);
}

function distanceSq(entity: SimEntity, centre: Vec3): number {
  return (entity.x - centre[0]) ** 2 + (entity.y - centre[1]) ** 2 + (entity.z - centre[2]) ** 2;
}

function inVolume(entity: SimEntity, spec: TargetSpec, centre: Vec3): boolean {
  if (spec.dx === undefined && spec.dy === undefined && spec.dz === undefined) return true;
  const [dx, dy, dz] = [spec.dx ?? 0, spec.dy ?? 0, spec.dz ?? 0];
  const min: Vec3 = [centre[0] + Math.min(0, dx), centre[1] + Math.min(0, dy), centre[2] + Math.min(0, dz)];
  const max: Vec3 = [centre[0] + Math.max(0, dx) + 1, centre[1] + Math.max(0, dy) + 1, centre[2] + Math.max(0, dz) + 1];
  const { width, height } = typeInfo(entity.type);
  return entity.x + width / 2 > min[0] && entity.x - width / 2 < max[0] && entity.y + height > min[1] && entity.y < max[1] && entity.z + width / 2 > min[2] && entity.z - width / 2 < max[2];
}

function positional(spec: TargetSpec): boolean {
  return [spec.x, spec.y, spec.z, spec.dx, spec.dy, spec.dz, spec.distance].some((v) => v !== undefined);
}

function candidates(world: World, spec: TargetSpec, source: CommandSource): SimEntity[] {
  if (spec.variable === 's') return source.entity ? [source.entity] : [];
  const players = ['a', 'p', 'r'].includes(spec.variable);
  const pool = players ? [...world.players] : world.dimensions.flatMap((dimension) => world.entitiesIn(dimension));
  return positional(spec) ? pool.filter((e) => e.dimension === source.dimension) : pool;
}

export function resolveTargets(world: World, spec: TargetSpec, source: CommandSource): SimEntity[] {
  if (spec.kind === 'uuid') {
    const entity = world.findByUuid(spec.text);
    return entity ? [entity] : [];
  }
  if (spec.kind === 'name') {
    const player = world.findPlayerByName(spec.text);
    return player ? [player] : [];
  }
  const centre: Vec3 = [spec.x ?? source.pos[0], spec.y ?? source.pos[1], spec.z ?? source.pos[2]];
  let found = candidates(world, spec, source).filter(
    (e) =>
      matches(spec.types, (t) => e.type === t) &&
      matches(spec.names, (n) => world.displayName(e) === n) &&
      matches(spec.tags, (t) => e.tags.includes(t)) &&
      matches(spec.gameModes, (g) => e.player?.gameMode === g) &&
      (spec.gameModes.length === 0 || e.player !== null) &&
      inVolume(e, spec, centre) &&
      (spec.distance === undefined || (distanceSq(e, centre) >= (spec.distance.min ?? 0) ** 2 && distanceSq(e, centre) <= (spec.distance.max ?? Infinity) ** 2)),
  );
  const sort = spec.sort ?? (spec.variable === 'p' || spec.variable === 'n' ? 'nearest' : 'arbitrary');
  if (sort === 'nearest') found = [...found].sort((a, b) => distanceSq(a, centre) - distanceSq(b, centre));
  if (sort === 'furthest') found = [...found].sort((a, b) => distanceSq(b, centre) - distanceSq(a, centre));
  const limit = spec.limit ?? (SINGLE_VARIABLES.includes(spec.variable) ? 1 : Infinity);
  return found.slice(0, limit);
}
