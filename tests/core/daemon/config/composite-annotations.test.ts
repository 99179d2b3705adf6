/**
 * MCP clients auto-approve tools with `readOnlyHint`: a composite is read-only only when every
 * tool it uses is, and it inherits `destructive` from any of them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineComposite } from '../../../../core/authoring/config.js';
import { mcpTool } from '../../../../core/frontends/mcp/projection.js';
import { startTestHost, type TestHost } from '../../../../core/testing/index.js';

let host: TestHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

const composite = (name: string, uses: string[]) => defineComposite({ name, description: `Uses ${uses.join(' and ')}.`, uses, run: async () => null });

describe('composite annotations derived from the tools it uses', () => {
  it('one mutating tool among read-only ones makes the composite mutating and destructive, in the manifest and over MCP', async () => {
    host = await startTestHost({
      composites: [composite('look_then_act', ['state', 'command']), composite('act_then_look', ['command', 'state']), composite('look_twice', ['state', 'entities'])],
    });
    const manifest = await host.tools();
    const tool = (name: string) => manifest.tools.find((t) => t.name === name)!;
    const names = new Set(manifest.tools.map((t) => t.name));
    for (const name of ['look_then_act', 'act_then_look']) {
      expect(tool(name).annotations, name).toMatchObject({ readOnly: false, destructive: true });
      expect(mcpTool(tool(name), names).annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    expect(tool('look_twice').annotations).toMatchObject({ readOnly: true });
    expect(tool('look_twice').annotations.destructive).toBeUndefined();
    expect(mcpTool(tool('look_twice'), names).annotations).toMatchObject({ readOnlyHint: true });
  });

  it('read-only mode hides a composite that uses one mutating tool', async () => {
    host = await startTestHost({ readOnly: true, composites: [composite('look_then_act', ['state', 'command']), composite('look_twice', ['state', 'entities'])] });
    expect(await host.available()).toContain('look_twice');
    expect(await host.hidden()).toHaveProperty('look_then_act');
  });
});
