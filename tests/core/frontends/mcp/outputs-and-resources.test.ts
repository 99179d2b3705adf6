/**
 * With the real SDK client: every tool has an output schema and every read-only tool answers
 * with structuredContent that validates against it (checked here with Ajv as well as by the
 * SDK); resources and prompts answer, and a subscribed resource hears of new events.
 */
import { Ajv } from 'ajv';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { McpFrontend } from '../../../../core/frontends/mcp/frontend.js';
import { EVENTS_URI, LOGS_URI, SNAPSHOTS_URI } from '../../../../core/frontends/mcp/resources.js';
import { freePort, waitUntil } from '../../../support/helpers.js';
import { cleanupsAfterEach, connectInMemory, frontendFor, probeStack, text, type Connected } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();

async function session(frontend: McpFrontend): Promise<Connected> {
  const connected = await connectInMemory(frontend);
  defer(() => connected.close());
  return connected;
}

/** The JSON text of a resource's (only) content. */
function contentJson(result: { contents: Array<Record<string, unknown>> }): any {
  return JSON.parse(String(result.contents[0]?.text));
}

function frontend(port: number): McpFrontend {
  const f = frontendFor(port);
  defer(() => f.close());
  return f;
}

/** Arguments for the read-only tools that need some; every other one is called with none. */
const ARGS: Record<string, Record<string, unknown>> = {
  mc_player: { player: 'Steve' },
  mc_context: { id: 'no-such-context' },
  mc_wait_for: { match: { type: 'never_happens' }, timeout_ms: 1 },
  mc_probe: { word: 'creeper' },
  mc_state_census: { label: 'census' },
  mc_patient_state: { ticks: 0 },
  mc_wait: { ticks: 0 },
};

describe('MCP output schemas', { timeout: 60_000 }, () => {
  for (const vantage of ['server', 'client'] as const) {
    it(`${vantage} vantage: every tool has an object output schema; every read-only tool's structuredContent validates against it`, async () => {
      const s = await probeStack(defer, { sim: { vantage } });
      const c = await session(frontend(s.daemon.apiAddress.port));
      const { tools } = await c.client.listTools();
      expect(tools.length).toBeGreaterThan(10);
      const ajv = new Ajv({ strict: false });
      const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true);
      expect(readOnly.map((t) => t.name)).toEqual(expect.arrayContaining(['mc_status', 'mc_capabilities', 'mc_state', 'mc_events', 'mc_state_census']));
      for (const tool of tools) {
        expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
        ajv.compile(tool.outputSchema!); // a schema Ajv cannot compile would fail every client that checks
      }
      // Tools that need an argument (verify and order need a fork's directory) are called elsewhere.
      const callable = readOnly.filter((t) => !(t.inputSchema as { required?: string[] }).required?.length);
      expect(callable.length).toBeGreaterThan(5);
      for (const tool of callable) {
        const result = await c.client.callTool({ name: tool.name, arguments: ARGS[tool.name] ?? {} });
        expect(result.isError, `${tool.name}: ${text(result)}`).toBeFalsy();
        expect(result.structuredContent, tool.name).toBeDefined();
        const validate = ajv.compile(tool.outputSchema!);
        expect(validate(result.structuredContent), `${tool.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      // A tool that declares no output shape (here a composite) answers under `result`.
      const census = await c.client.callTool({ name: 'mc_state_census', arguments: { label: 'x' } });
      expect(census.structuredContent).toEqual({ result: JSON.parse(text(census)) });
    });
  }
});

describe('MCP resources and prompts', { timeout: 60_000 }, () => {
  it('lists the event log and snapshots, reads them through the daemon, and notifies subscribers of new events and snapshots', async () => {
    const s = await probeStack(defer);
    const c = await session(frontend(s.daemon.apiAddress.port));
    expect(c.client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true } });
    const { resources } = await c.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([EVENTS_URI, SNAPSHOTS_URI, LOGS_URI]);
    expect((await c.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await c.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['mc_guide']);

    await s.client.call('mark', { text: 'resource-read' });
    const page = contentJson(await c.client.readResource({ uri: EVENTS_URI }));
    expect(page.events.map((e: { text?: string }) => e.text)).toContain('resource-read');

    const updates: string[] = [];
    c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
      updates.push(n.params.uri);
    });
    await c.client.subscribeResource({ uri: EVENTS_URI });
    await s.client.call('mark', { text: 'after-subscribe' });
    await waitUntil(() => updates.includes(EVENTS_URI), 5_000, 'an update for the event log');
    expect(updates).not.toContain(SNAPSHOTS_URI);

    await c.client.subscribeResource({ uri: SNAPSHOTS_URI });
    await s.client.call('snapshot', { name: 'watched' });
    await waitUntil(() => updates.includes(SNAPSHOTS_URI), 5_000, 'an update for the snapshot list');
    const listed = contentJson(await c.client.readResource({ uri: SNAPSHOTS_URI }));
    expect(listed.snapshots.map((x: { id: string }) => x.id)).toContain('watched');

    await expect(c.client.readResource({ uri: 'mcbridge://nothing' })).rejects.toThrow(/unknown resource 'mcbridge:\/\/nothing'/);
    await expect(c.client.subscribeResource({ uri: 'mcbridge://nothing' })).rejects.toThrow(/unknown resource/);
  });

  it('answers resources/list and prompts/list with no daemon (never Method not found)', async () => {
    const c = await session(frontend(await freePort()));
    expect((await c.client.listResources()).resources.map((r) => r.uri)).toContain(EVENTS_URI);
    expect((await c.client.listPrompts()).prompts.length).toBe(1);
  });
});
