/**
 * Every tool that writes takes a `request_id` (issue 26, item 4): sent again, the write never runs
 * twice, on either transport. And a snapshot over control protocol 1 says its files are on the
 * game host instead of reading a remote path here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../../../../support/errors.js';
import { startStack } from '../../../../support/helpers.js';
import { startControlStack } from '../../../../support/control.js';

const closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of closers.splice(0)) await s.close();
});

async function control() {
  const s = await startControlStack();
  closers.push(s);
  return s;
}

async function legacy(vantage: 'server' | 'client' = 'server') {
  const s = await startStack({ sim: { vantage } });
  closers.push(s);
  return s;
}

type Result = Record<string, any>;

describe('request_id on every write tool', () => {
  it('snapshot over control: the files are said to be on the game host; the same id answers the stored snapshot', async () => {
    const s = await control();
    const first = (await s.client.call('snapshot', { name: 'far-1', request_id: 'snap-1' })) as Result;
    expect(first).toMatchObject({ type: 'snapshot_ack', name: 'far-1', id: 'far-1', files: { read: false, issue: 'remote', entities: null } });
    expect(first.files.problem).toMatch(/control protocol 1.*not readable from here/);
    expect(first.duplicate).toBeUndefined();
    await s.client.call('wait', { ticks: 3 });
    const again = (await s.client.call('snapshot', { name: 'far-1', request_id: 'snap-1' })) as Result;
    expect(again).toMatchObject({ duplicate: true, name: 'far-1', tick: first.tick, orderHash: first.orderHash });
  });

  it('snapshot over control refuses a radius, which the mod would drop, and sends nothing', async () => {
    const s = await control();
    const err = await failure(s.client.call('snapshot', { radius: 16, name: 'near' }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/radius is not served over control protocol 1/);
    const listed = (await s.client.call('snapshots', {})) as Result;
    expect(listed.snapshots).toEqual([]);
    // Radius 0 means "everything", which is what the control op does.
    expect(await s.client.call('snapshot', { radius: 0, name: 'all' })).toMatchObject({ name: 'all' });
  });

  it('command_output over control: the same id runs the command once and answers its output again', async () => {
    const s = await control();
    const pigs = () => s.sim.world.entities.filter((e) => e.type === 'minecraft:pig').length;
    const before = pigs();
    const first = (await s.client.call('command_output', { command: 'summon minecraft:pig 0 64 0', request_id: 'co-1' })) as Result;
    const again = (await s.client.call('command_output', { command: 'summon minecraft:pig 0 64 0', request_id: 'co-1' })) as Result;
    expect(pigs()).toBe(before + 1);
    expect(first.duplicate).toBeUndefined();
    expect(again).toMatchObject({ duplicate: true, source: 'ack', output: first.output });
  });

  it('snapshot over the legacy link: the files are read back here, and the same id is not sent again', async () => {
    const s = await legacy();
    const first = (await s.client.call('snapshot', { name: 'near-1', request_id: 'snap-l' })) as Result;
    expect(first.files).toMatchObject({ read: true, orderHashMatches: true, issue: null });
    const sent = s.sim.received.length;
    const again = (await s.client.call('snapshot', { name: 'near-1', request_id: 'snap-l' })) as Result;
    expect(s.sim.received.length).toBe(sent);
    expect(again).toMatchObject({ duplicate: true, orderHash: first.orderHash });
  });

  it('chat on the client vantage: the same id sends one message', async () => {
    const s = await legacy('client');
    const first = (await s.client.call('chat', { message: 'once only', request_id: 'chat-1' })) as Result;
    const again = (await s.client.call('chat', { message: 'once only', request_id: 'chat-1' })) as Result;
    expect(s.sim.received.filter((line) => line === 'CHAT once only')).toHaveLength(1);
    expect(first).toMatchObject({ type: 'chat_ack' });
    expect(again).toMatchObject({ type: 'chat_ack', duplicate: true, requestId: 'chat-1' });
    expect((await failure(s.client.call('chat', { message: 'x', request_id: 'no spaces allowed' }))).code).toBe('invalid_params');
  });
});
