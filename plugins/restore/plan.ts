/**
 * What a restore would send: one `/summon` per restorable record in
 * file (tick) order, passengers left to their vehicle's NBT, and the chunk box to keep loaded.
 */
import { McbridgeError } from 'mcbridge';
import type { SnapshotEntity } from '../snapshot/kit.js';
import { coordinateText } from './float-text.js';
import { isEntityType } from './validate.js';

export type Vec3 = [number, number, number];

export interface PlanItem {
  index: number;
  uuid: string;
  type: string;
  pos: Vec3;
  command: string;
}

export interface Skipped {
  index: number;
  uuid: string;
  reason: string;
}

export interface Plan {
  items: PlanItem[];
  skipped: Skipped[];
}

export interface Box {
  minX: number;
  minY: number;
  minZ: number;
  maxX: number;
  maxY: number;
  maxZ: number;
}

/** Blocks of padding around the recorded positions, for the forceload footprint. */
export const BOX_PADDING = 16;

export const isVec3 = (v: unknown): v is Vec3 => Array.isArray(v) && v.length === 3 && v.every((n) => typeof n === 'number' && Number.isFinite(n));

/** `/summon <type> <x> <y> <z> <nbt>`; a record that cannot be summoned is an error naming its uuid. */
export function summonCommand(record: SnapshotEntity): string {
  const uuid = String(record.uuid ?? '?');
  const fail = (problem: string) => {
    throw new McbridgeError('invalid_params', `snapshot entity ${uuid} cannot be summoned: ${problem}; nothing was sent to the game`, { uuid });
  };
  if (typeof record.type !== 'string' || record.type === '') fail('it has no type');
  if (!isEntityType(record.type)) fail(`its type ${JSON.stringify(record.type)} is not an entity id`);
  if (!isVec3(record.pos)) fail('pos must be 3 finite numbers');
  if (typeof record.nbt !== 'string' || record.nbt === '') fail('its NBT is empty');
  if (/[\r\n]/.test(record.nbt as string)) fail('its NBT spans lines');
  const [x, y, z] = record.pos as Vec3;
  return `/summon ${record.type} ${coordinateText(x)} ${coordinateText(y)} ${coordinateText(z)} ${record.nbt}`;
}

/** Restorable records become summons in order; passengers (`restorable: false`) are reported, not sent. */
export function planSummons(records: readonly SnapshotEntity[]): Plan {
  const plan: Plan = { items: [], skipped: [] };
  records.forEach((record, index) => {
    const uuid = String(record.uuid ?? '');
    if (record.restorable === false) {
      const vehicle = typeof record.vehicle === 'string' && record.vehicle ? record.vehicle : null;
      plan.skipped.push({ index, uuid, reason: vehicle ? `passenger of ${vehicle}` : 'restorable=false' });
      return;
    }
    plan.items.push({ index, uuid, type: String(record.type), pos: record.pos as Vec3, command: summonCommand(record) });
  });
  return plan;
}

/** The recorded positions' bounding box, padded; null without positions. */
export function recordedBox(records: readonly SnapshotEntity[]): Box | null {
  // A loop, not Math.min(...all): spreading 150,000 arguments overflows the stack.
  const [min, max] = [
    [Infinity, Infinity, Infinity],
    [-Infinity, -Infinity, -Infinity],
  ];
  for (const { pos } of records) {
    if (!isVec3(pos)) continue;
    for (const i of [0, 1, 2]) [min[i], max[i]] = [Math.min(min[i]!, pos[i]), Math.max(max[i]!, pos[i])];
  }
  if (min[0] === Infinity) return null;
  return {
    minX: min[0]! - BOX_PADDING,
    minY: min[1]! - BOX_PADDING,
    minZ: min[2]! - BOX_PADDING,
    maxX: max[0]! + BOX_PADDING,
    maxY: max[1]! + BOX_PADDING,
    maxZ: max[2]! + BOX_PADDING,
  };
}

/** `forceload add|remove <x0> <z0> <x1> <z1>`: the box's X/Z footprint in whole blocks. */
export function forceloadCommand(action: 'add' | 'remove', box: Box): string {
  return `forceload ${action} ${Math.floor(box.minX)} ${Math.floor(box.minZ)} ${Math.ceil(box.maxX)} ${Math.ceil(box.maxZ)}`;
}

/** An SNBT `Command` key at any depth (a passenger's too): what a command block minecart runs. */
const COMMAND_KEY = /(^|[{,\s])"?Command"?\s*:/;
const COMMAND_TYPES = new Set(['minecraft:command_block_minecart', 'command_block_minecart', 'minecraft:commandblock_minecart']);

/** Planned summons that would put a command runner into the game (issue 24, N13). */
export function commandEntities(plan: Plan, records: readonly SnapshotEntity[]): Array<{ index: number; uuid: string; type: string }> {
  return plan.items.filter((item) => COMMAND_TYPES.has(item.type) || COMMAND_KEY.test(String(records[item.index]?.nbt ?? ''))).map(({ index, uuid, type }) => ({ index, uuid, type }));
}
