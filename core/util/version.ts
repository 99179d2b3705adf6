import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's version, from the nearest package.json named mcbridge above this file. Walked up
 * rather than at a fixed depth: the source runs from core/util/, the build from dist/core/util/, and
 * the bundled MCP front-end from dist/core/frontends/mcp/, where a fixed path found nothing and
 * MCP clients were told `0.0.0` (issue 27).
 */
function findVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'mcbridge' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here, or not ours: look further up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}

export const VERSION = findVersion();
