/**
 * The fork (as the predecessor forked, its bugs fixed): read the tick state, freeze if it runs, save-all
 * flush, SNAPSHOT, copy the world folder beside the snapshot, and put the tick state back as it
 * was on every exit path, cancel and a dropped link included.
 */
import { rememberFork } from './kit.js';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { McbridgeError, type ToolContext } from 'mcbridge';
import { outputLines, str } from 'mcbridge/kit';
import { checkSnapshotFiles, FORK_MANIFEST, savedTheGame, snapshotAck, snapshotLine, TickFreeze, worldOperation, type TickState, type WorldJournal } from '../snapshot/kit.js';
import { copyWorld, writeFailure, type WorldManifest } from './copy-world.js';
import { checkWorldDir, type ForkOptions } from './world-check.js';
import type { ForkArgs, ForkResult } from './schema.js';

export { FORK_MANIFEST };

/**
 * Where the world is: the caller's world_dir, else what STATE reports (this host must see it);
 * either way a world (level.dat), and world_dir only inside the game's folder or an allowed root.
 */
async function worldDirOf(args: ForkArgs, ctx: ToolContext<ForkOptions>): Promise<{ worldDir: string; linkRoots: string[] }> {
  const state = await ctx.request('STATE');
  const raw = str(state.worldDir);
  const serverDir = raw ? path.dirname(path.resolve(raw)) : null; // `<server>/<level>/.` resolves to `<server>/<level>`
  // The operator's roots are written relative to the config file, wherever the daemon runs.
  const options = { ...ctx.config, allowedWorldRoots: ctx.config.allowedWorldRoots.map((dir) => path.resolve(ctx.configDir, dir)) };
  const linkRoots = [...(serverDir === null ? [] : [serverDir]), ...options.allowedWorldRoots];
  if (args.world_dir) {
    return { worldDir: await checkWorldDir(path.resolve(args.world_dir), { serverDir, explicit: true }, options), linkRoots };
  }
  if (!raw) {
    throw new McbridgeError(
      'mod_error',
      'the mod reported no STATE "worldDir" (it fills it only when the server vantage has a world loaded); ' + 'pass world_dir=<path> to fork a world it cannot see',
      { step: 'STATE' },
    );
  }
  return { worldDir: await checkWorldDir(path.resolve(raw), { serverDir, explicit: false }, options), linkRoots };
}

/** Say what happened to the tick state in the error itself; a cancel is left to the deferred unfreeze. */
async function failed(err: unknown, ctx: ToolContext, freeze: TickFreeze | null): Promise<unknown> {
  if (ctx.signal.aborted) return err;
  const e = err instanceof McbridgeError ? err : new McbridgeError('unavailable', `fork failed: ${(err as Error).message}`);
  let outcome: string;
  if (freeze === null) outcome = 'the tick state was not touched (freeze: false)';
  else if (!freeze.froze) outcome = 'the game stays frozen, as it was before';
  else {
    try {
      await freeze.release(true);
      outcome = 'the game was unfrozen again, as it was running before';
    } catch (u) {
      outcome = `and unfreezing failed, so the game is still frozen: ${(u as Error).message}; run \`tick unfreeze\``;
    }
  }
  return new McbridgeError(e.code, `${e.message} (${outcome})`, { ...e.details, tickBefore: freeze?.before ?? null, outcome });
}

export function runFork(args: ForkArgs, ctx: ToolContext<ForkOptions>): Promise<ForkResult> {
  return worldOperation(ctx, 'fork', (journal) => fork(args, ctx, journal));
}

async function fork(args: ForkArgs, ctx: ToolContext<ForkOptions>, journal: WorldJournal): Promise<ForkResult> {
  const send = (line: string) => ctx.request(line);
  const freeze = args.freeze ? await TickFreeze.begin(ctx, { prior: 'auto', what: 'forked', instead: 'Pass freeze: false to fork without freezing.', cleanupOwnConnection: true, journal }) : null;
  await freeze?.freeze();
  const tick = {
    before: (freeze?.before ?? null) as TickState | null,
    froze: freeze?.froze ?? false,
    after: null as TickState | null,
    restored: true,
    problem: null as string | null,
  };

  let worldDir: string | null = null;
  let forkDir: string | null = null;
  let manifest: WorldManifest | null = null;
  let ack: ReturnType<typeof snapshotAck>;
  let files: Awaited<ReturnType<typeof checkSnapshotFiles>>;
  try {
    const saved = outputLines(await send('CMD save-all flush'));
    if (!savedTheGame(saved)) {
      throw new McbridgeError('mod_error', `save-all flush failed (${JSON.stringify(saved)}): the world on disk may be stale, so no fork was made`, {
        step: 'save-all flush',
        output: saved,
      });
    }

    ack = snapshotAck(await send(snapshotLine({ radius: args.radius, name: args.name, dimension: args.dimension })), args.name);
    files = await checkSnapshotFiles(ack);

    if (args.regions) {
      const world = await worldDirOf(args, ctx);
      worldDir = world.worldDir;
      forkDir = path.join(ack.dir, 'world');
      await fsp.rm(path.join(ack.dir, FORK_MANIFEST), { force: true }); // a replaced fork's manifest no longer applies
      await journal.update({ forkDir }); // a killed copy is removed by the next daemon
      manifest = await copyWorld(worldDir, forkDir, {
        signal: ctx.signal,
        linkRoots: world.linkRoots,
        onProgress: (done, total) => ctx.progress(done.bytes, total.bytes, `copied ${done.files}/${total.files} files`),
      });
      const record = { protocol: 1, createdAt: Date.now(), source: worldDir, world: 'world', snapshot: ack.name, orderHash: ack.orderHash, ...manifest };
      const manifestFile = path.join(ack.dir, FORK_MANIFEST);
      await fsp.writeFile(manifestFile, `${JSON.stringify(record, null, 2)}\n`).catch(async (err: unknown) => {
        // Without its manifest the copy is not a fork: remove both, so nothing half-written stays.
        await Promise.all([manifestFile, forkDir!].map((p) => fsp.rm(p, { recursive: true, force: true }).catch(() => {})));
        throw writeFailure(err, `writing ${manifestFile}`);
      });
      await journal.update({ forkDir: null });
      // Found by name from any target later (server_reset from a fork); a fork not remembered is still a fork.
      await rememberFork(ctx.host.stateDir, { name: ack.name, target: ctx.host.target, forkDir, snapshotDir: ack.dir, at: Date.now() }).catch((err: unknown) =>
        ctx.log.warn({ err: String(err) }, 'the fork is complete but could not be remembered in the state folder: server_reset cannot find it by name'),
      );
    }
  } catch (err) {
    // copyWorld removes its partial copy on failure; the journal need not keep it then.
    if (
      forkDir !== null &&
      !(await fsp.stat(forkDir).then(
        () => true,
        () => false,
      ))
    )
      await journal.update({ forkDir: null }).catch(() => undefined);
    throw await failed(err, ctx, freeze);
  }

  if (freeze?.froze) {
    try {
      await freeze.release(false); // nothing is owed on success; reported instead of failing: the predecessor left a frozen game when the report failed
    } catch (err) {
      tick.restored = false;
      tick.problem = `the fork is complete, but the game is still frozen: ${(err as Error).message}; run \`tick unfreeze\``;
    }
  }
  tick.after = tick.before === null ? null : tick.restored ? tick.before : 'frozen';
  return {
    name: ack.name,
    snapshotDir: ack.dir,
    forkDir,
    worldDir,
    manifest,
    orderHash: ack.orderHash,
    entities: ack.entities,
    tick: ack.tick,
    dimension: ack.dimension,
    replaced: ack.replaced,
    requested: { name: args.name ?? null, radius: args.radius ?? null, dimension: args.dimension ?? null, regions: args.regions, freeze: args.freeze, world_dir: args.world_dir ?? null },
    tickState: tick,
    verified: { snapshotFiles: files, manifestWritten: manifest !== null },
  };
}
