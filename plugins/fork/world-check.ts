/**
 * Which folders `fork` may copy (issue 24, N10): a world (it has a `level.dat`), inside the
 * game's own server folder or a folder the operator listed in `allowedWorldRoots`. Without this
 * any folder the daemon can read (`/etc`, a home directory) could be copied next to the snapshots.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { McbridgeError } from 'mcbridge';
import { isInside } from './copy-world.js';

export const forkOptions = z
  .object({
    allowedWorldRoots: z
      .array(z.string().min(1), { error: 'allowedWorldRoots must be a list of folders, e.g. ["/srv/worlds"]' })
      .default([])
      .describe("folders besides the game's own server folder whose worlds fork may copy (world_dir)"),
  })
  .strict();
export type ForkOptions = z.infer<typeof forkOptions>;

async function real(dir: string): Promise<string | null> {
  return fsp.realpath(dir).catch(() => null);
}

/**
 * The world folder to copy, its symlinks resolved: refused (invalid_params) when it has no
 * level.dat, or when `world_dir` names a folder outside the game's server folder (the parent of
 * the world STATE reports) and outside every allowed root.
 */
export async function checkWorldDir(worldDir: string, game: { serverDir: string | null; explicit: boolean }, options: ForkOptions): Promise<string> {
  const resolved = await real(worldDir);
  if (resolved === null || !(await fsp.stat(resolved)).isDirectory()) {
    throw new McbridgeError('invalid_params', `world directory does not exist: ${worldDir}; pass world_dir=<path> of the world folder`, { worldDir });
  }
  const levelDat = await fsp.stat(path.join(resolved, 'level.dat')).catch(() => null);
  if (!levelDat?.isFile()) {
    throw new McbridgeError('invalid_params', `${worldDir} is not a Minecraft world: it has no level.dat; pass world_dir=<path> of a world folder`, { worldDir });
  }
  if (!game.explicit) return resolved;
  const roots = [...(game.serverDir === null ? [] : [game.serverDir]), ...options.allowedWorldRoots];
  for (const root of roots) {
    const realRoot = await real(root);
    if (realRoot !== null && isInside(realRoot, resolved)) return resolved;
  }
  const where = game.serverDir === null ? 'the game reports no world folder' : `the game's server folder is ${game.serverDir}`;
  throw new McbridgeError(
    'invalid_params',
    `world_dir ${worldDir} is outside the game's folder (${where}); fork copies only the game's worlds. ` +
      "To fork a world elsewhere, list its parent folder in the fork plugin's allowedWorldRoots (in the config: plugins: [['fork', { allowedWorldRoots: ['<folder>'] }]])",
    { worldDir, serverDir: game.serverDir, allowedWorldRoots: options.allowedWorldRoots },
  );
}
