/**
 * Putting a server's world folder in place from a template or a fork, whole or not at all. The
 * copy goes to a sibling folder first; then two renames swap it in (the old world set aside, the
 * new one moved in) and the old one is removed. A daemon killed at any point leaves either the
 * previous world or the new one in place, never half of each: `recoverWorld` (run before every
 * start) finishes or undoes what a killed reset began. The source is only read.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** A folder a world is copied from, said for status and errors. */
export interface WorldSource {
  kind: 'template' | 'fork';
  name: string;
  dir: string;
}

export class WorldError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'WorldError';
  }
}

const incoming = (worldDir: string) => path.join(path.dirname(worldDir), `.${path.basename(worldDir)}.mcbridge-incoming`);
const outgoing = (worldDir: string) => path.join(path.dirname(worldDir), `.${path.basename(worldDir)}.mcbridge-outgoing`);
const exists = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined;

/**
 * Finishes or undoes a reset a killed daemon left: the new world is kept once it was moved in,
 * the previous one is put back if it was set aside before that; a partial copy is removed.
 * Returns what it did, or null when there was nothing to do.
 */
export function recoverWorld(worldDir: string): string | null {
  const inc = incoming(worldDir);
  const out = outgoing(worldDir);
  const did: string[] = [];
  if (exists(out)) {
    if (exists(worldDir)) {
      fs.rmSync(out, { recursive: true, force: true });
      did.push('removed the previous world a reset had set aside (the new one was in place)');
    } else {
      fs.renameSync(out, worldDir);
      did.push('put the previous world back (a reset was stopped before the new one was in place)');
    }
  }
  if (exists(inc)) {
    fs.rmSync(inc, { recursive: true, force: true });
    did.push('removed the partial copy of a reset that was stopped');
  }
  return did.length > 0 ? did.join('; ') : null;
}

function nospace(err: NodeJS.ErrnoException): boolean {
  return err.code === 'ENOSPC' || err.code === 'EDQUOT';
}

/** Copies `source` over `worldDir` (created if missing); the world stays as it was when this fails. */
export async function replaceWorld(source: WorldSource, worldDir: string, onProgress?: (message: string) => void): Promise<{ bytes: number; files: number; replaced: boolean }> {
  if (!fs.statSync(source.dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new WorldError(`the ${source.kind} ${JSON.stringify(source.name)} (${source.dir}) is not a folder: create it, or name another`, { source: source.dir });
  }
  const real = (p: string) => fs.realpathSync(p);
  if (exists(worldDir) && real(worldDir) === real(source.dir)) throw new WorldError(`the ${source.kind} ${source.dir} is the world folder itself: a reset would copy it onto itself`);
  recoverWorld(worldDir);
  const inc = incoming(worldDir);
  const out = outgoing(worldDir);
  onProgress?.(`copying the ${source.kind} ${source.name} into place`);
  try {
    // Symbolic links are copied as links: a template never has its targets changed through them.
    await fsp.cp(source.dir, inc, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
  } catch (err) {
    await fsp.rm(inc, { recursive: true, force: true }).catch(() => undefined);
    const e = err as NodeJS.ErrnoException;
    const why = nospace(e) ? `the disk is full (${e.code})` : e.message;
    throw new WorldError(`copying the ${source.kind} ${JSON.stringify(source.name)} failed: ${why}. The world was left as it was${nospace(e) ? '; free some space and reset again' : ''}`, {
      errno: e.code ?? null,
    });
  }
  const { bytes, files } = sizeOf(inc);
  const replaced = exists(worldDir);
  if (replaced) fs.renameSync(worldDir, out);
  fs.renameSync(inc, worldDir);
  if (replaced) await fsp.rm(out, { recursive: true, force: true });
  return { bytes, files, replaced };
}

function sizeOf(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return { bytes, files };
}
