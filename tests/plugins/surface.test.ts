import { describe, expect, it } from 'vitest';
import type { Manifest } from 'mcbridge';
import { builtinPlugins } from '../../core/daemon/builtins.js';
import { useStacks } from '../support/plugins.js';

const stacks = useStacks();

/** The predecessor's operations (docs/compatibility.md), without the snapshot family and `stop` (a local API method here). */
const OPERATIONS = [
  'status',
  'capabilities',
  'state',
  'player',
  'entities',
  'command',
  'command_output',
  'chat',
  'record_start',
  'record_stop',
  'wait',
  'screen',
  'mark',
  'connect',
  'world',
  'lan',
  'events',
  'context',
  'save',
];
const SERVER_ONLY = ['player', 'context'];
const CLIENT_ONLY = ['chat', 'record_start', 'record_stop', 'screen', 'connect', 'world', 'lan'];
const NEW_TOOLS = ['events_summary', 'wait_for'];

describe('the game surface', () => {
  it('has a tool for every predecessor operation (snapshot family aside), each in its own plugin', () => {
    const names = builtinPlugins.flatMap((p) => (p.tools ?? []).map((t) => t.name));
    for (const op of [...OPERATIONS, ...NEW_TOOLS]) expect(names, op).toContain(op);
    expect(new Set(names).size).toBe(names.length);
  });

  it('every tool has annotations, and read-only tools need no mutating capability', () => {
    const mutating = new Set(['command', 'chat', 'connect', 'world', 'lan', 'record']);
    for (const plugin of builtinPlugins) {
      for (const tool of plugin.tools ?? []) {
        expect(tool.annotations, tool.name).toBeDefined();
        expect(typeof tool.annotations!.readOnly, tool.name).toBe('boolean');
        const caps = [...(plugin.requires?.caps ?? []), ...(tool.requires ?? [])];
        if (tool.annotations!.readOnly)
          expect(
            caps.filter((c) => mutating.has(c)),
            tool.name,
          ).toEqual([]);
      }
    }
  });

  for (const vantage of ['server', 'client'] as const) {
    it(`on the ${vantage} vantage: its own tools available, the other vantage's hidden with the missing CAPS and a reason`, async () => {
      const stack = await stacks.start({ sim: { vantage } });
      const manifest = (await stack.client.call('tools')) as Manifest;
      const caps = (await stack.client.call('capabilities')) as Record<string, any>;
      const own = vantage === 'server' ? SERVER_ONLY : CLIENT_ONLY;
      const other = vantage === 'server' ? CLIENT_ONLY : SERVER_ONLY;
      const shared = OPERATIONS.filter((o) => !SERVER_ONLY.includes(o) && !CLIENT_ONLY.includes(o));
      for (const name of [...shared, ...own, ...NEW_TOOLS]) {
        expect(manifest.tools.find((t) => t.name === name)?.available, `${name} on ${vantage}`).toBe(true);
        expect(caps.surface.supported, name).toContain(name);
      }
      for (const name of other) {
        const tool = manifest.tools.find((t) => t.name === name)!;
        expect(tool.available, `${name} on ${vantage}`).toBe(false);
        expect(tool.missing!.length).toBeGreaterThan(0);
        expect(tool.reason).toMatch(new RegExp(`${vantage}-vantage mod does not advertise`));
        const op = caps.operations.find((o: any) => o.name === name);
        expect(op).toMatchObject({ supported: false, missing: tool.missing, reason: tool.reason });
      }
      const player = caps.operations.find((o: any) => o.name === 'player');
      if (vantage === 'client')
        expect(player).toMatchObject({
          dependency: 'https://github.com/guajun/mc-agent-interface-mod/issues/1',
          dependencyLabel: 'mc-agent-interface-mod#1 (Expose server-side context for a named player)',
        });
      expect(caps.operations.find((o: any) => o.name === 'wait_for')).toMatchObject({ supported: true, requires: [], readOnly: true });
      expect(caps.operations.find((o: any) => o.name === 'chat').requires).toEqual(['chat']);
      expect(caps.operations).toHaveLength(manifest.tools.length);
    });
  }

  it('query tools publish an output schema that the answers match', async () => {
    const stack = await stacks.start();
    const manifest = (await stack.client.call('tools')) as Manifest;
    for (const name of ['save', 'player', 'context', 'command_output', 'events', 'events_summary']) {
      expect(manifest.tools.find((t) => t.name === name)!.outputSchema, name).toMatchObject({ type: 'object' });
    }
    // The host validates results against these; a mismatch would be an `internal` error.
    await stack.client.call('save');
    await stack.client.call('player', { player: 'Steve' });
    await stack.client.call('player', { player: 'nobody' });
    await stack.client.call('context', { id: 'ctx-none' });
    await stack.client.call('events', { since: 0 });
    await stack.client.call('events_summary');
  });

  it('status shows link, discovery, CAPS, API clients, event counters and uptime', async () => {
    const stack = await stacks.start();
    await stack.client.call('mark', { text: 'counted' });
    const status = (await stack.client.call('status')) as Record<string, any>;
    expect(status).toMatchObject({ connected: true, vantage: 'server', instance: 'server', capsSource: 'mod' });
    expect(status.mod.port).toBe(stack.sim.port);
    expect(status.discovery).toBeDefined();
    expect(status.capabilities).toEqual(expect.arrayContaining(['player', 'context', 'command']));
    expect(status.api.clients).toBeGreaterThanOrEqual(1);
    expect(status.events).toMatchObject({ capacity: 1000, streamId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(status.events.lastSeq).toBeGreaterThanOrEqual(1);
    expect(typeof status.uptimeSeconds).toBe('number');
  });

  it("status reports the process's memory: resident set and V8 heap, in bytes", async () => {
    const stack = await stacks.start();
    const { memory } = (await stack.client.call('status')) as { memory: Record<string, number> };
    expect(Object.keys(memory).sort()).toEqual(['externalBytes', 'heapTotalBytes', 'heapUsedBytes', 'rssBytes']);
    // This test runs in the daemon's process, so its own figures bound the reported ones.
    expect(memory.rssBytes).toBeGreaterThan(memory.heapUsedBytes!);
    expect(memory.heapUsedBytes).toBeGreaterThan(0);
    expect(memory.heapTotalBytes).toBeGreaterThanOrEqual(memory.heapUsedBytes!);
  });
});

describe('mark annotations', () => {
  it('mark is not read-only but declares itself non-destructive (it only writes an event)', () => {
    const mark = builtinPlugins.flatMap((p) => p.tools ?? []).find((t) => t.name === 'mark')!;
    expect(mark.annotations).toMatchObject({ readOnly: false, destructive: false });
  });
});
