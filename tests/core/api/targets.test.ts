/**
 * The router of a daemon of several targets (core/api/targets.ts), on hosts that are never
 * started: which host a call goes to, with which params, and what a refusal says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Targets } from '../../../core/api/targets.js';
import { definePlugin, defineTool } from '../../../core/host/define.js';
import { McbridgeError, type ErrorCode } from '../../../core/host/errors.js';
import { Host } from '../../../core/host/host.js';
import { HOST_API_VERSION } from '../../../core/host/plugin-api.js';
import { silentLogger } from '../../../core/util/log.js';
import { caught } from '../../support/errors.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

/** A host named `target` with a `label` tool that has a `target` param of its own, and a `plain` one. */
function host(target: string): Host {
  const label = defineTool({ name: 'label', description: 'labels', input: z.object({ target: z.string().optional() }), run: async () => null });
  const plain = defineTool({ name: 'plain', description: 'plain', input: z.object({}), run: async () => null });
  const h = new Host({
    log: silentLogger(),
    target,
    link: { modPort: 1 },
    plugins: [{ plugin: definePlugin({ name: 'p', version: '1.0.0', apiVersion: HOST_API_VERSION, tools: [label, plain] }) }],
  });
  hosts.push(h);
  return h;
}

function targetsOf(...names: string[]): { targets: Targets; hosts: Host[] } {
  const targets = new Targets();
  const made = names.map((n) => host(n));
  for (const h of made) targets.add(h, { default: false });
  return { targets, hosts: made };
}

const outcome = { retryable: false, resultUnknown: true, requestId: 'r-1' };

describe('Targets: the set', () => {
  it('of(host) has that one host, no default, and it is the implicit one', () => {
    const only = host('default');
    const targets = Targets.of(only);
    expect(targets.size).toBe(1);
    expect(targets.defaultTarget).toBeNull();
    expect(targets.implicit()).toBe(only);
    expect(targets.names()).toEqual(['default']);
  });

  it('keeps the order configured, refuses a name twice, and tells listeners of each add and remove', () => {
    const targets = new Targets();
    const changes: unknown[] = [];
    targets.on('change', (c) => changes.push(c));
    const [a, b] = [host('a'), host('b')];
    targets.add(b, { default: false });
    targets.add(a, { default: true });
    expect(targets.names()).toEqual(['b', 'a']);
    expect(targets.hostsList()).toEqual([b, a]);
    expect(targets.get('a')).toBe(a);
    expect(targets.get('c')).toBeUndefined();
    expect(targets.defaultTarget).toBe('a');

    const twice = caught(() => targets.add(host('a'), { default: false }));
    expect(twice.code).toBe('invalid_params');
    expect(twice.message).toBe("target 'a' is configured twice; give each target one name");
    expect(targets.get('a')).toBe(a);
    expect(changes).toEqual([{ added: b }, { added: a }]);

    expect(targets.remove('c')).toBeUndefined();
    expect(changes).toHaveLength(2);
    expect(targets.remove('b')).toBe(b);
    expect(targets.defaultTarget).toBe('a');
    expect(targets.remove('a')).toBe(a);
    expect(targets.defaultTarget).toBeNull();
    expect(changes.slice(2)).toEqual([{ removed: b }, { removed: a }]);
    expect(targets.size).toBe(0);
    expect(targets.implicit()).toBeNull();
  });

  it('setDefault takes a configured name only; null or an unknown name leaves none', () => {
    const {
      targets,
      hosts: [a, b],
    } = targetsOf('a', 'b');
    expect(targets.implicit()).toBeNull();
    targets.setDefault('b');
    expect(targets.defaultTarget).toBe('b');
    expect(targets.implicit()).toBe(b);
    targets.setDefault('nope');
    expect(targets.defaultTarget).toBeNull();
    targets.setDefault('a');
    expect(targets.implicit()).toBe(a);
    targets.setDefault(null);
    expect(targets.defaultTarget).toBeNull();
  });
});

describe('Targets: pick', () => {
  it('goes to the default, else the only one; with several and no default it names them', () => {
    const {
      targets,
      hosts: [a, b],
    } = targetsOf('a', 'b');
    const required = caught(() => targets.pick(undefined));
    expect(required.code).toBe('target_required');
    expect(required.message).toBe('this daemon serves 2 targets (a, b) and none is the default: name one with "target" (the CLI\'s --target, or MCBRIDGE_TARGET)');
    expect(required.details).toEqual({ targets: ['a', 'b'] });
    expect(caught(() => targets.pick(null)).code).toBe('target_required');
    targets.setDefault('a');
    expect(targets.pick(undefined)).toBe(a);
    expect(targets.pick(null)).toBe(a);
    expect(targets.pick('b')).toBe(b);
  });

  it('refuses a name it does not serve, and a name that is not a string, with the names it serves', () => {
    const { targets } = targetsOf('a', 'b');
    const unknown = caught(() => targets.pick('c'));
    expect(unknown.code).toBe('target_unknown');
    expect(unknown.message).toBe('no target named "c"; this daemon serves: a, b');
    expect(unknown.details).toEqual({ target: 'c', targets: ['a', 'b'] });
    const notString = caught(() => targets.pick(['a']));
    expect(notString.code).toBe('target_unknown');
    expect(notString.message).toBe('no target named ["a"]; this daemon serves: a, b');
  });

  it('pickMany: `*` is all, a list is each once in its order, `*` in a list is all, an empty list is refused', () => {
    const {
      targets,
      hosts: [a, b, c],
    } = targetsOf('a', 'b', 'c');
    expect(targets.pickMany('*')).toEqual([a, b, c]);
    expect(targets.pickMany(['c', 'a', 'c'])).toEqual([c, a]);
    expect(targets.pickMany(['b', '*'])).toEqual([a, b, c]);
    expect(targets.pickMany('b')).toEqual([b]);
    const empty = caught(() => targets.pickMany([]));
    expect(empty.code).toBe('invalid_params');
    expect(empty.message).toBe('"target" lists no target; give names, or "*" for all');
    expect(caught(() => targets.pickMany(['a', 'd'])).code).toBe('target_unknown');
    expect(caught(() => targets.pickMany(undefined)).code).toBe('target_required');
    targets.setDefault('c');
    expect(targets.pickMany(undefined)).toEqual([c]);
  });
});

describe('Targets: route', () => {
  it('takes `target` out of the params it routes by, and leaves params without one as they are', () => {
    const {
      targets,
      hosts: [a, b],
    } = targetsOf('a', 'b');
    targets.setDefault('a');
    const params = { x: 1 };
    const none = targets.route('plain', params);
    expect(none.host).toBe(a);
    expect(none.params).toBe(params);
    expect(targets.route('plain', { x: 1, target: 'b' })).toEqual({ host: b, params: { x: 1 } });
    // Several targets: the router's `target`, even for a tool with one of its own.
    expect(targets.route('label', { target: 'b' })).toEqual({ host: b, params: {} });
    expect(caught(() => targets.route('label', { target: 'snapshot-1' })).code).toBe('target_unknown');
  });

  it('on a daemon of one target, a tool with a `target` of its own gets a name that is no target as its param', () => {
    const {
      targets,
      hosts: [only],
    } = targetsOf('main');
    expect(targets.route('label', { target: 'snapshot-1' })).toEqual({ host: only, params: { target: 'snapshot-1' } });
    expect(targets.route('label', { target: 7 })).toEqual({ host: only, params: { target: 7 } });
    // The target's own name routes (and is taken out), as on any daemon.
    expect(targets.route('label', { target: 'main' })).toEqual({ host: only, params: {} });
    // A tool with no `target` of its own, or one not registered, is refused the unknown name.
    expect(caught(() => targets.route('plain', { target: 'snapshot-1' })).code).toBe('target_unknown');
    expect(caught(() => targets.route('missing', { target: 'snapshot-1' })).code).toBe('target_unknown');
  });
});

describe('Targets: named', () => {
  it('on several targets, a refusal from the game names its target and keeps details and outcome', () => {
    const {
      targets,
      hosts: [a],
    } = targetsOf('a', 'b');
    for (const code of ['unsupported_capability', 'not_connected', 'timeout', 'mod_error', 'busy'] as ErrorCode[]) {
      const named = targets.named(new McbridgeError(code, 'it failed', { x: 1 }, outcome), a!) as McbridgeError;
      expect(named).toBeInstanceOf(McbridgeError);
      expect(named.code).toBe(code);
      expect(named.message).toBe("target 'a': it failed");
      expect(named.details).toEqual({ x: 1, target: 'a' });
      expect(named.outcome).toEqual(outcome);
    }
    const own = new McbridgeError('invalid_params', 'bad');
    expect(targets.named(own, a!)).toBe(own);
    const plain = new Error('x');
    expect(targets.named(plain, a!)).toBe(plain);
    // Only our coded errors are named: a foreign error whose `code` reads like one stays as it is.
    const foreign = Object.assign(new Error('late'), { code: 'timeout' });
    expect(targets.named(foreign, a!)).toBe(foreign);
  });

  it('on one target, a refusal stays as it is', () => {
    const {
      targets,
      hosts: [a],
    } = targetsOf('a');
    const err = new McbridgeError('not_connected', 'no mod');
    expect(targets.named(err, a!)).toBe(err);
  });

  it('a call on a target a reload removed or re-created says so, with its code, details and outcome', () => {
    const {
      targets,
      hosts: [a, b],
    } = targetsOf('a', 'b');
    targets.remove('a');
    const stopped = targets.named(new McbridgeError('not_connected', 'the daemon stopped before the write was sent', { x: 1 }, outcome), a!) as McbridgeError;
    expect(stopped.code).toBe('not_connected');
    expect(stopped.message).toBe("target 'a' was removed by a reload before the write was sent");
    expect(stopped.details).toEqual({ x: 1, target: 'a', removed: true });
    expect(stopped.outcome).toEqual(outcome);
    const shutting = targets.named(new McbridgeError('not_connected', 'the daemon is shutting down; retry'), a!) as McbridgeError;
    expect(shutting.message).toBe("target 'a' was removed by a reload; retry");
    // Any other error (even one a single target would leave alone) is prefixed.
    const other = targets.named(new McbridgeError('invalid_params', 'bad input'), a!) as McbridgeError;
    expect(other.message).toBe("target 'a' was removed by a reload: bad input");
    expect(other.details).toEqual({ target: 'a', removed: true });
    const later = new McbridgeError('invalid_params', 'x: the daemon stopped');
    expect((targets.named(later, a!) as McbridgeError).message).toBe("target 'a' was removed by a reload: x: the daemon stopped");
    // Re-created under the same name: the old host's calls are the removed ones.
    targets.remove('b');
    targets.add(host('b'), { default: false });
    expect((targets.named(new McbridgeError('timeout', 'late'), b!) as McbridgeError).details).toMatchObject({ removed: true });
    const foreign = new Error('plain');
    expect(targets.named(foreign, b!)).toBe(foreign);
  });
});
