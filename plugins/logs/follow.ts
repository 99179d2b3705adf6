/**
 * A log file followed for a server mcbridge did not start (`logFile`): appended bytes are read
 * in bounded slices; a new inode at the path (rotation) is read from its start once the old file's
 * rest is read; a file shorter than what was read (truncation) is read again from its start; a
 * missing file is waited for. Polled: a rotated or recreated file gives fs.watch nothing reliable.
 */
import fs from 'node:fs/promises';

/** The last bytes read, kept to recognise the file on the next read (a truncated one rewritten does not match them). */
const TAIL_BYTES = 64;

export interface FollowStatus {
  file: string;
  state: 'waiting' | 'following' | 'stopped';
  /** Why it waits (the file is missing, cannot be read). */
  problem: string | null;
  inode: number | null;
  offset: number;
  bytesRead: number;
  rotations: number;
  truncations: number;
}

export interface FollowOptions {
  pollMs?: number;
  /** Bytes read per slice: a burst of 100 MB arrives as slices, never as one buffer. */
  readBytes?: number;
  /** Where to begin in a file that is already there: at most this many bytes before its end. */
  backlogBytes?: number;
  /** Resume where a previous run stopped, when the file is still the same (same inode, not shorter). */
  resume?: { inode: number; offset: number } | undefined;
}

export class FileFollower {
  readonly status: FollowStatus;
  private handle: fs.FileHandle | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private first = true;
  private running: Promise<void> = Promise.resolve();
  /** The last bytes read: a file truncated and written past the old offset between two polls no longer has them there. */
  private tail = Buffer.alloc(0);
  private readonly pollMs: number;
  private readonly readBytes: number;
  private readonly backlogBytes: number;

  constructor(
    file: string,
    private readonly onData: (chunk: Buffer) => void,
    private readonly options: FollowOptions = {},
  ) {
    this.status = { file, state: 'waiting', problem: null, inode: null, offset: 0, bytesRead: 0, rotations: 0, truncations: 0 };
    this.pollMs = options.pollMs ?? 250;
    this.readBytes = options.readBytes ?? 256 * 1024;
    this.backlogBytes = options.backlogBytes ?? 1024 * 1024;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops polling and closes the file; what was read is handed on. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.handle?.close().catch(() => {});
    this.handle = null;
    this.status.state = 'stopped';
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll().finally(() => this.schedule(this.pollMs));
    }, ms);
    this.timer.unref?.();
  }

  private async poll(): Promise<void> {
    try {
      let stat: import('node:fs').Stats | null = null;
      try {
        stat = await fs.stat(this.status.file);
      } catch (err) {
        this.status.problem = `${this.status.file} is not there (${(err as NodeJS.ErrnoException).code}); waiting for it`;
      }
      if (this.handle !== null && (stat === null || stat.ino !== this.status.inode)) {
        // Rotated (or removed): the old file's rest first, then the new one from its start.
        await this.drain();
        await this.handle.close().catch(() => {});
        this.handle = null;
        if (stat !== null) this.status.rotations += 1;
      }
      if (stat === null) {
        this.status.state = 'waiting';
        return;
      }
      if (this.handle === null) await this.open();
      if ((await this.handle!.stat()).size < this.status.offset || !(await this.sameTail())) {
        this.status.truncations += 1;
        this.status.offset = 0;
        this.tail = Buffer.alloc(0);
      }
      await this.drain();
      this.status.problem = null;
    } catch (err) {
      this.status.state = 'waiting';
      this.status.problem = `${this.status.file} cannot be read (${(err as Error).message}); retrying`;
      await this.handle?.close().catch(() => {});
      this.handle = null;
    }
  }

  private async open(): Promise<void> {
    this.handle = await fs.open(this.status.file, 'r');
    const opened = await this.handle.stat();
    const resume = this.first ? this.options.resume : undefined;
    if (resume && resume.inode === opened.ino && resume.offset <= opened.size) this.status.offset = resume.offset;
    else this.status.offset = this.first ? Math.max(0, opened.size - this.backlogBytes) : 0;
    this.first = false;
    this.status.inode = opened.ino;
    this.tail = Buffer.alloc(0);
    this.status.state = 'following';
  }

  private async sameTail(): Promise<boolean> {
    if (this.tail.length === 0 || this.status.offset < this.tail.length) return true;
    const seen = Buffer.alloc(this.tail.length);
    const { bytesRead } = await this.handle!.read(seen, 0, seen.length, this.status.offset - this.tail.length);
    return bytesRead === seen.length && seen.equals(this.tail);
  }

  /**
   * Read to the current end in slices; stop() waits for the slice in hand. Each read starts at the
   * last bytes already read and must find them again: a file truncated and written anew between
   * the poll's check and this read (its new text past the old offset) is read from its start,
   * not from the middle of its new text.
   */
  private async drain(): Promise<void> {
    const buffer = Buffer.allocUnsafe(this.readBytes + TAIL_BYTES);
    for (;;) {
      const overlap = this.tail.length;
      const { bytesRead } = await this.handle!.read(buffer, 0, buffer.length, this.status.offset - overlap);
      if (overlap > 0 && (bytesRead < overlap || !buffer.subarray(0, overlap).equals(this.tail))) {
        this.status.truncations += 1;
        this.status.offset = 0;
        this.tail = Buffer.alloc(0);
        continue;
      }
      if (bytesRead === overlap) return;
      const fresh = bytesRead - overlap;
      this.status.offset += fresh;
      this.status.bytesRead += fresh;
      const chunk = Buffer.from(buffer.subarray(overlap, bytesRead));
      this.tail = Buffer.from(Buffer.concat([this.tail, chunk]).subarray(-TAIL_BYTES));
      this.onData(chunk);
      if (this.stopped) return;
    }
  }
}
