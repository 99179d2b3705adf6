import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validatePlugin } from '../../../../core/host/define.js';
import { Host } from '../../../../core/host/host.js';
import { HOST_API_VERSION, type Plugin, type VerbRule } from '../../../../core/host/plugin-api.js';
import { ToolRegistry } from '../../../../core/host/registry/registry.js';
import { caught } from '../../../support/errors.js';
import { CMD_VERB } from '../../../../core/kit/verbs.js';

function plugin(name: string, verbs: Record<string, VerbRule>, extra: Partial<Plugin> = {}): Plugin {
  return { name, version: '1.0.0', apiVersion: HOST_API_VERSION, verbs, ...extra };
}

describe('validatePlugin: verb declarations', () => {
  it('accepts a spec and a function of the argument', () => {
    const p = plugin('ok', {
      FOO: { replies: ['foo_ack'], timeoutMs: 1_000, blocking: false, requires: ['foo'] },
      BAR: (arg) => ({ replies: [arg ? 'bar' : 'bar_stats'] }),
    });
    expect(validatePlugin(p, 'config')).toBe(p);
  });

  it.each([
    ['a lower-case verb name', { foo: { replies: ['foo_ack'] } }, /plugin 'mine' .*verbs\.foo must be an upper-case verb name/],
    ['a verb name with a space', { 'FOO BAR': { replies: ['x'] } }, /plugin 'mine' .*verbs\.FOO BAR must be an upper-case verb name/],
    ['no reply types', { FOO: { replies: [] } }, /plugin 'mine' .*verbs\.FOO\.replies must name at least one reply type/],
    ['an empty reply type', { FOO: { replies: ['ok', ' '] } }, /plugin 'mine' .*verbs\.FOO\.replies\[1\] must be a reply type/],
    ['a zero timeout', { FOO: { replies: ['ok'], timeoutMs: 0 } }, /plugin 'mine' .*verbs\.FOO\.timeoutMs must be a positive number/],
    ['an unknown field', { FOO: { replies: ['ok'], reply: 'ok' } }, /plugin 'mine' .*verbs\.FOO .*reply/],
    ['neither a spec nor a function', { FOO: 'foo_ack' }, /plugin 'mine' .*verbs\.FOO must be \{replies: \[\.\.\.\]\} or a function/],
  ])('refuses %s, naming the plugin and the field', (_what, verbs, message) => {
    const err = caught(() => validatePlugin(plugin('mine', verbs as Record<string, VerbRule>), 'config'));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(message);
  });
});

describe('ToolRegistry: declared verbs', () => {
  it('collects the verbs of a plugin when it registers', () => {
    const registry = new ToolRegistry();
    expect(registry.verbs.lookup('FOO', '')).toBeUndefined();
    registry.registerPlugin(plugin('foo', { FOO: { replies: ['foo_ack'], timeoutMs: 2_000 } }));
    expect(registry.verbs.lookup('FOO', 'x')).toEqual({ replies: ['foo_ack'], timeoutMs: 2_000 });
  });

  it('computes a function rule from the argument', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('ctx', { CTX: (arg) => ({ replies: [arg ? 'ctx' : 'ctx_stats'] }) }));
    expect(registry.verbs.lookup('CTX', 'abc')?.replies).toEqual(['ctx']);
    expect(registry.verbs.lookup('CTX', '')?.replies).toEqual(['ctx_stats']);
  });

  it('refuses a verb two plugins declare with different reply types, naming both, and registers nothing of the second', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('first', { FOO: { replies: ['foo_ack'] } }));
    const second = plugin(
      'second',
      { FOO: { replies: ['foo'] }, BAR: { replies: ['bar'] } },
      {
        tools: [{ name: 'second_tool', description: 'x', input: z.object({}), run: async () => null }],
      },
    );
    const err = caught(() => registry.registerPlugin(second));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/'FOO' is declared differently by plugin 'first' .*and plugin 'second'/);
    expect(err.details).toMatchObject({ verb: 'FOO', plugins: ['first', 'second'] });
    expect(registry.get('second_tool')).toBeUndefined();
    expect(registry.verbs.lookup('BAR', '')).toBeUndefined();
    expect(registry.verbs.lookup('FOO', '')?.replies).toEqual(['foo_ack']);
  });

  it('refuses a declaration that differs only in its timeout or blocking', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('first', { FOO: { replies: ['foo_ack'] } }));
    expect(() => registry.registerPlugin(plugin('slow', { FOO: { replies: ['foo_ack'], timeoutMs: 60_000 } }))).toThrow(/timeoutMs 60000/);
    expect(() => registry.registerPlugin(plugin('side', { FOO: { replies: ['foo_ack'], blocking: true } }))).toThrow(/blocking/);
  });

  it('accepts the same declaration from two plugins, and keeps it until both are gone', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('state', { STATE: { replies: ['state'], requires: ['state'] } }));
    registry.registerPlugin(plugin('save', { STATE: { requires: ['STATE'], replies: ['state', 'state'] } }));
    registry.unregisterPlugin('state');
    expect(registry.verbs.lookup('STATE', '')?.replies).toEqual(['state']);
    registry.unregisterPlugin('save');
    expect(registry.verbs.lookup('STATE', '')).toBeUndefined();
  });

  it('drops the verbs of a plugin when it unregisters, so another may declare them anew', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('old', { FOO: { replies: ['foo_ack'] } }));
    registry.unregisterPlugin('old');
    expect(registry.verbs.lookup('FOO', '')).toBeUndefined();
    registry.registerPlugin(plugin('new', { FOO: { replies: ['foo_done'] } }));
    expect(registry.verbs.lookup('FOO', '')?.replies).toEqual(['foo_done']);
  });

  it('a plugin written before the control protocol declares CMD as it did; the built-in form for control stays', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('command', CMD_VERB));
    registry.registerPlugin(plugin('old-style', { CMD: { replies: ['cmd_ack'], requires: ['command'] } }));
    expect(registry.verbs.lookup('CMD', 'say hi')).toMatchObject({ write: true, control: { op: 'command', params: { command: 'say hi' } } });
    // And the other way round: the richer rule wins whichever loads first.
    const other = new ToolRegistry();
    other.registerPlugin(plugin('old-style', { CMD: { replies: ['cmd_ack'], requires: ['command'] } }));
    other.registerPlugin(plugin('command', CMD_VERB));
    expect(other.verbs.lookup('CMD', 'list')).toMatchObject({ control: { op: 'command', params: { command: 'list' } } });
    // A different legacy rule is still refused.
    const err = caught(() => other.registerPlugin(plugin('wrong', { CMD: { replies: ['command_ack'] } })));
    expect(err.message).toMatch(/'CMD' is declared differently/);
  });

  it('refuses a verb with no form on either transport', () => {
    const err = caught(() => validatePlugin(plugin('nowhere', { LEASE: { replies: ['x'], legacy: false } }), 'config'));
    expect(err.message).toMatch(/verbs\.LEASE\.legacy has no form on either transport/);
  });

  it('lets a plugin repeat the protocol verbs but not change them', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('caps', { CAPS: { replies: ['capabilities'], control: { op: 'capabilities' } } }));
    const err = caught(() => registry.registerPlugin(plugin('pinger', { PING: { replies: ['ping_ack'] } })));
    expect(err.message).toMatch(/'PING' is declared differently by mcbridge \(the protocol\).*and plugin 'pinger'/);
  });

  it('refuses, naming plugin and verb, a function rule that returns no valid spec', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(
      plugin('broken', {
        BAD: () => ({ replies: [] }),
        THROWS: () => {
          throw new Error('no ticks');
        },
      }),
    );
    expect(caught(() => registry.verbs.lookup('BAD', 'x')).message).toMatch(/plugin 'broken' declares the mod verb 'BAD' with a function .*'BAD x': replies must name at least one reply type/);
    expect(caught(() => registry.verbs.lookup('THROWS', '')).message).toMatch(/plugin 'broken' .*'THROWS'.*no ticks/);
  });
});

describe('ToolRegistry: what makes two declarations the same', () => {
  it('compares reply types and requirements as sets, and says both rules in full when they differ', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(plugin('first', { FOO: { replies: ['b', 'a', 'a'], requires: ['Zeta', 'alpha'] } }));
    // The same rule written another way is the same rule.
    registry.registerPlugin(plugin('again', { FOO: { replies: ['a', 'b'], requires: ['ALPHA', 'zeta', 'alpha'], timeoutMs: 15_000 } }));
    const err = caught(() => registry.registerPlugin(plugin('other', { FOO: { replies: ['a', 'b'] } })));
    expect(err.message).toBe(
      "the mod verb 'FOO' is declared differently by plugin 'first' (replies [a, b], timeoutMs 15000, requires [alpha, zeta]) " +
        "and plugin 'other' (replies [a, b], timeoutMs 15000): declare it the same way in both, or leave it to plugin 'first'",
    );
  });

  it('takes a function rule as the same only as itself', () => {
    const registry = new ToolRegistry();
    const rule = (arg: string) => ({ replies: [arg ? 'foo' : 'foo_stats'] });
    registry.registerPlugin(plugin('first', { FOO: rule }));
    registry.registerPlugin(plugin('shares', { FOO: rule }));
    const copy = caught(() => registry.registerPlugin(plugin('copies', { FOO: (arg: string) => ({ replies: [arg ? 'foo' : 'foo_stats'] }) })));
    expect(copy.message).toContain("plugin 'first' (a function of its argument) and plugin 'copies' (a function of its argument)");
    const spec = caught(() => registry.registerPlugin(plugin('spec', { FOO: { replies: ['foo'] } })));
    expect(spec.message).toContain("plugin 'first' (a function of its argument) and plugin 'spec' (replies [foo], timeoutMs 15000)");
    const later = new ToolRegistry();
    later.registerPlugin(plugin('spec', { FOO: { replies: ['foo'] } }));
    expect(caught(() => later.registerPlugin(plugin('fn', { FOO: rule }))).message).toContain("plugin 'spec' (replies [foo], timeoutMs 15000) and plugin 'fn' (a function of its argument)");
    registry.unregisterPlugin('first');
    expect(registry.verbs.lookup('FOO', '')?.replies).toEqual(['foo_stats']);
  });

  it('a function rule that fails says what it gave or threw, as an internal error naming verb and plugin', () => {
    const registry = new ToolRegistry();
    registry.registerPlugin(
      plugin('broken', {
        NOTHING: () => undefined as never,
        EMPTY: () => ({ replies: [''] }),
        TWICE: () => ({ replies: [], timeoutMs: 0 }),
        THROWS: () => {
          throw new Error('no ticks');
        },
        NULL: () => {
          throw null;
        },
      }),
    );
    const nothing = caught(() => registry.verbs.lookup('NOTHING', 'x'));
    expect(nothing.code).toBe('internal');
    expect(nothing.details).toEqual({ verb: 'NOTHING', plugin: 'broken' });
    expect(nothing.message).toMatch(/^plugin 'broken' declares the mod verb 'NOTHING' with a function that gave no valid rule for 'NOTHING x': the result \S.*\. Fix verbs\.NOTHING in the plugin\.$/);
    expect(caught(() => registry.verbs.lookup('EMPTY', '')).message).toMatch(/'EMPTY ': replies\.0 \S/);
    expect(caught(() => registry.verbs.lookup('TWICE', '')).message).toMatch(/: replies \S[^;]*; timeoutMs \S[^;]*\. Fix/);
    expect(caught(() => registry.verbs.lookup('THROWS', '')).message).toMatch(/: it threw no ticks\. Fix verbs\.THROWS in the plugin\.$/);
    expect(caught(() => registry.verbs.lookup('NULL', '')).message).toMatch(/: it threw null\. Fix verbs\.NULL in the plugin\.$/);
  });
});

describe('Host: declared verbs follow the plugin', () => {
  it('a load error names both plugins, and removing a plugin removes its verbs', async () => {
    const host = new Host({ plugins: [{ plugin: plugin('first', { FOO: { replies: ['foo_ack'] } }), source: 'built-in' }] });
    expect(() => host.use(plugin('second', { FOO: { replies: ['foo'] } }))).toThrow(/plugin 'first'.*plugin 'second'/);
    expect(host.plugins().map((p) => p.name)).toEqual(['first']);
    await host.remove('first');
    expect(host.registry.verbs.lookup('FOO', '')).toBeUndefined();
    await host.stop();
  });
});
