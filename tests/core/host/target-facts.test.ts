/**
 * What a plugin learns of its target beyond the link (issue 36): the state folder, the target's
 * own config keys, objects shared between its plugins (the kit's server console), and events of
 * the daemon's own.
 */
import { describe, expect, it } from 'vitest';
import { serverConsole, type ConsoleChunk } from '../../../core/kit/index.js';
import type { HostView } from '../../../core/host/plugin-api.js';
import { makeHost, plugin, stopHostsAfterEach, tool } from '../../support/host.js';

stopHostsAfterEach();

describe('a plugin sees its target', () => {
  it('the state folder and the target options the daemon validated, frozen', async () => {
    let seen: HostView | null = null;
    const host = makeHost(
      [
        plugin('p', [
          tool('look', {
            run: async (_a, ctx) => {
              seen = ctx.host;
              return ctx.host.targetOptions;
            },
          }),
        ]),
      ],
      {
        stateDir: '/tmp/state-x',
        targetOptions: { logFile: '/srv/lab/logs/latest.log' },
      },
    );
    expect(await host.call('look', {})).toEqual({ logFile: '/srv/lab/logs/latest.log' });
    expect(seen!.stateDir).toBe('/tmp/state-x');
    expect(Object.isFrozen(seen!.targetOptions)).toBe(true);
    expect(makeHost([]).view().stateDir).toBeNull();
  });

  it('one server console per target, shared by every plugin and view of it, and a throwing reader does not stop the others', () => {
    const a = makeHost([]);
    const b = makeHost([]);
    const got: string[] = [];
    serverConsole(a.view()).subscribe(() => {
      throw new Error('a buggy reader');
    });
    const off = serverConsole(a.view()).subscribe((c: ConsoleChunk) => got.push(`${c.stream}:${c.data.toString()}`));
    serverConsole(b.view()).subscribe(() => got.push('crossed'));
    serverConsole(a.view()).publish({ stream: 'stdout', data: Buffer.from('hi'), at: 1 });
    expect(got).toEqual(['stdout:hi']);
    expect(serverConsole(a.view()).subscribers).toBe(2);
    off();
    serverConsole(a.view()).publish({ stream: 'stderr', data: Buffer.from('x'), at: 2 });
    expect(got).toEqual(['stdout:hi']);
  });

  it("events of the daemon's own get a seq, an id, the target and origin mcbridge, and reach waiters", async () => {
    const host = makeHost([plugin('p', [tool('crash', { run: async (_a, ctx) => ctx.events.emit('server_crashed', { code: 1, type: 'ignored' }) })])], { target: 'lab' });
    const waiting = host.events.waitFor((e) => e.type === 'server_crashed', { timeoutMs: 5000 });
    const event = (await host.call('crash', {})) as Record<string, unknown>;
    expect(event).toMatchObject({ type: 'server_crashed', code: 1, origin: 'mcbridge', target: 'lab', seq: 1, eventId: `${host.events.streamId}:1` });
    expect((await waiting).seq).toBe(1);
  });
});
