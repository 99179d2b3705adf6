/**
 * What the local API answers about every target at once (core/api/target-views.ts): the merged
 * manifest, the `targets` rows, `status`'s links and `ping`, over hosts whose manifest, link
 * status and surface the test sets.
 */
import { describe, expect, it } from 'vitest';
import { describeTarget, linksSection, listTargets, ping, targetsManifest, type TargetsManifest } from '../../../core/api/target-views.js';
import { Targets } from '../../../core/api/targets.js';
import type { Host } from '../../../core/host/host.js';
import type { Manifest, ManifestTool } from '../../../core/host/plugin-api.js';

interface Fake {
  connected?: boolean;
  tools?: Array<Partial<ManifestTool> & { name: string; available: boolean }>;
  guides?: Array<{ plugin: string; text: string }>;
  vantage?: 'server' | 'client';
  capsSource?: string;
  caps?: string[] | null;
  control?: Record<string, unknown>;
  unsupported?: Array<{ name: string; reason?: string; missing?: string[] }>;
  lastError?: string | null;
}

/** A host as the views read it: its name, manifest, link status, CAPS and surface. */
function fake(target: string, f: Fake = {}): Host {
  const connected = f.connected ?? true;
  const manifest: Manifest = {
    revision: 99,
    vantage: f.vantage ?? 'server',
    capsSource: (f.capsSource ?? 'mod') as Manifest['capsSource'],
    connected,
    tools: (f.tools ?? []).map((t) => ({ description: t.name, inputSchema: {}, annotations: {}, requires: [], plugin: 'p', ...t })) as ManifestTool[],
    guides: f.guides ?? [],
  };
  const status = {
    transport: f.control ? 'control' : 'legacy',
    connected,
    state: connected ? 'ready' : 'disconnected',
    instance: `${target}-instance`,
    mod: { host: '127.0.0.1', port: 25_000, portSource: 'argument' },
    lastError: f.lastError ?? null,
    ...(f.control ? { control: f.control } : {}),
  };
  return {
    target,
    vantage: f.vantage ?? 'server',
    manifest: () => manifest,
    link: { status: () => status, connected, serverDir: `/srv/${target}` },
    surface: () => ({ supported: ['a', 'b'], unsupported: f.unsupported ?? [] }),
    capsView: () => ({ caps: f.caps === undefined ? ['zeta', 'alpha'] : f.caps, source: f.capsSource ?? 'mod' }),
  } as unknown as Host;
}

function set(defaultName: string | null, ...hosts: Host[]): Targets {
  const targets = new Targets();
  for (const h of hosts) targets.add(h, { default: h.target === defaultName });
  return targets;
}

describe('targetsManifest', () => {
  it('a daemon of one target answers that target’s manifest as it is', () => {
    const only = fake('main', { tools: [{ name: 't', available: true }] });
    expect(targetsManifest(set(null, only), 5)).toBe(only.manifest());
  });

  it('lists each tool once with the targets that serve it; one served nowhere keeps the first target’s entry', () => {
    const live = fake('live', {
      tools: [
        { name: 'both', available: true, description: 'live both' },
        { name: 'second', available: false, reason: 'live lacks it', description: 'live second' },
        { name: 'none', available: false, reason: 'live reason' },
      ],
    });
    const lab = fake('lab', {
      tools: [
        { name: 'both', available: true, description: 'lab both' },
        { name: 'second', available: true, description: 'lab second' },
        { name: 'none', available: false, reason: 'lab reason' },
        { name: 'labonly', available: true },
      ],
    });
    const m = targetsManifest(set('lab', live, lab), 7) as TargetsManifest;
    const tool = (name: string) => m.tools.find((t) => t.name === name) as ManifestTool & { targets: string[] };
    expect(m.tools.map((t) => t.name)).toEqual(['both', 'second', 'none', 'labonly']);
    expect(tool('both')).toMatchObject({ available: true, targets: ['live', 'lab'], description: 'live both' });
    // Served by the second target only: available, naming it, with its entry (no reason).
    expect(tool('second')).toMatchObject({ available: true, targets: ['lab'], description: 'lab second' });
    expect(tool('second').reason).toBeUndefined();
    expect(tool('none')).toMatchObject({ available: false, targets: [], reason: 'live reason' });
    expect(tool('labonly')).toMatchObject({ available: true, targets: ['lab'] });
  });

  it('takes vantage and CAPS source from the default (else the first), revision from the daemon, guides once each', () => {
    const live = fake('live', { vantage: 'client', capsSource: 'default', guides: [{ plugin: 'g', text: 'live g' }] });
    const lab = fake('lab', {
      vantage: 'server',
      capsSource: 'mod',
      guides: [
        { plugin: 'g', text: 'lab g' },
        { plugin: 'h', text: 'lab h' },
      ],
    });
    const withDefault = targetsManifest(set('lab', live, lab), 7) as TargetsManifest;
    expect(withDefault).toMatchObject({ revision: 7, vantage: 'server', capsSource: 'mod', defaultTarget: 'lab', connected: true });
    expect(withDefault.guides).toEqual([
      { plugin: 'g', text: 'live g' },
      { plugin: 'h', text: 'lab h' },
    ]);
    expect(withDefault.targets).toEqual([
      { name: 'live', default: false, connected: true },
      { name: 'lab', default: true, connected: true },
    ]);
    const noDefault = targetsManifest(set(null, live, lab), 8) as TargetsManifest;
    expect(noDefault).toMatchObject({ revision: 8, vantage: 'client', capsSource: 'default', defaultTarget: null });
    expect(noDefault.targets.map((t) => t.default)).toEqual([false, false]);
  });

  it('is connected only when every target is', () => {
    const m = targetsManifest(set(null, fake('live'), fake('lab', { connected: false })), 1) as TargetsManifest;
    expect(m.connected).toBe(false);
    expect(m.targets).toEqual([
      { name: 'live', default: false, connected: true },
      { name: 'lab', default: false, connected: false },
    ]);
  });
});

describe('describeTarget and listTargets', () => {
  it('a row has the link, sorted CAPS, the surface counts and each hidden tool with its reason', () => {
    const host = fake('live', {
      lastError: 'refused',
      unsupported: [{ name: 'x', reason: 'needs y', missing: ['y'] }, { name: 'z', missing: [] }, { name: 'w' }],
    });
    expect(describeTarget(host, true)).toEqual({
      name: 'live',
      default: true,
      transport: 'legacy',
      connected: true,
      state: 'ready',
      vantage: 'server',
      instance: 'live-instance',
      capabilities: ['alpha', 'zeta'],
      capsSource: 'mod',
      serverDir: '/srv/live',
      mod: { host: '127.0.0.1', port: 25_000, portSource: 'argument' },
      lastError: 'refused',
      tools: { available: 2, hidden: 3 },
      hidden: [
        { name: 'x', reason: 'needs y', missing: ['y'] },
        { name: 'z', reason: 'not served by this target' },
        { name: 'w', reason: 'not served by this target' },
      ],
    });
  });

  it('a target with no CAPS says null; a control target has its session, without anything else of the status', () => {
    const control = { address: 'a:1', trust: 'pin', credential: 'file', permissions: ['read'], runId: 'run-1', token: 'secret' };
    const row = describeTarget(fake('lab', { caps: null, control }), false);
    expect(row.capabilities).toBeNull();
    expect(row.default).toBe(false);
    expect(row.transport).toBe('control');
    expect(row.control).toEqual({ address: 'a:1', trust: 'pin', credential: 'file', permissions: ['read'], runId: 'run-1' });
    expect('control' in describeTarget(fake('live'), false)).toBe(false);
  });

  it('listTargets marks the implicit target default, and counts them', () => {
    const [live, lab] = [fake('live'), fake('lab')];
    const none = listTargets(set(null, live, lab));
    expect(none.default).toBeNull();
    expect(none.count).toBe(2);
    expect(none.targets.map((t) => [t.name, t.default])).toEqual([
      ['live', false],
      ['lab', false],
    ]);
    const withLab = listTargets(set('lab', live, lab));
    expect(withLab.default).toBe('lab');
    expect(withLab.targets.map((t) => t.default)).toEqual([false, true]);
    // One target is the implicit one without being marked default.
    const one = listTargets(set(null, live));
    expect(one).toMatchObject({ default: 'live', count: 1 });
    expect(one.targets[0]!.default).toBe(true);
  });
});

describe('linksSection and ping', () => {
  it('status names each link', () => {
    expect(linksSection(set(null, fake('live', { lastError: 'boom' }), fake('lab', { connected: false })))).toEqual({
      live: { connected: true, state: 'ready', instance: 'live-instance', lastError: 'boom' },
      lab: { connected: false, state: 'disconnected', instance: 'lab-instance', lastError: null },
    });
  });

  it('ping on one target is as before; on several it gives each link, and is connected by the default or else all', () => {
    expect(ping(set(null, fake('live', { connected: false })))).toEqual({ pong: true, connected: false });
    expect(ping(set(null, fake('live')))).toEqual({ pong: true, connected: true });
    const [up, down] = [fake('live'), fake('lab', { connected: false })];
    expect(ping(set(null, up, down))).toEqual({ pong: true, connected: false, targets: { live: true, lab: false } });
    expect(ping(set('live', up, down))).toEqual({ pong: true, connected: true, targets: { live: true, lab: false } });
    expect(ping(set('lab', up, down))).toMatchObject({ connected: false });
    expect(ping(set(null, up, fake('lab')))).toMatchObject({ connected: true });
  });
});
