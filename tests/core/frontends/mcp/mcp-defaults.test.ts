/**
 * Tool defaults that differ on MCP (issue 27, item 5): the predecessor's MCP `mc_entities`
 * summarised by default while its local API `entities` answered the raw records. Both are kept,
 * through the real SDK client on one side and the local API client on the other.
 */
import { describe, expect, it } from 'vitest';
import type { McpFrontend } from '../../../../core/frontends/mcp/frontend.js';
import { cleanupsAfterEach, connectInMemory, frontendFor, probeStack, text, type Connected } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();

async function session(frontend: McpFrontend): Promise<Connected> {
  const connected = await connectInMemory(frontend);
  defer(() => connected.close());
  return connected;
}

async function entitiesOverMcp(c: Connected, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await c.client.callTool({ name: 'mc_entities', arguments: args });
  expect(result.isError).toBeFalsy();
  const body = JSON.parse(text(result));
  expect(result.structuredContent).toEqual(body);
  return body;
}

describe('mc_entities: the summary by default on MCP, the raw records on the local API', () => {
  it('summarises with no arguments, says so in its schema, and gives the raw list for summary: false', async () => {
    const s = await probeStack(defer);
    const f = frontendFor(s.daemon.apiAddress.port);
    defer(() => f.close());
    const c = await session(f);

    const listed = (await c.client.listTools()).tools.find((t) => t.name === 'mc_entities');
    expect(listed?.inputSchema.properties?.summary).toMatchObject({ type: 'boolean', default: true });

    const summary = await entitiesOverMcp(c, {});
    expect(summary).toMatchObject({ type: 'entities_summary', total: 6, counts: expect.any(Object) });
    expect(Array.isArray(summary.nearest)).toBe(true);
    expect(summary).not.toHaveProperty('entities');

    // The predecessor's mc_entities arguments: `limit` bounds the summary, `types` narrows it.
    const limited = await entitiesOverMcp(c, { limit: 2, types: 'pig,cow,zombie' });
    expect(limited).toMatchObject({ type: 'entities_summary', matched: 3, truncated: true });
    expect(limited.nearest).toHaveLength(2);

    const raw = await entitiesOverMcp(c, { summary: false });
    expect(raw.type).toBe('entities');
    expect(raw.entities).toHaveLength(6);

    // Scripts keep the predecessor's local API: no arguments, the mod's records.
    const local = (await s.client.call('entities')) as Record<string, any>;
    expect(local.type).toBe('entities');
    expect(local.entities).toHaveLength(6);
    expect(s.daemon.host.manifest().tools.find((t) => t.name === 'entities')?.mcpDefaults).toEqual({ summary: true });
  });
});
