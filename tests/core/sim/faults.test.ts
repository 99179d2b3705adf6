import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestInfo, SimOptions, SimulatedMod } from '../../../core/sim/index.js';
import { LineClient, until, useSims } from '../../support/line-client.js';

const sims = useSims();
let sim: SimulatedMod;
let client: LineClient;

async function open(options: SimOptions = {}): Promise<void> {
  ({ sim, client } = await sims.start(options));
}

describe('failing a command', () => {
  it('failNext gives vanilla failure text once, without running the command, then commands work again', async () => {
    await open();
    const fault = sim.failNext('save-all');
    client.send('CMD save-all flush');
    const game = await client.nextEvent('game');
    const ack = await client.nextNonEvent();
    expect(game.text).toBe('Unable to save the game (is there enough disk space?)');
    expect(ack).toEqual({ type: 'cmd_ack', millis: expect.any(Number), detail: 'save-all flush', output: ['Unable to save the game (is there enough disk space?)'] });
    expect(sim.world.saves).toBe(0);
    expect(fault).toMatchObject({ hits: 1, remaining: 0 });
    expect(sim.faults).toEqual([]);
    expect(await client.command('save-all flush')).toEqual(['Saving the game (this may take a moment!)', 'Saved the game']);
    expect(sim.world.saves).toBe(1);
  });

  it('an armed option fault hits every match, slash or not, whole words only, until removed', async () => {
    await open({ faults: [{ target: '/tick unfreeze', output: ['No.', 'Still no.'] }] });
    await client.command('tick freeze');
    expect(await client.command('tick unfreeze')).toEqual(['No.', 'Still no.']);
    expect(await client.command('/tick unfreeze')).toEqual(['No.', 'Still no.']);
    expect(sim.world.frozen).toBe(true);
    expect((await client.command('tick unfreezex'))[0]).toBe('Incorrect argument for command');
    sim.faults[0].remove();
    expect(await client.command('tick unfreeze')).toEqual(['The game is running normally']);
    expect(sim.world.frozen).toBe(false);
  });

  it('can answer a command with an error reply instead, and counts only its times', async () => {
    await open();
    sim.fault('summon', { error: 'task failed: java.lang.IllegalStateException: busy' }, { times: 2 });
    const count = sim.world.entities.length;
    for (let i = 0; i < 2; i++) expect(await client.request('CMD summon minecraft:pig 0 64 0')).toMatchObject({ type: 'error', message: 'task failed: java.lang.IllegalStateException: busy' });
    expect(await client.command('summon minecraft:pig 0 64 0')).toEqual(['Summoned new Pig']);
    expect(sim.world.entities.length).toBe(count + 1);
  });
});

describe('failing a verb', () => {
  it('an error reply for SNAPSHOT, matched by a word of its argument; nothing is written', async () => {
    await open();
    sim.failNext('SNAPSHOT restore-check', { error: 'snapshot failed: java.io.IOException: No space left on device' });
    expect(await client.request('SNAPSHOT 0 restore-pre')).toMatchObject({ type: 'snapshot_ack', id: 'restore-pre' });
    expect(await client.request('SNAPSHOT 0 restore-check')).toEqual({ type: 'error', millis: expect.any(Number), message: 'snapshot failed: java.io.IOException: No space left on device' });
    expect(fs.existsSync(path.join(sim.snapshotsDir, 'restore-check'))).toBe(false);
    expect(await client.request('SNAPSHOT 0 restore-check')).toMatchObject({ type: 'snapshot_ack' });
  });

  it('a default verb fault is a task failure that keeps its place in the server-thread order', async () => {
    await open({ replyDelayMs: { CMD: 100 } });
    sim.failNext('STATE');
    client.send('CMD list', 'STATE', 'ENTITIES');
    expect((await client.nextNonEvent()).type).toBe('cmd_ack');
    expect(await client.nextNonEvent()).toMatchObject({ type: 'error', message: 'task failed: java.lang.IllegalStateException: simulated fault (STATE)' });
    expect((await client.nextNonEvent()).type).toBe('entities');
  });

  it('noReply leaves a request unanswered while later ones are answered', async () => {
    await open();
    sim.fault('STATE', { noReply: true }, { times: 1 });
    client.send('STATE');
    expect((await client.request('PING')).type).toBe('pong');
    expect((await client.request('STATE')).type).toBe('state');
    expect(sim.received).toEqual(['STATE', 'PING', 'STATE']);
  });

  it('delayMs answers late, and later server-thread replies stay behind it', async () => {
    await open();
    sim.failNext('save-all', { delayMs: 150 });
    client.send('CMD save-all flush', 'STATE', 'MARK in between');
    const order: string[] = [];
    while (order.length < 3) {
      const message = await client.next();
      if (!message.event) order.push(message.type);
    }
    expect(order).toEqual(['mark_ack', 'cmd_ack', 'state']);
  });

  it('refuses an output fault on a verb and a non-positive count', async () => {
    await open();
    expect(() => sim.fault('STATE', { output: 'x' })).toThrow(/command target/);
    expect(() => sim.fault('STATE', { noReply: true }, { times: 0 })).toThrow(/positive/);
  });
});

describe('dropping the connection', () => {
  it('before: the request never runs; the sim keeps listening', async () => {
    await open();
    sim.disconnectOn('tick freeze');
    client.send('CMD tick freeze');
    await until(() => client.closed);
    expect(sim.world.frozen).toBe(false);
    client = sims.track((await LineClient.open(sim.port)).client);
    expect(await client.command('tick freeze')).toEqual(['The game is frozen']);
  });

  it('after: SNAPSHOT runs and writes its files, but its reply is lost', async () => {
    await open();
    sim.disconnectOn('SNAPSHOT', 'after');
    client.send('SNAPSHOT 0 lost');
    await until(() => client.closed);
    expect(client.lines.slice(1).map((l) => JSON.parse(l).type)).not.toContain('snapshot_ack');
    expect(fs.existsSync(path.join(sim.snapshotsDir, 'lost', 'meta.json'))).toBe(true);
  });
});

describe('onRequest', () => {
  it('sees each matched request before it runs, so a test can act between steps', async () => {
    await open();
    const seen: RequestInfo[] = [];
    const off = sim.onRequest((request) => {
      seen.push(request);
      if (request.verb === 'SNAPSHOT') sim.summon({ type: 'minecraft:sheep', x: 9, y: 64, z: 9 });
    });
    const ack = await client.request('SNAPSHOT 0 mid');
    expect(ack.entities).toBe(6);
    await client.request('cmd /tick query');
    expect(seen).toEqual([
      { line: 'SNAPSHOT 0 mid', verb: 'SNAPSHOT', arg: '0 mid' },
      { line: 'cmd /tick query', verb: 'CMD', arg: '/tick query' },
    ]);
    off();
    await client.request('PING');
    expect(seen).toHaveLength(2);
  });
});
