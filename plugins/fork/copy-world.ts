/**
 * Copy a world folder for a fork (the predecessor's copy rules): sorted walk, a skip list at any depth, entity
 * storage stripped (its entities would respawn beside restored ones), files streamed by the
 * kernel (copyFile: copy_file_range / reflink), never held in memory.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { McbridgeError } from 'mcbridge';

/** Names never copied, at any depth, ignoring case: the lock, per-player data, logs. */
export const SKIPPED_NAMES = ['session.lock', 'playerdata', 'players', 'stats', 'advancements', 'logs'];
const SKIP = new Set(SKIPPED_NAMES);
/** Files copied at once: libuv's default thread pool has four threads. */
const COPY_CONCURRENCY = 4;

export interface WorldManifest {
  files: number;
  bytes: number;
  /** Relative POSIX paths left out by the skip list (and sockets or fifos). */
  skipped: string[];
  /** Symlinks inside the world that were followed: what they point at was copied in their place. */
  followed: string[];
  /** Entity storage (`entities/*.mca`) left out of the copy. */
  stripped: string[];
}

export interface CopyOptions {
  signal?: AbortSignal;
  onProgress?: (done: { files: number; bytes: number }, total: { files: number; bytes: number }) => void;
  /** How file bodies move: `copyFile` (default) or a read/write stream `pipeline`. */
  method?: 'copyFile' | 'stream';
  /** Folders besides the world itself that a symlink inside it may point into (the game's folder, allowed roots). */
  linkRoots?: readonly string[];
}

/** Whether `target` is `root` or inside it (both absolute, symlinks resolved). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

interface PlannedFile {
  rel: string;
  size: number;
  atime: Date;
  mtime: Date;
}

interface Plan {
  dirs: string[];
  files: PlannedFile[];
  skipped: string[];
  stripped: string[];
  followed: string[];
}

/** Folders deeper than this, or more entries than this, are not a world: the walk stops with an error. */
const MAX_DEPTH = 64;
const MAX_ENTRIES = 2_000_000;

const posix = (rel: string) => rel.split(path.sep).join('/');
const isEntityStorage = (rel: string) => {
  const parts = rel.split(path.sep);
  return parts.length >= 2 && parts[parts.length - 2]!.toLowerCase() === 'entities' && rel.toLowerCase().endsWith('.mca');
};

const refuse = (message: string, rel: string) => new McbridgeError('invalid_params', `${message}; nothing was copied. Fix the world folder, or fork with regions: false`, { path: rel });

/**
 * What to copy, in sorted order. A symlink into the world or a link root is followed (a region
 * folder on another disk is common) and listed; one pointing elsewhere or nowhere, a loop back
 * into an enclosing folder, or a walk past the bounds ends the fork, since a copy that left data
 * out must never look complete (issue 24, N12).
 */
async function plan(src: string, linkRoots: readonly string[]): Promise<Plan> {
  const roots = [await fsp.realpath(src), ...(await Promise.all(linkRoots.map((r) => fsp.realpath(r).catch(() => null)))).filter((r) => r !== null)];
  const out: Plan = { dirs: [], files: [], skipped: [], stripped: [], followed: [] };
  let entriesSeen = 0;
  const walk = async (rel: string, enclosing: ReadonlySet<string>): Promise<void> => {
    const here = await fsp.realpath(path.join(src, rel));
    if (enclosing.has(here)) throw refuse(`${posix(rel)} links back to a folder that encloses it (a symlink loop)`, posix(rel));
    if (enclosing.size >= MAX_DEPTH) throw refuse(`${posix(rel)} is more than ${MAX_DEPTH} folders deep`, posix(rel));
    const inner = new Set(enclosing).add(here);
    const entries = await fsp.readdir(path.join(src, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++entriesSeen > MAX_ENTRIES) throw refuse(`the world folder holds more than ${MAX_ENTRIES} entries`, posix(rel));
      const child = rel ? path.join(rel, entry.name) : entry.name;
      if (SKIP.has(entry.name.toLowerCase())) {
        out.skipped.push(posix(child));
        continue;
      }
      const stat = await fsp.stat(path.join(src, child)).catch(() => null); // follows a symlink
      if (stat === null) throw refuse(`${posix(child)} is a symlink to nothing (dangling)`, posix(child));
      if (entry.isSymbolicLink()) {
        const target = await fsp.realpath(path.join(src, child));
        if (!roots.some((root) => isInside(root, target))) {
          throw refuse(`${posix(child)} links to ${target}, outside the world and the game's folder (list its folder in allowedWorldRoots to copy it)`, posix(child));
        }
        out.followed.push(posix(child));
      }
      if (stat.isDirectory()) {
        out.dirs.push(child);
        await walk(child, inner);
      } else if (stat.isFile()) {
        if (isEntityStorage(child)) out.stripped.push(posix(child));
        else out.files.push({ rel: child, size: stat.size, atime: stat.atime, mtime: stat.mtime });
      } else out.skipped.push(posix(child)); // sockets, fifos: nothing a world needs
    }
  };
  await walk('', new Set());
  return out;
}

async function copyOne(from: string, to: string, file: PlannedFile, method: CopyOptions['method']): Promise<void> {
  if (method === 'stream') await pipeline(fs.createReadStream(from), fs.createWriteStream(to, { flags: 'wx' }));
  else await fsp.copyFile(from, to, fs.constants.COPYFILE_EXCL);
  await fsp.utimes(to, file.atime, file.mtime); // region timestamps matter to tools that read worlds
}

const DISK_TROUBLE: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EIO: 'an I/O error',
};

/** A failed write as a coded error that says the partial copy is gone and what to do; other errors unchanged. */
export function writeFailure(err: unknown, what: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !(code in DISK_TROUBLE)) return err;
  return new McbridgeError(
    'unavailable',
    `${what} failed: ${DISK_TROUBLE[code]} (${code}: ${(err as Error).message}); the partial copy was removed. ` +
      'Free space (or fix the permissions) where the snapshots are written, then fork again',
    { errno: code },
  );
}

/** Refuse a missing source and a target inside the source before anything is written. */
export async function checkCopy(src: string, dest: string): Promise<void> {
  const stat = await fsp.stat(src).catch(() => null);
  if (!stat?.isDirectory()) {
    throw new McbridgeError('invalid_params', `world directory does not exist: ${src}; pass world_dir=<path> of the world folder`, { src });
  }
  const [realSrc, absDest] = [await fsp.realpath(src), path.resolve(dest)];
  if (isInside(realSrc, absDest)) {
    throw new McbridgeError('invalid_params', `refusing to copy the world into itself: ${absDest} is inside ${realSrc}`, { src, dest });
  }
}

/**
 * Copy `src` into `dest` (replaced if it exists). On any failure, cancel included, the partial
 * copy is removed so no half fork looks complete; the error says so.
 */
export async function copyWorld(src: string, dest: string, options: CopyOptions = {}): Promise<WorldManifest> {
  await checkCopy(src, dest);
  const { signal, onProgress } = options;
  const work = await plan(src, options.linkRoots ?? []);
  const total = { files: work.files.length, bytes: work.files.reduce((n, f) => n + f.size, 0) };
  await fsp.rm(dest, { recursive: true, force: true });
  try {
    await fsp.mkdir(dest, { recursive: true });
    for (const dir of work.dirs) await fsp.mkdir(path.join(dest, dir), { recursive: true });
    const done = { files: 0, bytes: 0 };
    onProgress?.({ ...done }, total);
    // A few files at a time, taken in sorted order: each copy is a hop to the thread pool and
    // back, and on a busy machine waiting for those hops one by one cost more than the copying.
    const next = work.files.values();
    let failed = false;
    const worker = async (): Promise<void> => {
      for (let item = next.next(); !item.done && !failed; item = next.next()) {
        const file = item.value;
        try {
          signal?.throwIfAborted();
          await copyOne(path.join(src, file.rel), path.join(dest, file.rel), file, options.method);
        } catch (err) {
          failed = true;
          throw err;
        }
        done.files += 1;
        done.bytes += file.size;
        onProgress?.({ ...done }, total);
      }
    };
    // Every worker has stopped before a failure removes the partial copy.
    const outcomes = await Promise.allSettled(Array.from({ length: COPY_CONCURRENCY }, worker));
    const failure = outcomes.find((o) => o.status === 'rejected');
    if (failure) throw failure.reason;
    return { files: done.files, bytes: done.bytes, skipped: work.skipped, stripped: work.stripped, followed: work.followed };
  } catch (err) {
    await fsp.rm(dest, { recursive: true, force: true }).catch(() => {}); // a failing removal must not hide why the copy failed
    throw writeFailure(err, `copying the world into ${dest}`);
  }
}
