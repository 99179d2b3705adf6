import { describe, expect, it } from 'vitest';
import type { McpFrontend } from '../../core/frontends/mcp/frontend.js';
import { cleanupsAfterEach, connectInMemory, frontendFor } from '../support/mcp.js';
import { useStacks } from '../support/plugins.js';
import { forkIntoLab, useTemps, worldDirOf } from '../support/restore.js';

/** The round trip over MCP with the SDK client: mc_fork on the live stack, mc_restore and mc_verify on the lab's. */
const stacks = useStacks();
const tmp = useTemps();
const defer = cleanupsAfterEach();

function frontend(port: number): McpFrontend {
  const f = frontendFor(port);
  defer(() => f.close());
  return f;
}

describe('restore over MCP', () => {
  it('mc_restore is destructive with an output schema; dry run, apply and mc_verify return structuredContent; progress per summon', async () => {
    const { lab, fork } = await forkIntoLab(stacks.start, tmp);
    const session = await connectInMemory(frontend(lab.port));
    defer(() => session.close());
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const restore = byName.get('mc_restore')!;
    expect(restore.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(restore.outputSchema).toMatchObject({ type: 'object' });
    expect(Object.keys(restore.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['directory', 'dry_run', 'expect_world_dir', 'replace_existing']));
    // They take a snapshot: a folder written on the game host (issue 24, N11).
    expect(byName.get('mc_verify')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(byName.get('mc_order')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });

    const dry = await session.client.callTool({ name: 'mc_restore', arguments: { dir: fork.snapshotDir } });
    expect(dry.isError).toBeFalsy();
    expect(dry.structuredContent).toMatchObject({ verdict: 'dry-run', dryRun: true, summonable: fork.entities });

    const progress: number[] = [];
    const applied = await session.client.callTool({ name: 'mc_restore', arguments: { directory: fork.snapshotDir, dry_run: false, target: 'lab', expect_world_dir: worldDirOf(lab) } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(applied.structuredContent).toMatchObject({ verdict: 'ok', ok: true, verified: true, issued: fork.entities });
    expect(progress).toEqual(Array.from({ length: fork.entities }, (_, i) => i + 1));

    const verified = await session.client.callTool({ name: 'mc_verify', arguments: { dir: fork.snapshotDir } });
    expect(verified.structuredContent).toMatchObject({ ok: true, verification: { ok: true, matched: fork.entities } });

    const refused = await session.client.callTool({ name: 'mc_restore', arguments: { dir: fork.snapshotDir, dry_run: false } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/invalid_params.*apply requires an endpoint proof/);
  });

  it('hidden with a reason without the snapshot capability, and on the client vantage', async () => {
    const noSnapshot = await stacks.start({ sim: { autoTick: false, capabilities: ['state', 'entities', 'command'] } });
    const hidden = await noSnapshot.hidden();
    for (const tool of ['restore', 'verify', 'order']) expect(hidden[tool], tool).toMatch(/snapshot/);
    const client = await stacks.start({ sim: { vantage: 'client' } });
    const clientHidden = await client.hidden();
    for (const tool of ['restore', 'verify', 'order']) expect(clientHidden[tool], tool).toMatch(/vantage|server/);
  });
});
