import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FORK_MANIFEST } from '../../plugins/fork/run.js';
import { failure, sentSince, useStacks } from '../support/plugins.js';

/**
 * Every step of a fork fails in turn; the game must end in the tick state it had before (a
 * running game unfrozen, a frozen one left frozen) and the error or result must say which.
 */
const stacks = useStacks();
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const live = (bytes = 4e6) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-forkf-'));
  temps.push(dir);
  return stacks.start({ sim: { autoTick: false, dir, worldDisk: { bytes } } });
};
/** Requests the link sent on a connection of their own (an unfreeze that must not wait behind an owed reply). */
const sideRequests = async (stack: Awaited<ReturnType<typeof live>>): Promise<number> => ((await stack.call('status')) as any).link.stats.sideRequests;
const freezeFirst = async (stack: Awaited<ReturnType<typeof live>>) => {
  await stack.call('command', { command: 'tick freeze' });
  expect(stack.sim.world.frozen).toBe(true);
};

describe('fork under faults', () => {
  it('a failing save-all: no snapshot, the running game is unfrozen, the error says both', async () => {
    const stack = await live();
    stack.sim.failNext('save-all');
    const err = await failure(stack.call('fork', { name: 'f1' }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/save-all flush failed .*Unable to save the game.*no fork was made \(the game was unfrozen again, as it was running before\)/);
    expect(err.details).toMatchObject({ step: 'save-all flush', tickBefore: 'running', outcome: 'the game was unfrozen again, as it was running before' });
    expect(stack.sim.world.frozen).toBe(false);
    expect(stack.sim.received).not.toContain('SNAPSHOT 0 f1');
  });

  it('a failing save-all on a frozen game leaves it frozen and never unfreezes', async () => {
    const stack = await live();
    await freezeFirst(stack);
    stack.sim.failNext('save-all');
    const before = stack.sim.received.length;
    const err = await failure(stack.call('fork', { name: 'f2' }));
    expect(err.message).toMatch(/the game stays frozen, as it was before/);
    expect(stack.sim.world.frozen).toBe(true);
    expect(sentSince(stack, before)).toEqual(['CMD tick query', 'CMD save-all flush']);
  });

  it('a failing SNAPSHOT: mod_error with the mod text, unfrozen over a connection of its own', async () => {
    const stack = await live();
    stack.sim.fault('SNAPSHOT', { error: 'snapshot failed: java.io.IOException: No space left on device' }, { times: 1 });
    const side = await sideRequests(stack);
    const err = await failure(stack.call('fork', { name: 'f3' }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/No space left on device.*unfrozen again/);
    expect(stack.sim.world.frozen).toBe(false);
    // After a failure the main connection may still owe a reply: the unfreeze does not queue behind it.
    expect(await sideRequests(stack)).toBe(side + 1);
  });

  it('a failure that is not a coded error (fork-manifest.json is a folder) is made one: unavailable, unfrozen, nothing copied', async () => {
    const stack = await live();
    const snapshotDir = path.join(stack.sim.modDir, 'snapshots', 'f11');
    fs.mkdirSync(path.join(snapshotDir, FORK_MANIFEST, 'inside'), { recursive: true });
    const err = await failure(stack.call('fork', { name: 'f11' }));
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/^fork failed: .*fork-manifest\.json.* \(the game was unfrozen again, as it was running before\)$/);
    expect(err.details).toMatchObject({ tickBefore: 'running', outcome: 'the game was unfrozen again, as it was running before' });
    expect(stack.sim.world.frozen).toBe(false);
    expect(fs.existsSync(path.join(snapshotDir, 'world'))).toBe(false);
    // The journal was cleared: the next fork is not refused as busy.
    fs.rmSync(path.join(snapshotDir, FORK_MANIFEST), { recursive: true });
    expect(await stack.call('fork', { name: 'f11' })).toMatchObject({ verified: { manifestWritten: true } });
  });

  it('the mod disconnecting at SNAPSHOT: not_connected, and the unfreeze waits for the reconnect', async () => {
    const stack = await live();
    stack.sim.disconnectOn('SNAPSHOT');
    const err = await failure(stack.call('fork', { name: 'f4' }));
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/unfrozen again/);
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('the link dropping at the final unfreeze is waited out too', async () => {
    const stack = await live();
    stack.sim.disconnectOn('tick unfreeze');
    const result = (await stack.call('fork', { name: 'f5' })) as Record<string, any>;
    expect(result.tickState).toMatchObject({ before: 'running', after: 'running', restored: true });
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a cancel during the copy: cancelled, the partial copy removed, no manifest, unfrozen', async () => {
    const stack = await live(24e6);
    const abort = new AbortController();
    const journalDir = path.join(stack.sim.dir, '.mcbridge');
    const journals = () => fs.readdirSync(journalDir).filter((f) => f.startsWith('world-journal-'));
    let duringCopy: Record<string, unknown> | undefined;
    const call = stack.call(
      'fork',
      { name: 'f6' },
      {
        signal: abort.signal,
        onProgress: (frame: { progress: number }) => {
          if (frame.progress === 0 || abort.signal.aborted) return;
          duringCopy = JSON.parse(fs.readFileSync(path.join(journalDir, journals()[0]!), 'utf8'));
          abort.abort();
        },
      },
    );
    const err = await failure(call);
    expect(err.code).toBe('cancelled');
    const snapshotDir = path.join(stack.sim.modDir, 'snapshots', 'f6');
    // While copying, the journal named the copy (a daemon killed then removes it); at the end it is gone.
    expect(duringCopy).toMatchObject({ op: 'fork', forkDir: path.join(snapshotDir, 'world'), tick: { before: 'running', changed: true } });
    expect(journals()).toEqual([]);
    expect(fs.existsSync(path.join(snapshotDir, 'meta.json'))).toBe(true); // the snapshot itself was taken
    expect(fs.existsSync(path.join(snapshotDir, 'world'))).toBe(false);
    expect(fs.existsSync(path.join(snapshotDir, FORK_MANIFEST))).toBe(false);
    // The cancelled call answers after its clean-ups ran: the unfreeze is already the last request.
    expect(stack.sim.received.at(-1)).toBe('CMD tick unfreeze');
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a cancel while a slow SNAPSHOT is in flight: cancelled, unfrozen once the mod answered', async () => {
    // The unfreeze goes on a connection of its own, not behind the cancelled SNAPSHOT's owed
    // reply; a mod that never answers is tests/faults/fork-hung.test.ts.
    const stack = await live();
    stack.sim.fault('SNAPSHOT', { delayMs: 200 }, { times: 1 });
    const abort = new AbortController();
    const off = stack.sim.onRequest(({ verb }) => {
      if (verb === 'SNAPSHOT') abort.abort();
    });
    const err = await failure(stack.call('fork', { name: 'f6b' }, { signal: abort.signal }));
    off();
    expect(err.code).toBe('cancelled');
    expect(stack.sim.received.at(-1)).toBe('CMD tick unfreeze');
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a failing final unfreeze is reported in the result, not as a failure of a complete fork', async () => {
    const stack = await live();
    stack.sim.failNext('tick unfreeze');
    const result = (await stack.call('fork', { name: 'f7' })) as Record<string, any>;
    expect(result.verified.manifestWritten).toBe(true);
    expect(result.tickState).toMatchObject({ before: 'running', froze: true, after: 'frozen', restored: false });
    expect(result.tickState.problem).toMatch(/still frozen: .*tick unfreeze/);
    expect(stack.sim.world.frozen).toBe(true);
  });

  it('a failing unfreeze after a failed step: the error says the game is still frozen', async () => {
    const stack = await live();
    stack.sim.failNext('SNAPSHOT');
    stack.sim.failNext('tick unfreeze');
    const err = await failure(stack.call('fork', { name: 'f8' }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/simulated fault \(SNAPSHOT\).*unfreezing failed, so the game is still frozen/);
    expect(stack.sim.world.frozen).toBe(true);
  });

  it('tick query text it cannot read: refused before anything changes', async () => {
    const stack = await live();
    stack.sim.fault('tick query', { output: ['Le jeu tourne normalement'] }, { times: 1 });
    const before = stack.sim.received.length;
    const err = await failure(stack.call('fork', { name: 'f9' }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/cannot tell .* nothing was forked and nothing was changed.*freeze: false/);
    expect(sentSince(stack, before)).toEqual(['CMD tick query']);
  });

  it('a failing tick freeze: nothing else is sent but the undo', async () => {
    const stack = await live();
    stack.sim.failNext('tick freeze');
    const before = stack.sim.received.length;
    const err = await failure(stack.call('fork', { name: 'f10' }));
    expect(err.message).toMatch(/`tick freeze` did not report the game frozen/);
    expect(sentSince(stack, before)).toEqual(['CMD tick query', 'CMD tick freeze', 'CMD tick unfreeze']);
    expect(stack.sim.world.frozen).toBe(false);
  });
});
