import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { McbridgeError } from 'mcbridge';
import type { Delivery } from './body.js';

/** What survives a restart: where the stream was read up to, and what each receiver still owed. */
export interface SpoolState {
  streamId?: string | undefined;
  lastSeq?: number | undefined;
  /** Per receiver key: undelivered bodies, oldest first (the one in flight included). */
  queues: Record<string, Delivery[]>;
  /** Written by a clean stop that had queued every event its stream held: nothing of that stream is missing. */
  closed?: boolean;
}

/** A receiver's key in the spool: a hash of its URL, so the file never holds the URL itself. */
export function receiverKey(url: string, index: number): string {
  return `${index}:${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
}

/**
 * The forwarder's state on disk, one JSON file replaced atomically (write a temporary file,
 * fsync it, rename it over, fsync the directory), so a crash leaves the old state or the new,
 * never half of one. It holds event bodies, never the secret (attempts are signed when sent).
 */
export class Spool {
  constructor(readonly file: string, readonly maxBytes: number) {}

  load(): SpoolState {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { queues: {} };
      throw new McbridgeError('invalid_params', `webhook spool ${this.file} cannot be read (${(err as NodeJS.ErrnoException).code}): check its permissions`);
    }
    try {
      const state = JSON.parse(text) as SpoolState;
      if (!state || typeof state !== 'object' || typeof state.queues !== 'object') throw new Error('shape');
      return state;
    } catch {
      throw new McbridgeError('invalid_params', `webhook spool ${this.file} is damaged: move it away to start without it (its undelivered events are then lost)`);
    }
  }

  /** Bytes the state takes on disk. */
  static size(state: SpoolState): number {
    return Buffer.byteLength(JSON.stringify(state));
  }

  save(state: SpoolState): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    try {
      const dir = openSync(dirname(this.file), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    } catch {
      // Some platforms cannot fsync a directory; the rename is still atomic.
    }
  }
}
