/**
 * The rules of core/api/targets.ts on their own: which host a request goes to, what a refusal
 * says, and what a reload's add/remove tells listeners. Hosts are stand-ins with just the fields
 * the routing reads (the daemon-level suites in tests/core/daemon/targets/ run real ones).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_TARGETS, DEFAULT_TARGET, TARGET_NAME, Targets } from '../../../core/api/targets.js';
import { McbridgeError } from '../../../core/host/errors.js';
import type { Host } from '../../../core/host/host.js';

/** A host named `target` whose registry knows `tools` (name -> input schema). */
function host(target: string, tools: Record<string, z.ZodType | undefined> = {}): Host {
  const registry = { get: (name: string) => (name in tools ? { spec: { input: tools[name] } } : undefined) };
  return { target, registry } as unknown as Host;
}

function thrown(fn: () => unknown): McbridgeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof McbridgeError) return err;
    throw err;
  }
  throw new Error('expected a McbridgeError');
}

function three(defaultName: string | null = null): { targets: Targets; a: Host; b: Host; c: Host } {
  const targets = new Targets();
  const [a, b, c] = [host('a'), host('b'), host('c')];
  targets.add(a, { default: defaultName === 'a' });
  targets.add(b, { default: defaultName === 'b' });
  targets.add(c, { default: defaultName === 'c' });
  return { targets, a, b, c };
}

describe('target names', () => {
  it('take letters, digits, . _ - up to 64, starting with a letter or digit', () => {
    expect(DEFAULT_TARGET).toBe('default');
    for (const ok of ['a', 'A9', '9a', 'lab-1.b_c', 'x'.repeat(64)]) expect(TARGET_NAME.test(ok), ok).toBe(true);
    for (const bad of ['', '-a', '.a', '_a', 'has space', 'a/b', 'a\\b', 'x'.repeat(65), 'é', 'a\n']) expect(TARGET_NAME.test(bad), bad).toBe(false);
  });
});

describe('Targets: the set', () => {
  it('keeps the configured order, refuses a name twice, and tells listeners of each add and remove', () => {
    const targets = new Targets();
    const changes: unknown[] = [];
    targets.on('change', (c) => changes.push(c));
    const [a, b] = [host('a'), host('b')];
    targets.add(b, { default: false });
    targets.add(a, { default: true });
    expect(targets.names()).toEqual(['b', 'a']);
    expect(targets.hostsList()).toEqual([b, a]);
    expect(targets.size).toBe(2);
    expect(targets.get('a')).toBe(a);
    expect(targets.get('nope')).toBeUndefined();
    expect(targets.defaultTarget).toBe('a');
    const twice = thrown(() => targets.add(host('a'), { default: false }));
    expect(twice.code).toBe('invalid_params');
    expect(twice.message).toBe("target 'a' is configured twice; give each target one name");
    expect(targets.get('a')).toBe(a);
    expect(changes).toEqual([{ added: b }, { added: a }]);
    expect(targets.remove('nope')).toBeUndefined();
    expect(changes).toHaveLength(2);
    expect(targets.remove('a')).toBe(a);
    expect(changes[2]).toEqual({ removed: a });
    expect(targets.defaultTarget).toBeNull();
    expect(targets.names()).toEqual(['b']);
  });

  it('removing another target keeps the default; setDefault takes only a name it has', () => {
    const { targets } = three('b');
    targets.remove('a');
    expect(targets.defaultTarget).toBe('b');
    targets.setDefault('c');
    expect(targets.defaultTarget).toBe('c');
    targets.setDefault('zzz');
    expect(targets.defaultTarget).toBeNull();
    targets.setDefault('b');
    targets.setDefault(null);
    expect(targets.defaultTarget).toBeNull();
  });

  it('of(host) is a daemon of one, with no default marked but that one implicit', () => {
    const only = host('solo');
    const targets = Targets.of(only);
    expect(targets.defaultTarget).toBeNull();
    expect(targets.implicit()).toBe(only);
    expect(targets.pick(undefined)).toBe(only);
  });
});

describe('Targets: picking', () => {
  it('implicit is the default, else the only one, else none', () => {
    const { targets, b } = three('b');
    expect(targets.implicit()).toBe(b);
    targets.setDefault(null);
    expect(targets.implicit()).toBeNull();
    targets.remove('a');
    targets.remove('c');
    expect(targets.implicit()).toBe(b);
    expect(new Targets().implicit()).toBeNull();
  });

  it('no name with no default is target_required, naming every target; null is no name', () => {
    const { targets, a } = three();
    for (const none of [undefined, null]) {
      const err = thrown(() => targets.pick(none));
      expect(err.code).toBe('target_required');
      expect(err.message).toBe('this daemon serves 3 targets (a, b, c) and none is the default: name one with "target" (the CLI\'s --target, or MCBRIDGE_TARGET)');
      expect(err.details).toEqual({ targets: ['a', 'b', 'c'] });
    }
    targets.setDefault('a');
    expect(targets.pick(null)).toBe(a);
  });

  it('an unknown or non-string name is target_unknown with the names served', () => {
    const { targets, c } = three('a');
    expect(targets.pick('c')).toBe(c);
    for (const bad of ['zzz', 7, { name: 'a' }, ['a']]) {
      const err = thrown(() => targets.pick(bad));
      expect(err.code).toBe('target_unknown');
      expect(err.message).toBe(`no target named ${JSON.stringify(bad)}; this daemon serves: a, b, c`);
      expect(err.details).toEqual({ target: bad, targets: ['a', 'b', 'c'] });
    }
  });

  it('pickMany: * is all, a list is its names once each in its order, [] is refused, a name is one', () => {
    const { targets, a, b, c } = three('a');
    expect(ALL_TARGETS).toBe('*');
    expect(targets.pickMany('*')).toEqual([a, b, c]);
    expect(targets.pickMany(['c', 'a', 'c'])).toEqual([c, a]);
    expect(targets.pickMany(['b', '*'])).toEqual([a, b, c]);
    expect(targets.pickMany('b')).toEqual([b]);
    expect(targets.pickMany(undefined)).toEqual([a]);
    const empty = thrown(() => targets.pickMany([]));
    expect(empty.code).toBe('invalid_params');
    expect(empty.message).toBe('"target" lists no target; give names, or "*" for all');
    expect(thrown(() => targets.pickMany(['a', 'nope'])).code).toBe('target_unknown');
  });
});

describe('Targets: route', () => {
  it('takes `target` out of the params and routes by it; without one goes to the implicit host', () => {
    const { targets, a, b } = three('a');
    expect(targets.route('state', { x: 1 })).toEqual({ host: a, params: { x: 1 } });
    expect(targets.route('state', { target: 'b', x: 1 })).toEqual({ host: b, params: { x: 1 } });
    expect(thrown(() => targets.route('state', { target: 'zzz' })).code).toBe('target_unknown');
    targets.setDefault(null);
    expect(thrown(() => targets.route('state', {})).code).toBe('target_required');
    // `target: undefined` present as a key is still no name.
    expect(thrown(() => targets.route('state', { target: undefined })).code).toBe('target_required');
  });

  it("on a daemon of one, a tool with a `target` of its own keeps a name that is no target's as its param", () => {
    const only = host('solo', { restore: z.object({ target: z.string() }), state: z.object({ x: z.number() }), bare: undefined });
    const targets = Targets.of(only);
    expect(targets.route('restore', { target: 'label-1' })).toEqual({ host: only, params: { target: 'label-1' } });
    expect(targets.route('restore', { target: 9 })).toEqual({ host: only, params: { target: 9 } });
    // Its own name routes as a target (and is taken out), even for such a tool.
    expect(targets.route('restore', { target: 'solo' })).toEqual({ host: only, params: {} });
    // A tool without one, or with no schema, or none at all: the name must be the target's.
    for (const method of ['state', 'bare', 'missing']) expect(thrown(() => targets.route(method, { target: 'label-1' })).code).toBe('target_unknown');
  });

  it('on a daemon of several, `target` always routes, even for a tool with a `target` of its own', () => {
    const a = host('a', { restore: z.object({ target: z.string() }) });
    const targets = new Targets();
    targets.add(a, { default: true });
    targets.add(host('b', { restore: z.object({ target: z.string() }) }), { default: false });
    expect(thrown(() => targets.route('restore', { target: 'label-1' })).code).toBe('target_unknown');
    expect(targets.route('restore', { target: 'a' })).toEqual({ host: a, params: {} });
  });
});

describe('Targets: named', () => {
  const outcome = { retryable: false, resultUnknown: true, requestId: 'r-1' };

  it("on a daemon of several, a game's refusal names its target and keeps details and write outcome", () => {
    const { targets, b } = three('a');
    for (const code of ['unsupported_capability', 'not_connected', 'timeout', 'mod_error', 'busy'] as const) {
      const err = targets.named(new McbridgeError(code, 'it failed', { x: 1 }, outcome), b) as McbridgeError;
      expect(err.code).toBe(code);
      expect(err.message).toBe("target 'b': it failed");
      expect(err.details).toEqual({ x: 1, target: 'b' });
      expect(err.outcome).toEqual(outcome);
    }
  });

  it('two targets are already several: the refusal names its target', () => {
    const targets = new Targets();
    const [a, b] = [host('a'), host('b')];
    targets.add(a, { default: true });
    targets.add(b, { default: false });
    expect((targets.named(new McbridgeError('timeout', 'late'), b) as McbridgeError).message).toBe("target 'b': late");
  });

  it("the call's own refusals, other errors, and a daemon of one pass as they are", () => {
    const { targets, b } = three('a');
    const own = new McbridgeError('invalid_params', 'bad x');
    expect(targets.named(own, b)).toBe(own);
    const plain = new Error('boom');
    expect(targets.named(plain, b)).toBe(plain);
    const solo = host('solo');
    const one = Targets.of(solo);
    const down = new McbridgeError('not_connected', 'no mod');
    expect(one.named(down, solo)).toBe(down);
  });

  it('a host no longer in the set (removed, or re-created under its name) says a reload removed it', () => {
    const { targets, b } = three('a');
    targets.remove('b');
    const stopped = targets.named(new McbridgeError('not_connected', 'the daemon stopped before CMD x was sent', { y: 2 }, outcome), b) as McbridgeError;
    expect(stopped.code).toBe('not_connected');
    expect(stopped.message).toBe("target 'b' was removed by a reload before CMD x was sent");
    expect(stopped.details).toEqual({ y: 2, target: 'b', removed: true });
    expect(stopped.outcome).toEqual(outcome);
    const shutting = targets.named(new McbridgeError('busy', 'the daemon is shutting down'), b) as McbridgeError;
    expect(shutting.message).toBe("target 'b' was removed by a reload");
    const other = targets.named(new McbridgeError('invalid_params', 'bad x; the daemon stopped'), b) as McbridgeError;
    expect(other.message).toBe("target 'b' was removed by a reload: bad x; the daemon stopped");
    expect(other.code).toBe('invalid_params');
    // Re-created: a new host under the old name; the old host's calls are still the removed one's.
    targets.add(host('b'), { default: false });
    expect((targets.named(new McbridgeError('timeout', 't'), b) as McbridgeError).message).toBe("target 'b' was removed by a reload: t");
    // Not a coded error: passed as it is.
    const plain = new Error('x');
    expect(targets.named(plain, b)).toBe(plain);
  });
});
