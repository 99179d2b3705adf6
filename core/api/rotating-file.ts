/**
 * A JSON-lines file renamed to FILE.1 (FILE.1 to FILE.2, ...) when it grows past maxBytes, that
 * survives what happens to files under a long-running daemon: removed or renamed by logrotate
 * (it reopens FILE by name), a failed rotation or a full disk (the line is lost and counted; the
 * next write tries again). Its descriptor is forgotten the moment it is closed, so a stale number
 * can never be closed or written again after the kernel hands it to a socket.
 */
import fs from 'node:fs';

export interface RotatingFileStatus {
  file: string;
  /** Lines that could not be written (full disk, removed folder, ...), this daemon run. */
  lost: number;
  /** Times FILE was found removed or replaced and opened again. */
  reopened: number;
  /** The last failure, while writes are failing. */
  failing?: string;
}

export class RotatingFile {
  private fd: number | null = null;
  private ino = 0;
  private size = 0;
  private lost = 0;
  private reopened = 0;
  private failing: string | undefined;

  /** Opens FILE now, so a path that cannot be written is refused at start. */
  constructor(
    readonly file: string,
    private readonly maxBytes: number,
    private readonly keep: number,
    private readonly onReopen: () => void,
  ) {
    this.open();
  }

  /** Appends one line; returns the error when the line was lost. */
  write(line: string): Error | null {
    try {
      if (this.fd !== null && this.moved()) {
        this.release();
        this.reopened += 1;
        this.onReopen();
      }
      if (this.fd === null) this.open();
      const bytes = Buffer.byteLength(line);
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      fs.writeSync(this.fd!, line);
      this.size += bytes;
    } catch (err) {
      this.lost += 1;
      this.failing = (err as Error).message;
      return err as Error;
    }
    this.failing = undefined;
    return null;
  }

  status(): RotatingFileStatus {
    return { file: this.file, lost: this.lost, reopened: this.reopened, ...(this.failing ? { failing: this.failing } : {}) };
  }

  close(): void {
    this.release();
  }

  /** FILE is gone, or is another file than the one open (renamed away and created anew). */
  private moved(): boolean {
    const now = fs.statSync(this.file, { throwIfNoEntry: false });
    return now === undefined || now.ino !== this.ino;
  }

  private open(): void {
    const fd = fs.openSync(this.file, 'a', 0o600);
    const stat = fs.fstatSync(fd);
    this.fd = fd;
    this.ino = stat.ino;
    this.size = stat.size;
  }

  /** Forget the descriptor before closing it: whatever the close does, it is never closed twice. */
  private release(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) {
      try {
        fs.closeSync(fd);
      } catch {
        // Already unusable; nothing more to release.
      }
    }
  }

  private rotate(): void {
    this.release();
    for (let i = this.keep - 1; i >= 1; i--) {
      if (fs.existsSync(`${this.file}.${i}`)) fs.renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    }
    if (this.keep > 0) fs.renameSync(this.file, `${this.file}.1`);
    else fs.rmSync(this.file, { force: true });
    this.open();
  }
}
