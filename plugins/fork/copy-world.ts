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
  /** Relative POSIX paths left out by the skip list, and symlinks. */
  skipped: string[];
  /** Entity storage (`entities/*.mca`) left out of the copy. */
  stripped: string[];
}

export interface CopyOptions {
  signal?: AbortSignal;
  onProgress?: (done: { files: number; bytes: number }, total: { files: number; bytes: number }) => void;
  /** How file bodies move: `copyFile` (default) or a read/write stream `pipeline`. */
  method?: 'copyFile' | 'stream';
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
}

const posix = (rel: string) => rel.split(path.sep).join('/');
const isEntityStorage = (rel: string) => {
  const parts = rel.split(path.sep);
  return parts.length >= 2 && parts[parts.length - 2]!.toLowerCase() === 'entities' && rel.toLowerCase().endsWith('.mca');
};

async function plan(src: string): Promise<Plan> {
  const out: Plan = { dirs: [], files: [], skipped: [], stripped: [] };
  const walk = async (rel: string): Promise<void> => {
    const entries = await fsp.readdir(path.join(src, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = rel ? path.join(rel, entry.name) : entry.name;
      if (SKIP.has(entry.name.toLowerCase()) || entry.isSymbolicLink()) out.skipped.push(posix(child));
      else if (entry.isDirectory()) {
        out.dirs.push(child);
        await walk(child);
      } else if (entry.isFile()) {
        if (isEntityStorage(child)) out.stripped.push(posix(child));
        else {
          const { size, atime, mtime } = await fsp.stat(path.join(src, child));
          out.files.push({ rel: child, size, atime, mtime });
        }
      } else out.skipped.push(posix(child)); // sockets, fifos: nothing a world needs
    }
  };
  await walk('');
  return out;
}

async function copyOne(from: string, to: string, file: PlannedFile, method: CopyOptions['method']): Promise<void> {
  if (method === 'stream') await pipeline(fs.createReadStream(from), fs.createWriteStream(to, { flags: 'wx' }));
  else await fsp.copyFile(from, to, fs.constants.COPYFILE_EXCL);
  await fsp.utimes(to, file.atime, file.mtime); // region timestamps matter to tools that read worlds
}

/** Refuse a missing source and a target inside the source before anything is written. */
export async function checkCopy(src: string, dest: string): Promise<void> {
  const stat = await fsp.stat(src).catch(() => null);
  if (!stat?.isDirectory()) {
    throw new McbridgeError('invalid_params', `world directory does not exist: ${src}; pass world_dir=<path> of the world folder`, { src });
  }
  const [realSrc, absDest] = [await fsp.realpath(src), path.resolve(dest)];
  const rel = path.relative(realSrc, absDest);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
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
  const work = await plan(src);
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
    return { files: done.files, bytes: done.bytes, skipped: work.skipped, stripped: work.stripped };
  } catch (err) {
    await fsp.rm(dest, { recursive: true, force: true });
    throw err;
  }
}
