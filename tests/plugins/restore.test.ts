import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failure, sentSince, useStacks } from '../support/plugins.js';
import { CART_A, CART_B, recordedCarts } from '../support/restore.js';

/** The guarded restore against the sim (the predecessor's daemon restore, its bugs fixed). */
const stacks = useStacks();
const summons = (lines: string[]) => lines.filter((l) => l.startsWith('CMD /summon'));
const uuidsIn = (stack: { sim: { world: { entities: Array<{ uuid: string; player: unknown }> } } }) => stack.sim.world.entities.filter((e) => !e.player).map((e) => e.uuid);

describe('restore: dry run and refusals before anything is sent', () => {
  it('a dry run plans the summons, proves the endpoint and sends nothing that changes the game', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    const dry = await stack.call('restore', { dir, target: 'lab server', ...proof });
    expect(sentSince(stack, before)).toEqual(['STATE']);
    expect(dry).toMatchObject({
      dryRun: true,
      targetIsLabel: true,
      target: 'lab server',
      count: 2,
      summonable: 2,
      ok: null,
      verified: false,
      verdict: 'dry-run',
      checks: { endpoint: { verified: true, proofs: ['world_dir'] } },
    });
    // What the game said about itself, every field of STATE kept.
    expect(dry.endpoint).toEqual({
      instance: 'server',
      modPort: stack.sim.port,
      worldDir: stack.sim.worldDir,
      levelName: expect.any(String),
      serverVersion: expect.any(String),
      tick: expect.any(Number),
      players: expect.any(Number),
      dimensions: [...stack.sim.world.dimensions],
    });
    expect(dry.endpoint.dimensions).toContain('minecraft:overworld');
    expect(dry.commands).toHaveLength(2);
    expect(dry.commands[0]).toMatch(/^\/summon minecraft:chest_minecart 10\.5 64\.0 -3\.5 \{/);
    expect(dry.commands[1]).toMatch(/^\/summon minecraft:chest_minecart 11\.0 64\.0 -4\.0 \{/);
    expect(uuidsIn(stack)).toEqual([]);
  });

  it('a wrong expect_instance or expect_world_dir refuses, even in a dry run: the name is never the proof', async () => {
    const { stack, dir } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    const wrongInstance = await failure(stack.call('restore', { dir, expect_instance: 'client' }));
    expect(wrongInstance.message).toMatch(/expect_instance.*Nothing was sent.*mcbridge targets/);
    const wrongDir = await failure(stack.call('restore', { dir, dry_run: false, expect_world_dir: '/srv/elsewhere/world' }));
    expect(wrongDir.message).toMatch(/expect_world_dir=\/srv\/elsewhere\/world but the destination's world is/);
    expect(sentSince(stack, before)).toEqual(['STATE', 'STATE']);
  });

  it('two proofs, one of them wrong, refuse a dry run and an apply alike; nothing but STATE is sent', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    for (const dry_run of [true, false]) {
      const err = await failure(stack.call('restore', { dir, dry_run, ...proof, expect_instance: 'server', expect_level: 'not-this-level' }));
      expect(err.code).toBe('invalid_params');
      expect(err.message).toMatch(/destination endpoint check failed: expect_level=not-this-level but the destination's level is/);
      const other = await failure(stack.call('restore', { dir, dry_run, expect_world_dir: '/srv/elsewhere/world', expect_instance: 'server' }));
      expect(other.message).toMatch(/expect_world_dir=\/srv\/elsewhere\/world/);
    }
    expect(sentSince(stack, before)).toEqual(['STATE', 'STATE', 'STATE', 'STATE']);
    expect(uuidsIn(stack)).toEqual([]);
  });

  it('a corrupt meta (zeroed orderHash) is refused with its code before any request', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, orderHash: '0000000000000000' }));
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/cannot be restored: 1 blocking issue\(s\)\. Nothing was sent to the game\. \[order_hash\]/);
    expect(sentSince(stack, before)).toEqual([]);
  });

  it('an apply without a proof is refused; allow_unproven_destination lets it through, recorded', async () => {
    const { stack, dir } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, allow_source_world: true }));
    expect(err.message).toMatch(/apply requires an endpoint proof: pass expect_world_dir.*nothing was sent/);
    expect(sentSince(stack, before)).toEqual(['STATE']);
    const applied = await stack.call('restore', { dir, dry_run: false, allow_unproven_destination: true, allow_source_world: true });
    expect(applied.checks.endpoint).toMatchObject({ verified: false, overridden: true, action: 'allowed (allow_unproven_destination=true)' });
    expect(applied.verdict).toBe('ok');
  });

  it('STATE failing: refused with a proof given; overridden, it applies and says so', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.failNext('STATE');
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(err.message).toMatch(/cannot verify the destination endpoint: STATE failed .*nothing was sent/);
    expect(sentSince(stack, before)).toEqual(['STATE']);
    stack.sim.failNext('STATE');
    const applied = await stack.call('restore', { dir, dry_run: false, allow_unproven_destination: true, ...proof });
    expect(applied.checks.endpoint).toMatchObject({ verified: false, overridden: true });
    expect(applied.endpoint.error).toMatch(/simulated fault \(STATE\)/);
    expect(applied.verdict).toBe('ok');
  });

  it('a cancel while STATE is out ends as cancelled, not as a dry run without an endpoint', async () => {
    const { stack, dir } = await recordedCarts(stacks.start);
    stack.sim.fault('STATE', { delayMs: 1_000 }, { times: 1 });
    const abort = new AbortController();
    stack.sim.onRequest(({ line }) => {
      if (line === 'STATE') abort.abort();
    });
    // No expectation: a failed STATE would otherwise only be reported, and the dry run answered.
    const err = await failure(stack.call('restore', { dir }, { signal: abort.signal }));
    expect(err.code).toBe('cancelled');
  });

  it('parameter errors name the parameter and send nothing', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ dir, replace_existing: true, check_existing: false }, /replace_existing=true requires check_existing=true/],
      [{ dir, prior_tick_state: 'maybe' }, /prior_tick_state must be auto, frozen or running/],
      [{ dir, pos_tolerance: 'x' }, /pos_tolerance must be a number, got "x"/],
      [{ dir, ignore_nbt_keys: 5 }, /ignore_nbt_keys must be a key or a list of keys/],
      [{}, /restore needs a directory: the snapshot mc_fork returned/],
      [{ dir, directory: dir }, /dir/],
      [{ dir, collision_radius: 100 }, /collision_radius must be at most 16 blocks/],
    ];
    for (const [params, message] of cases) {
      const err = await failure(stack.call('restore', { ...params, ...proof }));
      expect(err.code, JSON.stringify(params)).toBe('invalid_params');
      expect(err.message).toMatch(message);
    }
    expect(sentSince(stack, before)).toEqual([]);
  });

  it("`prior_tick_state` is read case-insensitively ('RUNNING')", async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const applied = await stack.call('restore', { dir, dry_run: false, prior_tick_state: 'RUNNING', ...proof });
    expect(applied.tick).toMatchObject({ prior: 'running', priorSource: 'caller' });
  });
});

describe('restore: applying', () => {
  it('a running world is frozen for the restore and unfrozen after; summons in recorded order; ok', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await stack.call('restore', { dir, dry_run: false, target: 'lab', ...proof }, { onProgress: (f: any) => progress.push(f) });
    const sent = sentSince(stack, before);
    expect(sent.filter((l) => !l.startsWith('CMD /summon'))).toEqual([
      'STATE',
      'CMD tick query',
      'CMD tick freeze',
      'CMD forceload add -6 -20 27 13',
      'SNAPSHOT 0 restore-pre-lab',
      'SNAPSHOT 0 restore-check-lab',
      'CMD tick unfreeze',
    ]);
    expect(sent.indexOf('SNAPSHOT 0 restore-pre-lab')).toBeLessThan(sent.indexOf(summons(sent)[0]!));
    expect(summons(sent)).toHaveLength(2);
    expect(uuidsIn(stack)).toEqual([CART_A, CART_B]);
    expect(stack.sim.world.frozen).toBe(false);
    expect(result).toMatchObject({
      dryRun: false,
      issued: 2,
      failed: [],
      notAttempted: 0,
      partial: false,
      ok: true,
      verified: true,
      verdict: 'ok',
      tick: { prior: 'running', priorSource: 'query', frozenByBridge: true, restored: true, preserved: true },
      verification: { ok: true, matched: 2, orderHash: { match: true } },
      forceload: { command: 'forceload add -6 -20 27 13', added: true, released: null },
    });
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(progress[0]!.message).toContain(CART_A);
  });

  it('a frozen world is left alone: no freeze or unfreeze sent, preserved', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    await stack.call('command', { command: 'tick freeze' });
    const before = stack.sim.received.length;
    const result = await stack.call('restore', { dir, dry_run: false, ...proof });
    expect(sentSince(stack, before).filter((l) => /tick (freeze|unfreeze)/.test(l))).toEqual([]);
    expect(stack.sim.world.frozen).toBe(true);
    expect(result.tick).toMatchObject({ prior: 'frozen', priorSource: 'query', frozenByBridge: false, restored: null, preserved: true });
    expect(result.verdict).toBe('ok');
  });

  it('explicit prior_tick_state: running skips the query and freezes; frozen sends neither', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    let before = stack.sim.received.length;
    const running = await stack.call('restore', { dir, dry_run: false, prior_tick_state: 'running', ...proof });
    let sent = sentSince(stack, before);
    expect(sent).not.toContain('CMD tick query');
    expect(sent).toContain('CMD tick freeze');
    expect(running).toMatchObject({ verdict: 'ok', tick: { prior: 'running', priorSource: 'caller', frozenByBridge: true } });
    await stack.call('command', { command: 'kill @e[type=!player]' });
    before = stack.sim.received.length;
    const frozen = await stack.call('restore', { dir, dry_run: false, prior_tick_state: 'frozen', ...proof });
    sent = sentSince(stack, before);
    expect(sent.filter((l) => l.startsWith('CMD tick'))).toEqual([]);
    expect(frozen).toMatchObject({ verdict: 'ok', tick: { prior: 'frozen', priorSource: 'caller', frozenByBridge: false } });
  });

  it('an unreadable tick query refuses: it is the only command, no baseline snapshot, the world untouched', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('tick query', { output: ['游戏已冻结'] }, { times: 1 });
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(err.message).toMatch(/cannot tell from `tick query` whether the game is frozen.*nothing was restored.*prior_tick_state='frozen' or 'running'/);
    expect(err.message).toMatch(/\(the tick state was not changed\)$/);
    expect(sentSince(stack, before)).toEqual(['STATE', 'CMD tick query']);
    expect(uuidsIn(stack)).toEqual([]);
  });

  it("'The game is not frozen' is not read as frozen (the predecessor's misreading)", async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('tick query', { output: ['The game is not frozen'] }, { times: 1 });
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(err.message).toMatch(/cannot tell from `tick query`/);
  });

  it('a silently failed summon (game text, no entity) is caught by verification, with the game output', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { output: 'Unable to summon entity' }, { times: 1 });
    const result = await stack.call('restore', { dir, dry_run: false, ...proof });
    expect(result).toMatchObject({ ok: false, verdict: 'failed', partial: true, issued: 2, notAttempted: 0 });
    expect(result.failed).toEqual([expect.objectContaining({ uuid: CART_A, error: 'the entity is not present in the post-restore snapshot', gameOutput: ['Unable to summon entity'] })]);
    expect(result.verification.missing).toEqual({ count: 1, sample: [CART_A] });
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a refused summon stops the rest (fail fast); keep_going records every failure', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { error: 'refused' }, { times: 1 });
    const fast = await stack.call('restore', { dir, dry_run: false, verify: false, ...proof });
    expect(fast).toMatchObject({ ok: false, verdict: 'failed', issued: 0, notAttempted: 1, verification: null });
    expect(fast.failed).toEqual([expect.objectContaining({ uuid: CART_A, error: expect.stringMatching(/refused/) })]);
    await stack.call('command', { command: 'kill @e[type=!player]' });
    stack.sim.fault('summon', { error: 'refused' }, { times: 2 });
    const all = await stack.call('restore', { dir, dry_run: false, keep_going: true, ...proof });
    expect(all).toMatchObject({ issued: 0, notAttempted: 0, verdict: 'failed' });
    expect(all.failed.map((f: { uuid: string }) => f.uuid)).toEqual([CART_A, CART_B]);
  });

  it('verify=false never says ok, even when a summon silently failed: unverified, with the note', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { output: 'Unable to summon entity' }, { times: 1 });
    const result = await stack.call('restore', { dir, dry_run: false, verify: false, ...proof });
    expect(result).toMatchObject({ ok: null, verified: false, verdict: 'unverified', verification: null, issued: 2, failed: [] });
    expect(result.note).toMatch(/not a claim/);
  });

  it('passengers are not summoned: they come back inside their vehicle', async () => {
    const PIG = '0c000000-0000-4000-8000-00000000000c';
    const { stack, dir, proof } = await recordedCarts(stacks.start, { extra: [{ type: 'minecraft:pig', uuid: PIG, x: 11, y: 64, z: -4, vehicle: CART_B }] });
    const before = stack.sim.received.length;
    const result = await stack.call('restore', { dir, dry_run: false, ...proof });
    expect(result).toMatchObject({ count: 3, summonable: 2, issued: 2, skipped: [{ index: 2, uuid: PIG, reason: `passenger of ${CART_B}` }] });
    expect(summons(sentSince(stack, before)).some((l) => l.startsWith(`CMD /summon minecraft:pig`))).toBe(false);
    expect(stack.sim.world.findByUuid(PIG)?.vehicle?.uuid).toBe(CART_B);
    expect(result.verdict).toBe('ok');
    const unverified = await stack.call('restore', { dir, dry_run: true, ...proof });
    expect(unverified.commands).toHaveLength(2);
  });

  it('a failed verification snapshot: failed, with the reason', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.failNext('SNAPSHOT restore-check');
    const result = await stack.call('restore', { dir, dry_run: false, ...proof });
    expect(result).toMatchObject({ ok: false, verdict: 'failed', issued: 2 });
    expect(result.verification.error).toMatch(/^verification snapshot failed: .*simulated fault/);
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a recording from the nether refuses an overworld destination: no summons, unfrozen', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, dimension: 'minecraft:the_nether' }));
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(err.message).toMatch(
      /destination dimension check failed: recording is minecraft:the_nether, destination is minecraft:overworld.*\(the game was unfrozen again, as it was running before\)$/,
    );
    const sent = sentSince(stack, before);
    expect(summons(sent)).toEqual([]);
    expect(sent.at(-1)).toBe('CMD tick unfreeze');
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a failing final unfreeze: failed, restored false, preserved false, the error kept', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('tick unfreeze', { output: 'unfreeze refused' }, { times: 1 });
    const result = await stack.call('restore', { dir, dry_run: false, ...proof });
    expect(result).toMatchObject({ ok: false, verdict: 'failed', tick: { restored: false, preserved: false } });
    expect(result.tick.unfreezeError).toMatch(/unfreeze refused/);
    expect(result.verification.ok).toBe(true); // the entities are right; the tick state is not
  });

  it('freeze=false leaves the tick state alone; verify_radius and forceload=false shape the requests', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    const result = await stack.call('restore', { dir, dry_run: false, freeze: false, forceload: false, verify_radius: 64, ...proof });
    const sent = sentSince(stack, before);
    expect(sent.filter((l) => l.startsWith('CMD tick') || l.startsWith('CMD forceload'))).toEqual([]);
    expect(sent).toContain('SNAPSHOT 64.0 restore-check');
    expect(result).toMatchObject({ verdict: 'ok', forceload: null, tick: { prior: 'unknown', priorSource: null, restored: null, preserved: null } });
  });

  it('release_forceload removes the forceload at the end', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const result = await stack.call('restore', { dir, dry_run: false, release_forceload: true, ...proof });
    expect(stack.sim.received.at(-1)).toBe('CMD forceload remove -6 -20 27 13');
    expect(result.forceload).toMatchObject({ added: true, released: true });
    expect(stack.sim.world.forcedChunks.get('minecraft:overworld')?.size ?? 0).toBe(0);
  });

  it("an apply into the recording's own source world is refused unless allow_source_world; the dry run says so", async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, expect_world_dir: proof.expect_world_dir }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/the recording was taken from .*the destination's own world.*allow_source_world=true/);
    expect(sentSince(stack, before)).toEqual(['STATE']);
    const dry = await stack.call('restore', { dir });
    expect(dry.checks.sourceWorld).toMatchObject({ sameAsDestination: true, allowed: false });
    expect((await stack.call('restore', { dir, dry_run: false, ...proof })).verdict).toBe('ok');
  });

  it('command block minecarts and NBT with a Command are refused unless allow_command_entities', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const lines = fs
      .readFileSync(path.join(dir, 'entities.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    lines[1].type = 'minecraft:command_block_minecart';
    lines[1].nbt = lines[1].nbt.replace(/^\{/, '{Command:"op mallory",');
    fs.writeFileSync(path.join(dir, 'entities.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const before = stack.sim.received.length;
    for (const dry_run of [true, false]) {
      const err = await failure(stack.call('restore', { dir, dry_run, ...proof }));
      expect(err.code).toBe('invalid_params');
      expect(err.message).toMatch(/holds 1 entity\/entities that run commands .*line 2 minecraft:command_block_minecart .*allow_command_entities=true/);
    }
    expect(sentSince(stack, before)).toEqual([]);
    // A Command key alone (any type, any depth) counts too.
    lines[1].type = 'minecraft:chest_minecart';
    lines[1].nbt = lines[1].nbt.replace('{Command:"op mallory",', '{Passengers:[{id:"minecraft:command_block_minecart",Command:"op mallory"}],');
    fs.writeFileSync(path.join(dir, 'entities.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    expect((await failure(stack.call('restore', { dir, ...proof }))).message).toMatch(/run commands/);
    const allowed = await stack.call('restore', { dir, ...proof, allow_command_entities: true });
    expect(allowed.verdict).toBe('dry-run');
  });

  it('a forceload the game refuses (a box over 256 chunks) is reported as not added, with its text, and never removed', async () => {
    const far = { type: 'minecraft:chest_minecart', uuid: '0c000000-0000-4000-8000-00000000000c', x: 400, y: 64, z: 400 };
    const { stack, dir, proof } = await recordedCarts(stacks.start, { extra: [far] });
    const result = await stack.call('restore', { dir, dry_run: false, release_forceload: true, ...proof });
    expect(result.forceload).toMatchObject({ added: false, answer: 'refused', output: [expect.stringMatching(/Too many chunks/)], released: null });
    expect(stack.sim.received.filter((l) => l.startsWith('CMD forceload remove'))).toEqual([]);
  });
});
