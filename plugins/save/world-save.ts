/** World-save metadata read from a STATE reply: the save tool's result. */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ModReply } from 'mcbridge';
import { num } from 'mcbridge/kit';

/**
 * The mod reports the world root unnormalised (vanilla resolves it as ".", so it ends in `/.`
 * or `\.`). Normalise with the rules of the platform the path came from, not this host's.
 */
export function normaliseWorldDir(raw: string): string {
  const windows = /^[A-Za-z]:[\\/]/.test(raw) || raw.startsWith('\\\\') || (raw.includes('\\') && !raw.includes('/'));
  const flavour = windows ? path.win32 : path.posix;
  const normal = flavour.normalize(raw);
  const root = flavour.parse(normal).root;
  return normal.length > root.length ? normal.replace(/[\\/]+$/, '') : normal;
}

/** Whether the directory exists here; null when the path cannot be a path on this host. */
function existsHere(dir: string): boolean | null {
  if (!path.isAbsolute(dir)) return null;
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const number = (v: unknown): number | null => num(v) ?? null;
const list = (v: unknown): Record<string, unknown>[] | null => (Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : null);

export const worldSaveResult = z.object({
  type: z.literal('world_save'),
  instance: z.string(),
  inWorld: z.boolean().nullable(),
  levelName: z.string().nullable(),
  worldDir: z.string().nullable(),
  worldDirRaw: z.string().nullable(),
  worldDirExistsOnBridgeHost: z.boolean().nullable(),
  serverVersion: z.string().nullable(),
  tick: z.number().nullable(),
  players: z.number().nullable(),
  playerList: z.array(z.looseObject({})).nullable(),
  levels: z.array(z.looseObject({})).nullable(),
});
export type WorldSave = z.infer<typeof worldSaveResult>;

export function worldSaveFrom(state: ModReply, vantage: string): WorldSave {
  const raw = text(state.worldDir);
  const worldDir = raw ? normaliseWorldDir(raw) : null;
  return {
    type: 'world_save',
    instance: text(state.instance) ?? vantage,
    inWorld: typeof state.inWorld === 'boolean' ? state.inWorld : null,
    levelName: text(state.levelName),
    worldDir,
    worldDirRaw: raw,
    worldDirExistsOnBridgeHost: worldDir === null ? null : existsHere(worldDir),
    serverVersion: text(state.serverVersion),
    tick: number(state.tick),
    players: number(state.players),
    playerList: list(state.playerList),
    levels: list(state.levels),
  };
}
