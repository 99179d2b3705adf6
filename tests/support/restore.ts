/** Helpers for the restore tests: hand-written recordings, and a live sim forked into a lab sim. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { orderHash } from 'mcbridge/kit';
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

/** A chest minecart record at `pos`, with NBT that carries its UUID, as the mod writes one. */
export function cart(uuid: string, pos: [number, number, number], extra: Record_ = {}): Record_ {
  return { uuid, type: 'minecraft:chest_minecart', pos, vel: [0, 0, 0], nbt: `{"Motion":[0.0d,0.0d,0.0d],"UUID":"${uuid}"}`, passengers: [], vehicle: null, restorable: true, ...extra };
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
export async function forkIntoLab(
  start: (options?: StackOptions) => Promise<Stack>,
  tmp: () => string,
  live?: Stack,
): Promise<{ live: Stack; lab: Stack; fork: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const source = live ?? (await start(onDisk(tmp())));
  const fork = (await source.call('fork', { name: 'before' })) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const lab = await start(onDisk(makeLab(fork.forkDir, tmp())));
  return { live: source, lab, fork };
}

/** The lab's world folder as STATE reports it: the endpoint proof for an apply. */
export const worldDirOf = (stack: Stack) => path.join(stack.sim.dir, 'world');
