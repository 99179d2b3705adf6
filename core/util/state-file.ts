/**
 * Files a daemon keeps in step with its state (a spool, a journal, a token): replaced whole and
 * atomically, written off the event loop, and never able to stop the daemon. A full disk or a
 * read-only folder is a condition to report and count, not an exception in a timer.
 */
import fs, { constants } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Replace `file` so a crash leaves the old content or the new, never half of one: write a
 * temporary file beside it, fsync it, rename it over, fsync the folder. Asynchronous (the loop
 * serves others while the disk works); rejects with the fs error, the temporary file removed.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  try {
    // Never through a link planted as the temporary file: that would write over its target. The failure unlinks it.
    const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, options.mode ?? 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  try {
    const folder = await open(dirname(file), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  } catch {
    // Some platforms cannot fsync a folder; the rename is atomic all the same.
  }
}

export interface StateFileStatus {
  file: string;
  /** Whether the last write failed (the file holds an older state). */
  failing: boolean;
  writes: number;
  failures: number;
  /** `CODE: message` of the last failure. */
  lastError: string | null;
  lastWrittenAt: number | null;
  /** Bytes of the last state written. */
  bytes: number;
}

export interface StateFileOptions {
  /** The whole content, taken when a write starts (so it is the newest state). */
  render(): string | Uint8Array;
  /** The least time between two writes (default 50 ms); a write that took longer spaces the next as much. */
  minIntervalMs?: number;
  /** While failing, try again this often even if nothing changes (default 1 s). */
  retryMs?: number;
  mode?: number;
  /** The first failure of a run of them (later ones are counted only), and the write that ended it. */
  onFailure?(err: NodeJS.ErrnoException, status: StateFileStatus): void;
  onRecovery?(status: StateFileStatus): void;
}

/**
 * A file kept in step with changing state: `changed()` as often as you like; writes coalesce
 * (one in flight, then one with whatever is newest), so a burst of changes costs one write and
 * a slow disk costs fewer writes, never a blocked loop. Failures are counted, reported once per
 * run of them and retried; nothing here throws or rejects.
 */
export class StateFile {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  /** The write that starts once the one in flight ends: every `durable()` meanwhile waits for it. */
  private nextWrite: Promise<boolean> | undefined;
  private dirty = false;
  private lastEndedAt = 0;
  private lastTook = 0;
  private readonly counts: StateFileStatus;

  constructor(
    readonly file: string,
    private readonly options: StateFileOptions,
  ) {
    this.counts = { file, failing: false, writes: 0, failures: 0, lastError: null, lastWrittenAt: null, bytes: 0 };
  }

  /** The state changed: write it soon. */
  changed(): void {
    this.dirty = true;
    if (this.timer || this.writing) return;
    const gap = Math.max(this.options.minIntervalMs ?? 50, this.lastTook);
    this.arm(Math.max(0, this.lastEndedAt + gap - Date.now()));
  }

  /** Write the newest state now (after a write in flight) and wait for it; resolves whatever happens. */
  async flush(): Promise<void> {
    this.clearTimer();
    await this.writing;
    this.dirty = true;
    await this.write();
  }

  /**
   * Until a write that began after this call has ended: true when it succeeded, so the state of
   * now is on disk. Callers in one tick share one write (a group commit), not one each.
   */
  durable(): Promise<boolean> {
    this.dirty = true;
    if (this.nextWrite) return this.nextWrite;
    this.clearTimer();
    // A write in flight may have rendered before this change: wait for it, then one more.
    const next = (this.writing ?? Promise.resolve()).then(async () => {
      if (this.nextWrite === next) this.nextWrite = undefined;
      this.dirty = true;
      await this.write();
      return !this.counts.failing;
    });
    this.nextWrite = next;
    return next;
  }

  /** Stop writing on schedule (a flush still writes). */
  close(): void {
    this.clearTimer();
  }

  status(): StateFileStatus {
    return { ...this.counts };
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, ms);
    this.timer.unref?.();
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private write(): Promise<void> {
    if (this.writing || !this.dirty) return this.writing ?? Promise.resolve();
    const started = Date.now();
    const run = async () => {
      this.dirty = false;
      try {
        const data = this.options.render();
        await writeFileAtomic(this.file, data, this.options.mode !== undefined ? { mode: this.options.mode } : {});
        this.succeeded(typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength);
      } catch (err) {
        this.failed(err as NodeJS.ErrnoException);
      }
    };
    this.writing = run().finally(() => {
      this.writing = undefined;
      this.lastEndedAt = Date.now();
      this.lastTook = this.lastEndedAt - started;
      if (this.dirty) this.changed();
      else if (this.counts.failing && !this.timer) {
        this.dirty = true;
        this.arm(this.options.retryMs ?? 1000);
      }
    });
    return this.writing;
  }

  private succeeded(bytes: number): void {
    const recovered = this.counts.failing;
    Object.assign(this.counts, { failing: false, writes: this.counts.writes + 1, lastWrittenAt: Date.now(), bytes });
    if (recovered) this.report(() => this.options.onRecovery?.(this.status()));
  }

  private failed(err: NodeJS.ErrnoException): void {
    const first = !this.counts.failing;
    this.counts.failing = true;
    this.counts.failures += 1;
    this.counts.lastError = `${err?.code ?? 'error'}: ${err?.message ?? String(err)}`;
    if (first) this.report(() => this.options.onFailure?.(err, this.status()));
  }

  /** A reporter that throws must not turn a handled failure into an unhandled one. */
  private report(fn: () => void): void {
    try {
      fn();
    } catch {
      // nothing more to tell
    }
  }
}

/**
 * A file the daemon keeps, read back at most `maxBytes`: never through a symbolic link (it writes
 * a plain file by rename), never hanging on a pipe in its place. Null when there is none; else
 * its text, or the problem in words (`what` names the kind of file). Synchronous: such files are read once, at start.
 */
export function readOwnFile(file: string, maxBytes: number, what: string): { text: string } | { problem: string } | null {
  let fd: number;
  try {
    fd = fs.openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') return { problem: 'it is a symbolic link; the daemon writes a plain file there' };
    return { problem: `cannot open it: ${(err as Error).message}` };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { problem: `it is not a plain file (${stat.isDirectory() ? 'a folder' : 'a pipe, socket or device'})` };
    if (stat.size > maxBytes) return { problem: `it is ${stat.size} bytes, over the ${maxBytes} ${what} can take` };
    const buffer = Buffer.alloc(stat.size);
    const read = fs.readSync(fd, buffer, 0, stat.size, 0);
    return { text: buffer.subarray(0, read).toString('utf8') };
  } catch (err) {
    return { problem: `cannot read it: ${(err as Error).message}` };
  } finally {
    fs.closeSync(fd);
  }
}
