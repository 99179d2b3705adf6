import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION } from '../../../../core/index.js';
import { defaultSurface } from '../../../../core/daemon/default-surface.js';
import type { McpFrontend } from '../../../../core/frontends/mcp/frontend.js';
import { GUIDE_PROMPT } from '../../../../core/frontends/mcp/prompts.js';
import type { Manifest } from '../../../../core/host/plugin-api.js';
import { freePort, startStack, waitUntil, type Stack } from '../../../support/helpers.js';
import { assertTableMatches, assertWaitCancels, cleanupsAfterEach, connectInMemory, errorOf, frontendFor, probeStack, TABLE_CAPS, text, type Connected } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();
const stack = (options: Parameters<typeof startStack>[0] = {}): Promise<Stack> => probeStack(defer, options);

async function session(frontend: McpFrontend): Promise<Connected> {
  const connected = await connectInMemory(frontend);
  defer(() => connected.close());
  return connected;
}

function frontend(port: number, options: Parameters<typeof frontendFor>[1] = {}): McpFrontend {
  const f = frontendFor(port, options);
  defer(() => f.close());
  return f;
}

function availableNames(manifest: Manifest): string[] {
  return manifest.tools
    .filter((t) => t.available)
    .map((t) => `mc_${t.name}`)
    .sort();
}

async function listedNames(c: Connected): Promise<string[]> {
  return (await c.client.listTools()).tools.map((t) => t.name).sort();
}

describe('MCP front-end (in-memory client)', () => {
  it('initializes with tools (listChanged), prompts and instructions', async () => {
    const s = await stack();
    const c = await session(frontend(s.daemon.apiAddress.port));
    expect(c.client.getServerVersion()).toMatchObject({ name: 'mcbridge' });
    expect(c.client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, prompts: {} });
    expect(c.client.getInstructions()).toMatch(/mc_capabilities/);
  });

  it('lists exactly the tools the server-vantage mod supports, with schemas and hints', async () => {
    const s = await stack();
    const c = await session(frontend(s.daemon.apiAddress.port));
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(availableNames(s.daemon.host.manifest()));
    for (const name of ['mc_status', 'mc_capabilities', 'mc_state', 'mc_entities', 'mc_command', 'mc_events', 'mc_mark', 'mc_wait', 'mc_probe', 'mc_state_census']) {
      expect(tools.map((t) => t.name)).toContain(name);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('mc_entities')!.inputSchema).toMatchObject({ type: 'object', properties: { radius: { type: 'number' } } });
    expect(byName.get('mc_state')!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(byName.get('mc_command')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    // Output schema only where the registry declares one; descriptions name MCP tools.
    expect(byName.get('mc_probe')!.outputSchema).toMatchObject({ type: 'object', properties: { word: { type: 'string' } } });
    expect(byName.get('mc_state')!.outputSchema).toMatchObject({ type: 'object', required: ['type'] });
    expect(byName.get('mc_probe')!.description).toContain('`mc_events`');
    expect(byName.get('mc_probe')!.description).toContain('Calls `mc_state` never');
    if (byName.has('mc_command_output')) expect(byName.get('mc_command')!.description).toMatch(/\bmc_command_output\b/);
  });

  it('on a client-vantage mod, lists the client surface; tools the mod lacks are absent', async () => {
    const s = await stack({ sim: { vantage: 'client', capabilities: ['state', 'entities', 'chat', 'wait'] } });
    const c = await session(frontend(s.daemon.apiAddress.port));
    const names = await listedNames(c);
    expect(names).toEqual(availableNames(s.daemon.host.manifest()));
    expect(names).toEqual(expect.arrayContaining(['mc_state', 'mc_entities', 'mc_wait', 'mc_status', 'mc_events']));
    for (const absent of ['mc_command', 'mc_mark']) expect(names).not.toContain(absent);
    const hidden = s.daemon.host
      .manifest()
      .tools.filter((t) => !t.available)
      .map((t) => `mc_${t.name}`);
    expect(hidden.length).toBeGreaterThan(0);
    for (const name of hidden) expect(names).not.toContain(name);
  });

  it("answers the first tools/list with the daemon's surface even when the daemon starts after it", async () => {
    const apiPort = await freePort();
    const f = frontend(apiPort, { startupWaitMs: 15_000 });
    const c = await session(f);
    const listing = c.client.listTools();
    // The daemon (and its mod, with fewer CAPS than the default surface) come up after the client asked.
    const s = await stack({ sim: { capabilities: ['state', 'entities'] }, daemon: { api: { port: apiPort } }, waitConnected: false });
    const names = (await listing).tools.map((t) => t.name).sort();
    expect(names).toEqual(availableNames(s.daemon.host.manifest()));
    expect(names).not.toContain('mc_command');
    expect(names).toContain('mc_state');
  });

  it('with no daemon: the default surface, a local status that says how to start one, and list_changed when it arrives', async () => {
    const apiPort = await freePort();
    const f = frontend(apiPort, { startupWaitMs: 200 });
    const c = await session(f);
    expect(await listedNames(c)).toEqual(availableNames(defaultSurface('server').manifest));

    const status = await c.client.callTool({ name: 'mc_status', arguments: {} });
    expect(status.isError).toBeFalsy();
    const body = JSON.parse(text(status));
    expect(body).toMatchObject({ connected: false, daemon: { reachable: false, port: apiPort } });
    expect(body.hint).toMatch(/mcbridge run/);
    expect(body.hint).toMatch(/--embedded/);
    const caps = JSON.parse(text(await c.client.callTool({ name: 'mc_capabilities', arguments: {} })));
    expect(caps).toMatchObject({ connected: false, surface: { capsSource: 'default' } });

    const state = await c.client.callTool({ name: 'mc_state', arguments: {} });
    expect(state.isError).toBe(true);
    expect(errorOf(state)).toMatchObject({ code: 'unavailable' });
    expect(errorOf(state)!.error).toMatch(/mcbridge run/);

    // A daemon with a narrower mod appears: the list changes and clients that listen are told.
    const s = await stack({ sim: { capabilities: ['state'] }, daemon: { api: { port: apiPort } } });
    await waitUntil(() => c.listChanges() > 0, 5_000, 'tools/list_changed');
    const names = await listedNames(c);
    expect(names).toEqual(availableNames(s.daemon.host.manifest()));
    expect(names).not.toContain('mc_entities');
    expect(JSON.parse(text(await c.client.callTool({ name: 'mc_state', arguments: {} })))).toMatchObject({ type: 'state' });
  });

  it('the client vantage default surface when no daemon answers (--vantage client)', async () => {
    const c = await session(frontend(await freePort(), { startupWaitMs: 100, vantage: 'client' }));
    expect(await listedNames(c)).toEqual(availableNames(defaultSurface('client').manifest));
  });

  it('gives the same results and error codes as the local API for the same table of calls', async () => {
    const s = await stack({ sim: { capabilities: TABLE_CAPS } });
    const c = await session(frontend(s.daemon.apiAddress.port));
    await assertTableMatches(c.client, s.client);
  });

  it('turns bad input into error results and keeps serving', async () => {
    const s = await stack();
    const c = await session(frontend(s.daemon.apiAddress.port));
    const bad = await c.client.callTool({ name: 'mc_entities', arguments: { radius: 'far' } });
    expect(bad.isError).toBe(true);
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_params' });
    expect(errorOf(bad)!.error).toMatch(/'radius'/);
    // Local API methods are not tools: no way to `stop` the daemon through MCP.
    for (const name of ['mc_stop', 'mc_cancel', 'mc_subscribe', 'state', 'mc_']) {
      const refused = await c.client.callTool({ name, arguments: {} });
      expect(errorOf(refused), name).toMatchObject({ code: 'unknown_method' });
    }
    expect(s.daemon.host.link.connected).toBe(true);
    const missingArgs = await c.client.callTool({ name: 'mc_command' });
    expect(errorOf(missingArgs)).toMatchObject({ code: 'invalid_params' });
    expect(JSON.parse(text(await c.client.callTool({ name: 'mc_state', arguments: {} })))).toMatchObject({ type: 'state' });
  });

  it('reports not_connected while the mod is down', async () => {
    const s = await stack({ daemon: { link: { modPort: await freePort() } }, waitConnected: false });
    const c = await session(frontend(s.daemon.apiAddress.port, { startupWaitMs: 100 }));
    const state = await c.client.callTool({ name: 'mc_state', arguments: {} });
    expect(state.isError).toBe(true);
    expect(errorOf(state)).toMatchObject({ code: 'not_connected' });
    const status = JSON.parse(text(await c.client.callTool({ name: 'mc_status', arguments: {} })));
    expect(status).toMatchObject({ connected: false });
  });

  it('updates the list and notifies when the mod reconnects with other CAPS, or a plugin is added', async () => {
    const s = await stack();
    const f = frontend(s.daemon.apiAddress.port);
    const c = await session(f);
    expect(await listedNames(c)).toContain('mc_command');

    s.sim.setCapabilities(['state', 'entities', 'wait']);
    s.sim.hangUp();
    await waitUntil(() => c.listChanges() >= 1, 5_000, 'list_changed after the CAPS change');
    await waitUntil(() => !f.tools().some((t) => t.name === 'mc_command'), 5_000, 'the narrowed surface');
    const narrowed = await listedNames(c);
    expect(narrowed).not.toContain('mc_command');
    expect(narrowed).not.toContain('mc_mark');
    expect(narrowed).toContain('mc_wait');

    const before = c.listChanges();
    s.daemon.host.use(
      definePlugin({
        name: 'late',
        version: '1.0.0',
        apiVersion: HOST_API_VERSION,
        tools: [defineTool({ name: 'late_tool', description: 'Added while clients are connected.', input: z.object({}), run: async () => ({ late: true }) })],
      }),
    );
    await waitUntil(() => c.listChanges() > before, 5_000, 'list_changed after a plugin was added');
    expect(await listedNames(c)).toContain('mc_late_tool');
    expect(JSON.parse(text(await c.client.callTool({ name: 'mc_late_tool', arguments: {} })))).toEqual({ late: true });
  });

  it('keeps the surface across a daemon restart and reconnects', async () => {
    // A port the first daemon picks itself: a free port asked for beforehand can be taken by another test first.
    const first = await startStack({ daemon: { api: { port: 0 } } });
    const apiPort = first.daemon.apiAddress.port;
    const f = frontend(apiPort);
    const c = await session(f);
    expect(await listedNames(c)).toContain('mc_state');
    await first.close();
    await waitUntil(() => !f.upstream.reachable, 5_000, 'the front-end to notice the daemon left');
    expect(await listedNames(c)).toContain('mc_state');
    const down = await c.client.callTool({ name: 'mc_state', arguments: {} });
    expect(errorOf(down)).toMatchObject({ code: 'unavailable' });
    await stack({ daemon: { api: { port: apiPort } } });
    await waitUntil(() => f.upstream.reachable, 5_000, 'the reconnect to the new daemon');
    expect(JSON.parse(text(await c.client.callTool({ name: 'mc_state', arguments: {} })))).toMatchObject({ type: 'state' });
  });

  it('cancels mc_wait in the daemon: the wait stops and no result is sent for the cancelled request', async () => {
    const s = await stack();
    const c = await session(frontend(s.daemon.apiAddress.port));
    const controller = new AbortController();
    const call = c.client.callTool({ name: 'mc_wait', arguments: { ticks: 2000 } }, undefined, { signal: controller.signal });
    const outcome = call.then(
      () => 'resolved',
      (err: Error) => err.name + ': ' + err.message,
    );
    await waitUntil(() => s.sim.received.includes('WAIT 2000'), 5_000, 'the WAIT to reach the mod');
    const connectionsDuringWait = s.sim.connections;
    const cancelledBefore = s.daemon.host.link.status().stats.cancelled;
    controller.abort('enough');
    expect(await outcome).toMatch(/abort|cancel|enough/i);
    // The daemon stops waiting: its WAIT connection to the mod closes.
    await waitUntil(() => s.sim.connections === connectionsDuringWait - 1, 5_000, 'the WAIT connection to close');
    expect(s.daemon.host.link.status().stats.cancelled).toBeGreaterThan(cancelledBefore);
    // Exactly one outcome per request: after a round trip, still no response for the cancelled id.
    await c.client.ping();
    const waitRequest = c.requests.find((m) => 'method' in m && m.method === 'tools/call' && JSON.stringify(m).includes('mc_wait')) as { id: number };
    expect(c.requests.some((m) => 'method' in m && m.method === 'notifications/cancelled')).toBe(true);
    expect(c.sent.filter((m) => 'id' in m && m.id === waitRequest.id && ('result' in m || 'error' in m))).toEqual([]);
  });

  it('cancels a composite mid-wait: the wait inside it stops', async () => {
    const s = await stack();
    const c = await session(frontend(s.daemon.apiAddress.port));
    await assertWaitCancels(c.client, s, 'mc_patient_state');
  });

  it('cancels mc_wait_for in the daemon: its handler ends as cancelled and polls no more', async () => {
    const s = await stack();
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const c = await session(frontend(s.daemon.apiAddress.port, { log }));
    const polls = () => s.sim.received.filter((l) => l === 'STATE').length;
    const before = polls();
    const controller = new AbortController();
    const call = c.client
      .callTool({ name: 'mc_wait_for', arguments: { match: { state: { path: 'players', gte: 99 } }, timeout_ms: 60_000, poll_ms: 100 } }, undefined, { signal: controller.signal })
      .then(
        () => 'resolved',
        () => 'aborted',
      );
    await waitUntil(() => polls() >= before + 2, 5_000, 'wait_for to poll STATE');
    controller.abort();
    expect(await call).toBe('aborted');
    // The daemon answers `cancelled` only once the handler has returned.
    await waitUntil(() => lines.some((l) => l.tool === 'mc_wait_for' && l.outcome === 'cancelled'), 5_000, 'the daemon to end the wait');
    const after = polls();
    await c.client.callTool({ name: 'mc_events', arguments: { limit: 1 } });
    expect(polls()).toBe(after);
  });

  it('sends progress notifications for a long wait when the client asks for them', async () => {
    const s = await stack();
    const c = await session(frontend(s.daemon.apiAddress.port));
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await c.client.callTool({ name: 'mc_wait', arguments: { ticks: 50 } }, undefined, { onprogress: (p) => progress.push(p) });
    expect(JSON.parse(text(result))).toMatchObject({ type: 'wait_ack', ticks: 50 });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    expect(progress.every((p) => p.total === 50 && p.progress <= 50)).toBe(true);
  });

  it('offers a guide prompt written against the current surface', async () => {
    const s = await stack({ sim: { capabilities: ['state', 'entities', 'command', 'wait'] } });
    const c = await session(frontend(s.daemon.apiAddress.port));
    const { prompts } = await c.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([GUIDE_PROMPT]);
    const guide = await c.client.getPrompt({ name: GUIDE_PROMPT });
    const body = (guide.messages[0]!.content as { text: string }).text;
    expect(body).toMatch(/mc_capabilities/);
    expect(body).toMatch(/`mc_events`.*`next`.*`since`/s);
    expect(body).toMatch(/- `mc_state`/);
    expect(body).toMatch(/Not available on this surface:[\s\S]*\n- `mc_mark`: the connected server-vantage mod does not advertise/);
    await expect(c.client.getPrompt({ name: 'nope' })).rejects.toThrow(/unknown prompt/);
  });
});
