/**
 * MCP in front of a daemon of several targets (docs/mcp.md, "Several game servers"): every tool
 * takes `target`, `mc_targets` lists them, the event resources have a URI per target, and the
 * list changes when a target connects or the daemon's targets change. A daemon of one target
 * shows none of it.
 */
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../../core/daemon/daemon.js';
import { projectTools } from '../../../../core/frontends/mcp/projection.js';
import type { Manifest, ManifestTool } from '../../../../core/host/plugin-api.js';
import { startSim, type SimulatedMod } from '../../../../core/sim/index.js';
import { silentLogger } from '../../../../core/util/log.js';
import { freePort, waitUntil } from '../../../support/helpers.js';
import { cleanupsAfterEach, connectInMemory, errorOf, frontendFor, text } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();

async function sim(port = 0, seed = 1): Promise<SimulatedMod> {
  const s = await startSim({ port, seed });
  defer(() => s.stop());
  return s;
}

/** A daemon with `live` and `lab`, each on a sim of its own; `lab` is on `labPort`, which may have no sim yet. */
async function twoTargets(labPort: number, live: SimulatedMod, defaultTarget: 'live' | 'lab' | null = null): Promise<Daemon> {
  const fast = { reconnectMinMs: 20, reconnectMaxMs: 100 };
  const daemon = await startDaemon({
    log: silentLogger(),
    configDir: live.dir,
    api: { port: 0 },
    targets: [
      { name: 'live', default: defaultTarget === 'live', link: { modPort: live.port, ...fast }, sim: false },
      { name: 'lab', default: defaultTarget === 'lab', link: { modPort: labPort, ...fast }, sim: false },
    ],
  });
  defer(() => daemon.stop());
  return daemon;
}

const targetArg = (tools: Array<{ name: string; inputSchema: { properties?: Record<string, unknown> } }>, name: string) =>
  tools.find((t) => t.name === name)?.inputSchema.properties?.target as { enum: string[]; description: string } | undefined;

describe('MCP tools on a daemon of several targets', () => {
  it('gives every tool a target enum of the targets that serve it, adds mc_targets, and routes calls by it', async () => {
    const live = await sim();
    const lab = await sim(0, 2);
    const daemon = await twoTargets(lab.port, live);
    await waitUntil(() => daemon.targets.hostsList().every((h) => h.link.connected), 5_000, 'both targets to connect');
    const frontend = frontendFor(daemon.apiAddress.port);
    defer(() => frontend.close());
    const { client } = await connectInMemory(frontend);
    const { tools } = await client.listTools();

    expect(targetArg(tools, 'mc_state')).toMatchObject({ enum: ['live', 'lab'] });
    expect(targetArg(tools, 'mc_state')!.description).toMatch(/no default target.*target_required/);
    // restore's own `target` (a label on a daemon of one) is the router's here, and says so.
    expect(targetArg(tools, 'mc_restore')!.description).toMatch(/picks the server; it is no label/);
    expect(tools.filter((t) => t.name !== 'mc_targets' && !targetArg(tools, t.name))).toEqual([]);

    const listed = await client.callTool({ name: 'mc_targets', arguments: {} });
    expect(listed.structuredContent).toMatchObject({ count: 2, default: null });
    expect((listed.structuredContent as { targets: Array<{ name: string }> }).targets.map((t) => t.name)).toEqual(['live', 'lab']);
    expect(tools.find((t) => t.name === 'mc_targets')?.annotations).toMatchObject({ readOnlyHint: true });

    // No default: every tool's schema requires `target`, as the daemon does.
    expect(tools.filter((t) => t.name !== 'mc_targets' && !(t.inputSchema.required ?? []).includes('target'))).toEqual([]);
    expect(errorOf(await client.callTool({ name: 'mc_state', arguments: {} }))?.code).toBe('target_required');
    // One target a call: `*` and lists (the local API's) are refused before they reach the daemon.
    for (const target of ['*', ['live', 'lab'], ['live'], 7, null]) {
      const refused = errorOf(await client.callTool({ name: 'mc_state', arguments: { target } }));
      expect(refused?.code).toBe('invalid_params');
      expect(refused?.error).toMatch(/one game server's name on MCP, one of live, lab.*once per target/);
    }
    expect(errorOf(await client.callTool({ name: 'mc_state', arguments: { target: 'staging' } }))?.code).toBe('target_unknown');
    await client.callTool({ name: 'mc_mark', arguments: { text: 'to lab', target: 'lab' } });
    expect(lab.received.filter((l) => l.startsWith('MARK'))).toEqual(['MARK to lab']);
    expect(live.received.filter((l) => l.startsWith('MARK'))).toEqual([]);
  });

  it('tells the client the list changed when a target connects and when a target goes away', async () => {
    const live = await sim();
    const labPort = await freePort();
    const daemon = await twoTargets(labPort, live, 'live');
    await waitUntil(() => daemon.targets.get('live')!.link.connected, 5_000, 'live to connect');
    const frontend = frontendFor(daemon.apiAddress.port);
    defer(() => frontend.close());
    const session = await connectInMemory(frontend);
    const before = (await session.client.listTools()).tools;
    // lab has no mod yet: the tools say so, and that a call without target goes to live.
    expect(targetArg(before, 'mc_state')?.description).toMatch(/goes to live \(the daemon's default\)\. Not connected now: lab\./);
    // With a default, `target` may be left out.
    expect(before.find((t) => t.name === 'mc_state')?.inputSchema.required ?? []).not.toContain('target');

    await sim(labPort, 2);
    await waitUntil(() => session.listChanges() >= 1, 5_000, 'list_changed when lab connects');
    const connected = (await session.client.listTools()).tools;
    expect(targetArg(connected, 'mc_state')?.enum).toEqual(['live', 'lab']);
    expect(targetArg(connected, 'mc_state')?.description).not.toMatch(/Not connected/);

    const changes = session.listChanges();
    await daemon.targets.remove('lab')?.stop();
    await waitUntil(() => session.listChanges() > changes, 5_000, 'list_changed when lab goes away');
    const alone = (await session.client.listTools()).tools;
    // One target left: the surface is a one-target daemon's, with no target argument and no mc_targets.
    expect(targetArg(alone, 'mc_state')).toBeUndefined();
    expect(alone.map((t) => t.name)).not.toContain('mc_targets');
  });

  it('tells the client the list changed when a connected target comes back with other CAPS, and the tool then names only the target that serves it', async () => {
    const live = await sim();
    const lab = await sim(0, 2);
    const daemon = await twoTargets(lab.port, live, 'live');
    await waitUntil(() => daemon.targets.hostsList().every((h) => h.link.connected), 5_000, 'both targets to connect');
    const frontend = frontendFor(daemon.apiAddress.port);
    defer(() => frontend.close());
    const session = await connectInMemory(frontend);
    expect(targetArg((await session.client.listTools()).tools, 'mc_entities')?.enum).toEqual(['live', 'lab']);

    const changes = session.listChanges();
    const connectedAt = daemon.targets.pick('lab').link.status().connectedAt;
    lab.setCapabilities(['state', 'status', 'events', 'capabilities']);
    lab.hangUp();
    await waitUntil(() => daemon.targets.pick('lab').link.connected && daemon.targets.pick('lab').link.status().connectedAt !== connectedAt, 5_000, 'lab back with its new CAPS');
    // Each list_changed is followed by a list, as a client does, until the one without lab.
    let seen = changes;
    for (;;) {
      await waitUntil(() => session.listChanges() > seen, 5_000, 'list_changed when lab lost entities');
      seen = session.listChanges();
      if (JSON.stringify(targetArg((await session.client.listTools()).tools, 'mc_entities')?.enum) === '["live"]') break;
    }
  });

  it('serves an event resource per target, and tells a subscriber of one target only of that target’s events', async () => {
    const live = await sim();
    const lab = await sim(0, 2);
    const daemon = await twoTargets(lab.port, live, 'live');
    await waitUntil(() => daemon.targets.hostsList().every((h) => h.link.connected), 5_000, 'both targets to connect');
    const frontend = frontendFor(daemon.apiAddress.port);
    defer(() => frontend.close());
    const { client } = await connectInMemory(frontend);
    // tools/list waits for the daemon's surface; resources/list answers with what is there (the default surface at first).
    await client.listTools();
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['mcbridge://events/live', 'mcbridge://events/lab']));
    expect(uris).not.toContain('mcbridge://events');
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain('mcbridge://events/{target}');

    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updates.push(n.params.uri));
    await client.subscribeResource({ uri: 'mcbridge://events/lab' });
    live.chat('Alex', 'on live');
    await client.callTool({ name: 'mc_mark', arguments: { text: 'seen on live', target: 'live' } });
    expect(updates).toEqual([]);
    lab.chat('Steve', 'on lab');
    await waitUntil(() => updates.length > 0, 3_000, 'the update for lab');
    expect(new Set(updates)).toEqual(new Set(['mcbridge://events/lab']));

    const read = await client.readResource({ uri: 'mcbridge://events/lab' });
    const events = JSON.parse((read.contents[0] as { text: string }).text).events as Array<{ target: string; text?: string }>;
    expect(events.every((e) => e.target === 'lab')).toBe(true);
    expect(events.map((e) => e.text)).toContain('on lab');
    // The bare URI is the target a call without one goes to: live, the default.
    const bare = JSON.parse(((await client.readResource({ uri: 'mcbridge://events' })).contents[0] as { text: string }).text).events as Array<{ target: string }>;
    expect(new Set(bare.map((e) => e.target))).toEqual(new Set(['live']));
    await expect(client.readResource({ uri: 'mcbridge://events/no such' })).rejects.toThrow(/unknown resource/);
  });

  it('on a daemon of one target, tools, resources and the list are exactly as before', async () => {
    const only = await sim();
    const daemon = await startDaemon({ log: silentLogger(), configDir: only.dir, api: { port: 0 }, link: { modPort: only.port } });
    defer(() => daemon.stop());
    await waitUntil(() => daemon.host.link.connected, 5_000, 'the mod to connect');
    const frontend = frontendFor(daemon.apiAddress.port);
    defer(() => frontend.close());
    const { client } = await connectInMemory(frontend);
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name)).not.toContain('mc_targets');
    // restore keeps its label `target`, as the tool declares it.
    expect(targetArg(tools, 'mc_state')).toBeUndefined();
    expect(tools).toEqual(projectTools(daemon.host.manifest()));
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['mcbridge://events']));
    expect(text(await client.callTool({ name: 'mc_state', arguments: {} }))).toContain('"type":"state"');
  });
});

describe('the target argument in words', () => {
  const tool = (name: string, targets: string[], own = false): ManifestTool & { targets: string[] } => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: own ? { target: { type: 'string', description: 'a label' } } : {} },
    annotations: { readOnly: true },
    requires: [],
    plugin: 'p',
    available: true,
    targets,
  });
  const manifest = (defaultTarget: string | null, tools: ManifestTool[]): Manifest =>
    ({
      revision: 1,
      vantage: 'server',
      capsSource: 'mod',
      connected: true,
      tools,
      targets: [
        { name: 'live', default: defaultTarget === 'live', connected: true },
        { name: 'lab', default: defaultTarget === 'lab', connected: true },
      ],
      defaultTarget,
    }) as Manifest;
  const described = (m: Manifest, pinned?: string) => (projectTools(m, pinned)[0]!.inputSchema.properties!.target as { description: string }).description;

  it('names the default, this server’s --target over it, and a default that cannot serve the tool', () => {
    expect(described(manifest('lab', [tool('a', ['live', 'lab'])]))).toMatch(/Without it the call goes to lab \(the daemon's default\)\./);
    expect(described(manifest('lab', [tool('a', ['live', 'lab'])]), 'live')).toMatch(/goes to live \(this MCP server's --target\)\./);
    expect(described(manifest('lab', [tool('a', ['live'])]))).toMatch(/goes to lab \(the daemon's default\), which cannot serve this tool now: name one of live\./);
  });
});
