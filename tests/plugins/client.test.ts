import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_CAPABILITIES } from 'mcbridge/testing';
import type { Manifest } from 'mcbridge';
import { waitUntil } from 'mcbridge/testing';
import { expectInvalidParams, failure, sentSince, useStacks } from '../support/plugins.js';

const stacks = useStacks();
const CLIENT_TOOLS = ['chat', 'screen', 'connect', 'world', 'lan', 'record_start', 'record_stop'];
const TOOL_CAPS: Record<string, string> = {
  chat: 'chat',
  screen: 'screen',
  connect: 'connect',
  world: 'world',
  lan: 'lan',
  record_start: 'record',
  record_stop: 'record',
};

describe('client-vantage tools against the client sim', () => {
  it('chat sends CHAT <message> and the message comes back as a chat event', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const since = stack.lastSeq();
    const before = stack.sim.received.length;
    const ack = (await stack.client.call('chat', { message: 'hello there' })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CHAT hello there']);
    expect(ack).toMatchObject({ type: 'chat_ack', detail: 'hello there' });
    const echoed = (await stack.client.call('wait_for', { match: { type: 'chat', sender: 'Steve' }, since, timeout_ms: 5_000 })) as any;
    expect(echoed.event.text).toBe('<Steve> hello there');
  });

  it('screen reports the title screen out of a world, and world opens a save', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client', inWorld: false } });
    const title = (await stack.client.call('screen')) as Record<string, any>;
    expect(title).toMatchObject({ type: 'screen', inWorld: false, title: 'Title Screen' });
    const noChat = await failure(stack.client.call('chat', { message: 'anyone?' }));
    expect(noChat.code).toBe('mod_error');
    expect(noChat.message).toMatch(/no server connection/);
    const before = stack.sim.received.length;
    const opened = (await stack.client.call('world', { level: 'New World' })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['WORLD New World']);
    expect(opened).toMatchObject({ type: 'world_ack', detail: 'New World' });
    expect((await stack.client.call('screen')) as any).toMatchObject({ inWorld: true, screen: 'null' });
    const again = await failure(stack.client.call('world', { level: 'Other' }));
    expect(again.code).toBe('mod_error');
    expect(again.message).toMatch(/already in a world/);
  });

  it('connect sends CONNECT <address> and the client ends up on that server', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client', inWorld: false } });
    const before = stack.sim.received.length;
    const ack = (await stack.client.call('connect', { address: '127.0.0.1:25565' })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CONNECT 127.0.0.1:25565']);
    expect(ack).toMatchObject({ type: 'connect_ack', detail: '127.0.0.1:25565' });
    const joined = (await stack.client.call('wait_for', { match: { state: { path: 'inWorld', equals: true } }, timeout_ms: 5_000 })) as any;
    expect(joined.state.server).toMatch(/^net\.minecraft\.client\.multiplayer\.ServerData@/);
    // On a multiplayer server there is no single-player world to publish.
    const lan = await failure(stack.client.call('lan'));
    expect(lan.message).toMatch(/no single-player server/);
  });

  it('lan publishes once (with a lan event), then polls; it builds the documented lines', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const since = stack.lastSeq();
    const before = stack.sim.received.length;
    const first = (await stack.client.call('lan', { port: 25570, mode: 'offline' })) as Record<string, any>;
    expect(first.detail).toBe('port=25570 address=127.0.0.1 gamemode=survival cheats=false online=false');
    const event = (await stack.client.call('wait_for', { match: { type: 'lan' }, since, timeout_ms: 5_000 })) as any;
    expect(event.event.text).toBe('port=25570 address=127.0.0.1');
    const poll = (await stack.client.call('lan')) as Record<string, any>;
    expect(poll.detail).toBe('port=25570 address=127.0.0.1 online=false');
    await stack.client.call('lan', { port: 25571 });
    await stack.client.call('lan', { mode: 'online' });
    expect(sentSince(stack, before)).toEqual(['LAN 25570 offline', 'LAN', 'LAN 25571', 'LAN 0 online']);
  });

  it('record_start and record_stop drive a recording whose samples land on disk and whose end is an event', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const since = stack.lastSeq();
    const before = stack.sim.received.length;
    const ack = (await stack.client.call('record_start', { ticks: 10, radius: 8, interval: 2 })) as Record<string, any>;
    expect(ack).toMatchObject({ type: 'sample_start_ack', detail: 'ticks=10' });
    const done = (await stack.client.call('wait_for', { match: { type: 'sample_done' }, since, timeout_ms: 5_000 })) as any;
    expect(done.event.text).toBe('samples=5');
    const started = (await stack.client.call('events', { since, type: 'sample_start' })) as any;
    expect(started.events[0].text).toBe('ticks=10 radius=8.0 interval=2');
    expect(fs.readFileSync(stack.sim.samplesFile, 'utf8').trim().split('\n')).toHaveLength(5);
    await stack.client.call('record_start', {});
    const stop = (await stack.client.call('record_stop')) as Record<string, any>;
    expect(stop.type).toBe('sample_stop_ack');
    expect(stop.detail).toMatch(/^samples=\d+$/);
    expect(sentSince(stack, before)).toEqual(['SAMPLE_START 10 8.0 2', 'SAMPLE_START 200 64.0 1', 'SAMPLE_STOP']);
  });

  it('the predecessor passthrough lines: CHAT, ENTITIES 32.0, SAMPLE_START 10 8.0 2, WAIT 1', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const before = stack.sim.received.length;
    await stack.client.call('chat', { message: 'hello there' });
    await stack.client.call('entities', { radius: 32 });
    await stack.client.call('record_start', { ticks: 10, radius: 8, interval: 2 });
    await stack.client.call('wait', { ticks: 1 });
    await waitUntil(() => stack.sim.received.length >= before + 4, 5_000, 'the four lines');
    expect(sentSince(stack, before)).toEqual(['CHAT hello there', 'ENTITIES 32.0', 'SAMPLE_START 10 8.0 2', 'WAIT 1']);
  });
});

describe('client-vantage tools elsewhere', () => {
  it('each needs exactly its own CAPS token', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const manifest = (await stack.client.call('tools')) as Manifest;
    for (const name of CLIENT_TOOLS) {
      const tool = manifest.tools.find((t) => t.name === name)!;
      expect(tool.requires, name).toEqual([TOOL_CAPS[name]]);
      expect(tool.available, name).toBe(true);
      expect(tool.plugin).toBe('client');
    }
  });

  it('are hidden on the server vantage with the reason, and refused before anything is sent', async () => {
    const stack = await stacks.start();
    const manifest = (await stack.client.call('tools')) as Manifest;
    const before = stack.sim.received.length;
    const args: Record<string, Record<string, unknown>> = {
      chat: { message: 'hi' },
      connect: { address: 'localhost' },
      world: { level: 'w' },
      lan: {},
      screen: {},
      record_start: {},
      record_stop: {},
    };
    for (const name of CLIENT_TOOLS) {
      const tool = manifest.tools.find((t) => t.name === name)!;
      expect(tool.available, name).toBe(false);
      expect(tool.missing).toEqual([TOOL_CAPS[name]]);
      expect(tool.reason).toMatch(/server-vantage mod does not advertise/);
      const err = await failure(stack.client.call(name, args[name]));
      expect(err.code, name).toBe('unsupported_capability');
      expect(err.message).toMatch(/connect a server-vantage mod for server tools|--vantage client/);
    }
    expect(sentSince(stack, before)).toEqual([]);
  });

  it('a client mod without one token hides just that tool', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client', capabilities: CLIENT_CAPABILITIES.filter((c) => c !== 'lan') } });
    const manifest = (await stack.client.call('tools')) as Manifest;
    expect(manifest.tools.find((t) => t.name === 'lan')!.available).toBe(false);
    expect(manifest.tools.find((t) => t.name === 'world')!.available).toBe(true);
  });
});

describe('client-vantage parameters', () => {
  it('validates every parameter with a message that names it', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    await expectInvalidParams(stack, [
      ['chat', {}, /'message'/],
      ['chat', { message: '' }, /message must not be empty/],
      ['chat', { message: 'x'.repeat(257) }, /at most 256/],
      ['chat', { message: '/gamemode creative' }, /must not start with "\/": send commands with command_output/],
      ['screen', { verbose: true }, /"verbose"/],
      ['connect', {}, /'address'/],
      ['connect', { address: 'my server' }, /address must not contain spaces/],
      ['connect', { address: 'host:99999' }, /port from 1 to 65535/],
      ['connect', { address: 'host:port' }, /host or host:port/],
      ['world', { level: '' }, /level must not be empty/],
      ['world', { level: '../other' }, /folder name inside saves/],
      ['lan', { port: 70_000 }, /'port': port must be at most 65535/],
      ['lan', { port: -1 }, /port must be at least 0/],
      ['lan', { mode: 'public' }, /'mode': mode must be "online" or "offline"/],
      ['record_start', { ticks: 0 }, /'ticks': ticks must be at least 1/],
      ['record_start', { ticks: 1.5 }, /ticks must be a whole number/],
      ['record_start', { radius: 0 }, /'radius': radius must be more than 0/],
      ['record_start', { interval: 0 }, /'interval': interval must be at least 1/],
      ['record_stop', { now: true }, /"now"/],
    ]);
  });
});
