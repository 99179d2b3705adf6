/** What the write ledger file tests share: a logger that keeps its warnings, a file as a daemon writes it. */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../../core/util/log.js';

export function recorder(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const log = { warn: (_: unknown, msg: string) => warnings.push(msg), info: () => {} } as unknown as Logger;
  return { log, warnings };
}

/** A ledger file of target `default` listing `entries`, as a daemon writes it. */
export function writeLedgerFile(file: string, entries: unknown[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ format: 'mcbridge-write-ledger', version: 1, target: 'default', savedAt: Date.now(), entries }));
}
