/** Helpers for the restore tests: hand-written recordings, and a live sim forked into a lab sim. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { waitUntil } from 'mcbridge/testing';
import { gameOf, journalFile, orderHash, type JournalRecord } from '../../plugins/snapshot/kit.js';
import type { EntitySpec } from 'mcbridge/testing';
import type { Stack, StackOptions } from './plugins.js';

export type Record_ = Record<string, unknown>;

/** Temp dirs removed after each test. */
export function useTemps(prefix = 'mcbridge-restore-'): () => string {
  const temps: string[] = [];
  afterEach(() => {
    for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    temps.push(dir);
    return dir;
  };
}

/** A chest minecart record at `pos` (for the pure functions; its NBT is not the sim's). */
export function cart(uuid: string, pos: [number, number, number], extra: Record_ = {}): Record_ {
  return { uuid, type: 'minecraft:chest_minecart', pos, vel: [0, 0, 0], nbt: `{"Motion":[0.0d,0.0d,0.0d],"id":"${uuid}"}`, passengers: [], vehicle: null, restorable: true, ...extra };
}

/** The uuid numbered `n` (`00000000-0000-4000-8000-000000000007`), for hand-written records. */
export const numberedUuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const CART_A = '0a000000-0000-4000-8000-00000000000a';
export const CART_B = '0b000000-0000-4000-8000-00000000000b';
export const CART_A_POS: [number, number, number] = [10.5, 64, -3.5];
export const CART_B_POS: [number, number, number] = [11, 64, -4];

/**
 * A sim stack whose recording `rec` holds two chest minecarts (A then B, plus `extra` entities),
 * after which the carts were killed: the game is empty where the restore will summon them.
 */
export async function recordedCarts(
  start: (options?: StackOptions) => Promise<Stack>,
  options: { sim?: StackOptions['sim']; extra?: EntitySpec[]; keep?: boolean } = {},
): Promise<{ stack: Stack; dir: string; proof: { expect_world_dir: string; allow_source_world: true } }> {
  const carts: EntitySpec[] = [
    { type: 'minecraft:chest_minecart', uuid: CART_A, x: CART_A_POS[0], y: CART_A_POS[1], z: CART_A_POS[2] },
    { type: 'minecraft:chest_minecart', uuid: CART_B, x: CART_B_POS[0], y: CART_B_POS[1], z: CART_B_POS[2] },
  ];
  const stack = await start({ sim: { autoTick: false, entities: [...carts, ...(options.extra ?? [])], ...options.sim } });
  const snap = (await stack.call('snapshot', { name: 'rec' })) as { dir: string };
  if (!options.keep) await stack.call('command', { command: 'kill @e[type=!player]' });
  // The recording comes from this very world (its carts killed since), so an apply says it knows.
  return { stack, dir: snap.dir, proof: { expect_world_dir: worldDirOf(stack), allow_source_world: true } };
}

/** Write `meta.json` + `entities.jsonl` (orders and orderHash filled in unless given). */
export function writeRecording(dir: string, entities: Record_[], meta: Record_ = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  const lines = entities.map((e, order) => JSON.stringify({ order, ...e }));
  fs.writeFileSync(path.join(dir, 'entities.jsonl'), lines.map((l) => `${l}\n`).join(''));
  const hash = orderHash(entities.map((e) => String(e.uuid ?? '')));
  const full = { protocol: 1, tick: 100, dimension: 'minecraft:overworld', radius: 0, entities: entities.length, orderHash: hash, playersSkipped: 0, levelName: 'world', ...meta };
  fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(full));
  return dir;
}

/** Copy a fork's world/ into `<labDir>/world`, as an operator would before starting a lab server on it. */
export function makeLab(forkDir: string, labDir: string): string {
  fs.cpSync(forkDir, path.join(labDir, 'world'), { recursive: true });
  return labDir;
}

/** Options for a sim on a game dir with a small world folder. */
export const onDisk = (dir: string, sim: StackOptions['sim'] = {}): StackOptions => ({ sim: { autoTick: false, dir, worldDisk: { bytes: 1e6 }, ...sim } });

/** Fork the live stack and start a lab stack on a copy of the fork's world. */
export async function forkIntoLab(start: (options?: StackOptions) => Promise<Stack>, tmp: () => string, live?: Stack): Promise<{ live: Stack; lab: Stack; fork: Record<string, any> }> {
  const source = live ?? (await start(onDisk(tmp())));
  const fork = (await source.call('fork', { name: 'before' })) as Record<string, any>;
  const lab = await start(onDisk(makeLab(fork.forkDir, tmp())));
  return { live: source, lab, fork };
}

/** The lab's world folder as STATE reports it: the endpoint proof for an apply. */
export const worldDirOf = (stack: Stack) => path.join(stack.sim.dir, 'world');

/** The world journal file of the stack's game: where its restores record what to undo (the config folder is the sim's). */
export const journalPathOf = (stack: Stack) => journalFile(stack.sim.dir, gameOf({ host: stack.host.view() }));

/** What the journal says now, null when there is none (written by rename: never half a file). */
export function journalNow(stack: Stack): JournalRecord | null {
  const file = journalPathOf(stack);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as JournalRecord) : null;
}

/**
 * The apply put everything back itself: its journal ends with no request after the call's answer.
 * A journal left behind is undone by the journal service's recovery (it looks every second), which
 * also removes the file, but sends its undo first.
 */
export async function endsWithoutRecovery(stack: Stack): Promise<void> {
  const tail = stack.sim.received.length;
  await waitUntil(() => journalNow(stack) === null, 3_000, 'the journal to end');
  expect(stack.sim.received.slice(tail)).toEqual([]);
}
