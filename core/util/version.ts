import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function findVersion(): string {
  // Source runs from core/util/, the build from dist/core/util/: try both package.json locations.
  for (const candidate of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === 'mcbridge' && pkg.version) return pkg.version;
    } catch {
      // not this one
    }
  }
  return '0.0.0';
}

export const VERSION = findVersion();
