/**
 * What the local API answers about every target at once (core/api/target-views.ts): the merged
 * manifest, the `targets` rows, `status`'s links and `ping`. Hosts are stand-ins carrying what the
 * views read; tests/core/daemon/targets/ runs them on real daemons.
 */
import { describe, expect, it } from 'vitest';
import { describeTarget, linksSection, listTargets, ping, targetsManifest } from '../../../core/api/target-views.js';
import { Targets } from '../../../core/api/targets.js';
import type { Host } from '../../../core/host/host.js';
import type { Manifest, ManifestTool } from '../../../core/host/plugin-api.js';

function tool(name: string, available: boolean, extra: Partial<ManifestTool> = {}): ManifestTool {
  return { name, description: `${name} of ${extra.plugin ?? 'p'}`, inputSchema: {}, annotations: {}, requires: [], plugin: 'p', available, ...extra } as ManifestTool;
}

interface Fake {
  name: string;
  connected?: boolean;
  tools?: ManifestTool[];
  guides?: Array<{ plugin: string; text: string }>;
  vantage?: string;
  capsSource?: string;
  control?: Record<string, unknown>;
  caps?: string[] | null;
  unsupported?: Array<{ name: string; reason?: string; missing?: string[] }>;
}

function host(f: Fake): Host {
  const connected = f.connected ?? true;
  const status = {
    transport: f.control ? 'control' : 'legacy',
    connected,
    state: connected ? 'ready' : 'backoff',
    instance: connected ? `inst-${f.name}` : null,
    mod: { host: '127.0.0.1', port: 25_000, portSource: 'argument' },
    lastError: connected ? null : `${f.name} is down`,
    ...(f.control ? { control: f.control } : {}),
  };
  const manifest: Manifest = {
    revision: 7,
    vantage: (f.vantage ?? 'server') as Manifest['vantage'],
    capsSource: (f.capsSource ?? 'mod') as Manifest['capsSource'],
    connected,
    tools: f.tools ?? [],
    ...(f.guides ? { guides: f.guides } : {}),
  };
  return {
    target: f.name,
    vantage: f.vantage ?? 'server',
    manifest: () => manifest,
    link: { status: () => status, connected, serverDir: `/srv/${f.name}` },
    surface: () => ({ supported: (f.tools ?? []).filter((t) => t.available).map((t) => t.name), unsupported: f.unsupported ?? [] }),
    capsView: () => ({ caps: f.caps === undefined ? new Set(['b', 'a']) : f.caps === null ? null : new Set(f.caps), source: f.capsSource ?? 'mod' }),
  } as unknown as Host;
}

function targetsOf(hosts: Host[], defaultName: string | null): Targets {
  const targets = new Targets();
  for (const h of hosts) targets.add(h, { default: h.target === defaultName });
  return targets;
}

describe('targetsManifest', () => {
  it("of one target is that target's manifest as it is, whatever the revision", () => {
    const only = host({ name: 'solo', tools: [tool('state', true)] });
    expect(targetsManifest(Targets.of(only), 99)).toBe(only.manifest());
  });

  it("of several lists each tool once, with the targets serving it; one served by none keeps the first target's entry", () => {
    const a = host({
      name: 'a',
      vantage: 'server',
      tools: [tool('state', true), tool('look', false, { reason: 'a lacks it' }), tool('fly', false, { reason: 'a: no' })],
      guides: [{ plugin: 'p', text: 'A' }],
    });
    const b = host({
      name: 'b',
      vantage: 'client',
      capsSource: 'hello',
      tools: [tool('look', true, { description: 'look of b' }), tool('state', true), tool('fly', false, { reason: 'b: no' })],
      guides: [
        { plugin: 'p', text: 'B' },
        { plugin: 'q', text: 'Q' },
      ],
    });
    const c = host({ name: 'c', tools: [tool('look', true, { description: 'look of c' }), tool('extra', true)] });
    const m = targetsManifest(targetsOf([a, b, c], 'b'), 42) as ReturnType<typeof targetsManifest> & { targets: unknown[]; defaultTarget: unknown };
    expect(m.revision).toBe(42);
    // The lead is the default target: its vantage and CAPS source.
    expect(m.vantage).toBe('client');
    expect(m.capsSource).toBe('hello');
    expect(m.connected).toBe(true);
    const byName = Object.fromEntries(m.tools.map((t) => [t.name, t as ManifestTool & { targets: string[] }]));
    expect(m.tools.map((t) => t.name)).toEqual(['state', 'look', 'fly', 'extra']);
    expect(byName.state).toMatchObject({ available: true, targets: ['a', 'b'] });
    // Not served by a, so the first that serves it (b) gives its entry; c joins.
    expect(byName.look).toMatchObject({ available: true, description: 'look of b', targets: ['b', 'c'] });
    expect(byName.look!.reason).toBeUndefined();
    expect(byName.fly).toMatchObject({ available: false, reason: 'a: no', targets: [] });
    expect(byName.extra).toMatchObject({ available: true, targets: ['c'] });
    expect(m.guides).toEqual([
      { plugin: 'p', text: 'A' },
      { plugin: 'q', text: 'Q' },
    ]);
    expect(m.targets).toEqual([
      { name: 'a', default: false, connected: true },
      { name: 'b', default: true, connected: true },
      { name: 'c', default: false, connected: true },
    ]);
    expect(m.defaultTarget).toBe('b');
  });

  it('with no default leads with the first target, and is connected only when every target is', () => {
    const a = host({ name: 'a', vantage: 'server', connected: false });
    const b = host({ name: 'b', vantage: 'client' });
    const m = targetsManifest(targetsOf([a, b], null), 1) as Manifest & { targets: Array<{ connected: boolean }>; defaultTarget: unknown };
    expect(m.vantage).toBe('server');
    expect(m.connected).toBe(false);
    expect(m.targets.map((t) => t.connected)).toEqual([false, true]);
    expect(m.defaultTarget).toBeNull();
    expect(m.guides).toEqual([]);
  });
});

describe('describeTarget and listTargets', () => {
  it('a legacy row: link state, sorted CAPS, tools counted, hidden with reasons (a default reason, missing only when some)', () => {
    const a = host({
      name: 'a',
      tools: [tool('state', true), tool('look', true), tool('fly', false)],
      unsupported: [{ name: 'fly', reason: 'needs FLY', missing: ['FLY'] }, { name: 'dig' }, { name: 'swim', missing: [] }],
    });
    const row = describeTarget(a, true);
    expect(row).toEqual({
      name: 'a',
      default: true,
      transport: 'legacy',
      connected: true,
      state: 'ready',
      vantage: 'server',
      instance: 'inst-a',
      capabilities: ['a', 'b'],
      capsSource: 'mod',
      serverDir: '/srv/a',
      mod: { host: '127.0.0.1', port: 25_000, portSource: 'argument' },
      lastError: null,
      tools: { available: 2, hidden: 3 },
      hidden: [
        { name: 'fly', reason: 'needs FLY', missing: ['FLY'] },
        { name: 'dig', reason: 'not served by this target' },
        { name: 'swim', reason: 'not served by this target' },
      ],
    });
    expect('control' in row).toBe(false);
  });

  it('a control row carries its address, trust, credential source, permissions and run, nothing else of the session', () => {
    const control = { address: 'h:1', trust: { pin: 'x' }, credential: { source: 'file' }, permissions: ['read'], runId: 'run-1', limits: { big: 1 }, token: 'never' };
    const row = describeTarget(host({ name: 'c', control, caps: null }), false);
    expect(row.transport).toBe('control');
    expect(row.capabilities).toBeNull();
    expect(row.control).toEqual({ address: 'h:1', trust: { pin: 'x' }, credential: { source: 'file' }, permissions: ['read'], runId: 'run-1' });
  });

  it('listTargets marks the implicit target default: the default, else the only one, else none', () => {
    const [a, b] = [host({ name: 'a' }), host({ name: 'b', connected: false })];
    const withDefault = listTargets(targetsOf([a, b], 'b'));
    expect(withDefault.count).toBe(2);
    expect(withDefault.default).toBe('b');
    expect(withDefault.targets.map((t) => [t.name, t.default, t.lastError])).toEqual([
      ['a', false, null],
      ['b', true, 'b is down'],
    ]);
    const none = listTargets(targetsOf([a, b], null));
    expect(none.default).toBeNull();
    expect(none.targets.map((t) => t.default)).toEqual([false, false]);
    const one = listTargets(Targets.of(a));
    expect(one).toMatchObject({ default: 'a', count: 1, targets: [{ name: 'a', default: true }] });
  });
});

describe('linksSection and ping', () => {
  it("links: each target's connection, state, instance and last error", () => {
    const targets = targetsOf([host({ name: 'a' }), host({ name: 'b', connected: false })], 'a');
    expect(linksSection(targets)).toEqual({
      a: { connected: true, state: 'ready', instance: 'inst-a', lastError: null },
      b: { connected: false, state: 'backoff', instance: null, lastError: 'b is down' },
    });
  });

  it('ping: one target as before; several add each link, connected from the default or else all', () => {
    expect(ping(Targets.of(host({ name: 'a', connected: false })))).toEqual({ pong: true, connected: false });
    expect(ping(Targets.of(host({ name: 'a' })))).toEqual({ pong: true, connected: true });
    const [up, down] = [host({ name: 'up' }), host({ name: 'down', connected: false })];
    expect(ping(targetsOf([up, down], 'up'))).toEqual({ pong: true, connected: true, targets: { up: true, down: false } });
    expect(ping(targetsOf([up, down], 'down'))).toEqual({ pong: true, connected: false, targets: { up: true, down: false } });
    expect(ping(targetsOf([up, down], null))).toEqual({ pong: true, connected: false, targets: { up: true, down: false } });
    expect(ping(targetsOf([up, host({ name: 'up2' })], null))).toEqual({ pong: true, connected: true, targets: { up: true, up2: true } });
  });
});
