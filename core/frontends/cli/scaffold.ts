/** Writing new files for `mcbridge init` and `mcbridge create-plugin`: never over an existing one. */
import fs from 'node:fs';
import path from 'node:path';
import { McbridgeError } from '../../host/errors.js';

/**
 * Write `files` (relative path -> text) under `dir`. If any of them exists, nothing is written and
 * the refusal names every one, so a second run can never clobber work.
 */
export function writeNewFiles(dir: string, files: Record<string, string>, undo: string): string[] {
  const targets = Object.keys(files).map((rel) => path.join(dir, rel));
  const existing = targets.filter((file) => fs.existsSync(file));
  if (existing.length > 0) {
    throw new McbridgeError('invalid_params', `${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; nothing was written. ${undo}`, {
      reason: 'exists',
      paths: existing,
    });
  }
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { flag: 'wx' });
  }
  return targets;
}
