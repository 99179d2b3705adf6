/**
 * The fork (predecessor §7.2, its bugs fixed): read the tick state, freeze if it runs, save-all
 * flush, SNAPSHOT, copy the world folder beside the snapshot, and put the tick state back as it
 * was on every exit path, cancel and a dropped link included.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { McbridgeError, type ModReply, type ToolContext } from 'mcbridge';
import { checkSnapshotFiles, snapshotAck, snapshotLine, str } from 'mcbridge/kit';
import { copyWorld, type WorldManifest } from './copy-world.js';
import { outputLines, queryTickState, savedTheGame, setTickState, type TickState } from './tick.js';
import type { ForkArgs, ForkResult } from './schema.js';

/** The file beside `world/` that describes the copy; written last, so it marks a complete fork. */
export const FORK_MANIFEST = 'fork-manifest.json';

/** How long the clean-up keeps trying to unfreeze across a reconnect (the host allows 10 s in all). */
const UNFREEZE_PATIENCE_MS = 8_000;

/**
 * Unfreeze, waiting out a dropped link: a fork must not leave a running game frozen. Once the
 * freeze was acknowledged, nothing this fork still has out (a cancelled SNAPSHOT or save the mod
 * may never answer) must land before the unfreeze, so it goes on a connection of its own rather
 * than waiting behind that owed reply (which holds the main connection for up to 10 s, the whole
 * clean-up budget). Before that, it queues behind the freeze, in order.
 */
async function unfreezeWithRetry(ctx: ToolContext, ownConnection: boolean): Promise<void> {
  const started = Date.now();
  for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      await setTickState((line) => ctx.request(line, { ownConnection }), 'running');
      return;
    } catch (err) {
      const code = (err as McbridgeError).code;
      if (code !== 'not_connected' || Date.now() - started + delay > UNFREEZE_PATIENCE_MS) throw err;
      await ctx.sleep(delay);
    }
  }
}

/**
 * The host gives all clean-ups 10 s; past that its message would only say "did not finish". Give
 * up a little earlier and say the game is still frozen, and why (e.g. the link still waits for
 * the reply of a cancelled request that the mod never sent).
 */
async function withinCleanupBudget(unfreeze: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new McbridgeError(
          'timeout',
          `the game is still frozen: \`tick unfreeze\` could not be sent within ${UNFREEZE_PATIENCE_MS + 1_000} ms ` +
            '(the mod has not answered an earlier request, or the link is down); run `tick unfreeze` when it is back',
        ),
      );
    }, UNFREEZE_PATIENCE_MS + 1_000);
  });
  unfreeze.catch(() => {}); // it may still settle after the race is lost
  try {
    await Promise.race([unfreeze, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where the world is: the caller's world_dir, else what STATE reports (this host must see it). */
async function worldDirOf(args: ForkArgs, ctx: ToolContext): Promise<string> {
  if (args.world_dir) return path.resolve(args.world_dir);
  const state: ModReply = await ctx.request('STATE');
  const raw = str(state.worldDir);
  if (!raw) {
    throw new McbridgeError(
      'mod_error',
      'the mod reported no STATE "worldDir" (it fills it only when the server vantage has a world loaded); ' +
        'pass world_dir=<path> to fork a world it cannot see',
      { step: 'STATE' },
    );
  }
  return path.resolve(raw); // the mod reports `<world>/.`
}

/** Say what happened to the tick state in the error itself; a cancel is left to the deferred unfreeze. */
async function failed(err: unknown, ctx: ToolContext, tick: { before: TickState | null }, claimUnfreeze: () => boolean): Promise<unknown> {
  if (ctx.signal.aborted) return err;
  const e = err instanceof McbridgeError ? err : new McbridgeError('unavailable', `fork failed: ${(err as Error).message}`);
  let outcome: string;
  if (tick.before === 'frozen') outcome = 'the game stays frozen, as it was before';
  else if (tick.before === null) outcome = 'the tick state was not touched (freeze: false)';
  else if (!claimUnfreeze()) outcome = 'the game was unfrozen again';
  else {
    try {
      await unfreezeWithRetry(ctx, true);
      outcome = 'the game was unfrozen again, as it was running before';
    } catch (u) {
      outcome = `and unfreezing failed, so the game is still frozen: ${(u as Error).message}; run \`tick unfreeze\``;
    }
  }
  return new McbridgeError(e.code, `${e.message} (${outcome})`, { ...e.details, tickBefore: tick.before, outcome });
}

export async function runFork(args: ForkArgs, ctx: ToolContext): Promise<ForkResult> {
  const send = (line: string) => ctx.request(line);
  const tick = { before: null as TickState | null, froze: false, after: null as TickState | null, restored: true, problem: null as string | null };
  let undone = false;

  if (args.freeze) {
    tick.before = await queryTickState(send);
    if (tick.before === 'running') {
      // Registered before the freeze is sent: if that request dies half-way the game may be frozen.
      ctx.defer(async (clean) => {
        if (!undone) await withinCleanupBudget(unfreezeWithRetry(clean, tick.froze));
      });
      await setTickState(send, 'frozen');
      tick.froze = true;
    }
  }

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
      worldDir = await worldDirOf(args, ctx);
      forkDir = path.join(ack.dir, 'world');
      await fsp.rm(path.join(ack.dir, FORK_MANIFEST), { force: true }); // a replaced fork's manifest no longer applies
      manifest = await copyWorld(worldDir, forkDir, {
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done.bytes, total.bytes, `copied ${done.files}/${total.files} files`),
      });
      const record = { protocol: 1, createdAt: Date.now(), source: worldDir, world: 'world', snapshot: ack.name, orderHash: ack.orderHash, ...manifest };
      await fsp.writeFile(path.join(ack.dir, FORK_MANIFEST), `${JSON.stringify(record, null, 2)}\n`);
    }
  } catch (err) {
    throw await failed(err, ctx, tick, () => {
      const first = !undone && tick.froze;
      undone = true;
      return first;
    });
  }

  if (tick.froze) {
    undone = true; // from here the success path unfreezes, and reports instead of failing (§10.12)
    try {
      await unfreezeWithRetry(ctx, false); // nothing is owed on success
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
