/**
 * How to run this mcbridge's own CLI as a child process (the server plugin runs `mcbridge sim` as a
 * launched server): this Node binary and the package's bin script, never whatever `mcbridge` is on PATH.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | null = null;

/** argv prefix: `[node, <package>/bin/mcbridge.js]`. */
export function mcbridgeCommand(): string[] {
  if (found === null) {
    // From core/kit (sources under test) or dist/core/kit (built): up to the package's folder.
    let dir = path.dirname(fileURLToPath(import.meta.url));
    for (let i = 0; i < 5 && !fs.existsSync(path.join(dir, 'bin', 'mcbridge.js')); i += 1) dir = path.dirname(dir);
    found = path.join(dir, 'bin', 'mcbridge.js');
  }
  return [process.execPath, found];
}
