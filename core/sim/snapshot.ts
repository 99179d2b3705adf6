/**
 * SNAPSHOT and SNAPSHOTS (docs/protocol.md#snapshot-files): argument rules, name safety, the radius filter,
 * real `entities.jsonl` + `meta.json` files, and the orderHash over the non-player tick order.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { entityNbt } from './entity-json.js';
import { normaliseId } from './entity-types.js';
import { dbl, dblArray, flt, toJavaJson } from './json.js';
import { writeCompactSnbt } from './snbt.js';
import type { World } from './world.js';

export interface SnapshotEnv {
  world: World;
  snapshotsDir: string;
  millis: number;
  modVersion: string;
  worldDir: string;
  emit: (event: Record<string, unknown>) => void;
}

export type SnapshotOutcome = { ok: true; reply: Record<string, unknown> } | { ok: false; message: string };

const NUMBER_TOKEN = /^[-+]?\d+(\.\d+)?$/;
const DEVICE_NAMES = new Set(['con', 'prn', 'aux', 'nul', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`com${n}`, `lpt${n}`])]);
const IDENTIFIER = /^([a-z0-9_.-]+:)?[a-z0-9_./-]+$/;

/** First 16 hex chars of SHA-256 over the dashed UUIDs joined with ':'. Empty list → e3b0c44298fc1c14. */
export function orderHash(uuids: readonly string[]): string {
  return createHash('sha256').update(uuids.join(':'), 'utf8').digest('hex').slice(0, 16);
}

/** Why a snapshot name is refused, or null when it is safe as a folder name everywhere. */
export function snapshotNameProblem(name: string): string | null {
  if (name.length < 1 || name.length > 64) return 'must be 1-64 characters';
  if (!/^[A-Za-z0-9._-]+$/.test(name)) return 'only A-Z, a-z, 0-9, ".", "_" and "-" are allowed';
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  if (name.startsWith('.') || name.endsWith('.')) return 'must not start or end with "."';
  if (DEVICE_NAMES.has(name.split('.')[0].toLowerCase())) return 'is a reserved Windows device name';
  return null;
}

export interface SnapshotArgs {
  radius: number;
  name: string | null;
  dimension: string | null;
}

/** `[radius] [name] [dimension]`, positional: a number is the radius, a token without ':' the name. */
export function parseSnapshotArgs(args: string): SnapshotArgs {
  const tokens = args.split(/\s+/).filter(Boolean);
  let at = 0;
  let radius = 0;
  if (tokens[at] !== undefined && NUMBER_TOKEN.test(tokens[at])) radius = Number(tokens[at++]);
  let name: string | null = null;
  if (tokens[at] !== undefined && !tokens[at].includes(':')) name = tokens[at++];
  return { radius, name, dimension: tokens[at] ?? null };
}

function entityLine(world: World, order: number, uuid: string): string {
  const e = world.findByUuid(uuid)!;
  return toJavaJson({
    order,
    uuid: e.uuid,
    type: e.type,
    entityId: e.id,
    pos: dblArray([e.x, e.y, e.z]),
    vel: dblArray([e.vx, e.vy, e.vz]),
    yaw: flt(e.yaw),
    pitch: flt(e.pitch),
    nbt: writeCompactSnbt(entityNbt(e)),
    passengers: e.passengers.map((p) => p.uuid),
    vehicle: e.vehicle ? e.vehicle.uuid : null,
    restorable: e.vehicle === null,
  });
}

export function takeSnapshot(env: SnapshotEnv, args: SnapshotArgs): SnapshotOutcome {
  const { world } = env;
  const fail = (message: string): SnapshotOutcome => ({ ok: false, message });
  if (args.radius < 0) return fail('radius cannot be negative');
  const name = args.name ?? `snap-${world.tick}`;
  const problem = snapshotNameProblem(name);
  if (problem) return fail(`snapshot name rejected: ${problem}`);
  if (args.dimension !== null && !IDENTIFIER.test(args.dimension)) {
    return fail(`task failed: net.minecraft.IdentifierException: Non [a-z0-9/._-] character in path of location: ${args.dimension}`);
  }
  const dimension = args.dimension === null ? world.primaryDimension() : normaliseId(args.dimension);
  if (!world.hasDimension(dimension)) return fail(`no such dimension: ${args.dimension}`);

  let scanned = world.entitiesIn(dimension);
  if (args.radius > 0) {
    const centre = world.firstPlayerIn(dimension);
    if (!centre) return fail('a radius needs a player in that dimension; use radius 0 for everything');
    const r2 = args.radius * args.radius;
    scanned = scanned.filter((e) => (e.x - centre.x) ** 2 + (e.y - centre.y) ** 2 + (e.z - centre.z) ** 2 <= r2);
  }
  const players = scanned.filter((e) => e.player);
  const uuids = scanned.filter((e) => !e.player).map((e) => e.uuid);
  const hash = orderHash(uuids);

  const dir = path.join(env.snapshotsDir, name);
  const resolved = path.resolve(dir);
  if (path.dirname(resolved) !== path.resolve(env.snapshotsDir)) return fail(`snapshot path rejected: ${resolved}`);
  const replaced = fs.existsSync(dir);
  const body = uuids.map((uuid, order) => `${entityLine(world, order, uuid)}\n`).join('');
  const meta = {
    type: 'meta',
    millis: env.millis,
    protocol: 1,
    mod: 'mc-agent-interface',
    modVersion: env.modVersion,
    minecraft: '26.2',
    instance: 'server',
    tick: world.tick,
    dimension,
    radius: dbl(args.radius),
    entities: uuids.length,
    playersSkipped: players.length,
    players: players.map((p) => ({ name: p.player!.name, uuid: p.uuid, x: dbl(p.x), y: dbl(p.y), z: dbl(p.z) })),
    orderHash: hash,
    createdAt: env.millis,
    worldDir: env.worldDir,
    levelName: world.levelName,
  };
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'entities.jsonl'), body);
  } catch (err) {
    return fail(`snapshot failed: java.io.IOException: ${(err as Error).message}`);
  }
  try {
    fs.writeFileSync(path.join(dir, 'meta.json'), toJavaJson(meta));
  } catch (err) {
    return fail(`snapshot meta failed: java.io.IOException: ${(err as Error).message}`);
  }
  env.emit({ type: 'snapshot', millis: env.millis, text: `name=${name} entities=${uuids.length} orderHash=${hash}`, event: true });
  return {
    ok: true,
    reply: {
      type: 'snapshot_ack',
      millis: env.millis,
      detail: `name=${name} entities=${uuids.length}`,
      id: name,
      dir: resolved,
      entities: uuids.length,
      orderHash: hash,
      tick: world.tick,
      dimension,
      bytes: Buffer.byteLength(body),
      replaced,
    },
  };
}

const LISTED_KEYS = ['entities', 'tick', 'orderHash', 'createdAt', 'dimension', 'radius'] as const;

/** SNAPSHOTS: every folder under the snapshots dir, sorted, with six keys from its meta.json. */
export function listSnapshots(snapshotsDir: string): Record<string, unknown>[] {
  if (!fs.existsSync(snapshotsDir)) return [];
  const names = fs
    .readdirSync(snapshotsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return names.map((id) => {
    const metaFile = path.join(snapshotsDir, id, 'meta.json');
    if (!fs.existsSync(metaFile)) return { id };
    let meta: Record<string, unknown>;
    try {
      meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
      if (typeof meta !== 'object' || meta === null) throw new Error('not an object');
    } catch {
      return { id, metaError: 'unreadable' };
    }
    const entry: Record<string, unknown> = { id };
    for (const key of LISTED_KEYS) {
      if (!(key in meta)) continue;
      entry[key] = key === 'radius' && typeof meta[key] === 'number' ? dbl(meta[key]) : meta[key];
    }
    return entry;
  });
}
