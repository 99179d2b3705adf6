/**
 * Writes over the legacy link (docs/control.md, "Writes whose result is unknown"): every error
 * says whether the write may be sent again and whether it may have run, and names its request id;
 * an id sent again never runs twice. Against the simulated mod, over the local API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../../../support/errors.js';
import { startStack } from '../../../support/helpers.js';
import { waitUntil } from '../../../support/wait-until.js';

type Stack = Awaited<ReturnType<typeof startStack>>;
const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

async function stack(): Promise<Stack> {
  const s = await startStack();
  stacks.push(s);
  return s;
}

const pigs = (s: Stack) => s.sim.world.entities.filter((e) => e.type === 'minecraft:pig').length;

describe('writes over the legacy link', () => {
  it('a command sent twice under one request_id runs once; the second answer is the first, marked duplicate', async () => {
    const s = await stack();
    const before = pigs(s);
    const first = (await s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'pig-1' })) as Record<string, unknown>;
    const again = (await s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'pig-1' })) as Record<string, unknown>;
    expect(pigs(s)).toBe(before + 1);
    expect(first.duplicate).toBeUndefined();
    expect(again).toMatchObject({ duplicate: true, requestId: 'pig-1', detail: first.detail });
  });

  it('a write refused before it left (no mod) is retryable and not unknown, and names its id', async () => {
    const s = await stack();
    await s.sim.stop();
    await waitUntil(() => !s.daemon.host.link.connected, 5_000, 'the daemon to see the mod gone');
    const err = await failure(s.client.call('mark', { text: 'x', request_id: 'm-1' }));
    expect(err.code).toBe('not_connected');
    expect(err.outcome).toEqual({ retryable: true, resultUnknown: false, requestId: 'm-1' });
  });

  it('a write whose answer never came is resultUnknown, and the same id is then refused rather than run again', async () => {
    const s = await stack();
    // The mod reads the request, then the connection drops: it may have run.
    s.sim.failNext('CMD', { hangUp: 'after' });
    const err = await failure(s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'lost-1' }));
    expect(err.code).toBe('not_connected');
    expect(err.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: 'lost-1' });
    const again = await failure(s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'lost-1' }));
    expect(again.code).toBe('busy');
    expect(again.message).toMatch(/may have run: it is not sent again/);
    expect(again.outcome).toMatchObject({ resultUnknown: true, requestId: 'lost-1' });
  });

  it('a game refusal is definite: not retryable, not unknown; and a made id is named when none was given', async () => {
    const s = await stack();
    s.sim.failNext('CMD', { error: 'task failed: java.lang.IllegalStateException: nope' });
    const err = await failure(s.client.call('command', { command: 'list' }));
    expect(err.code).toBe('mod_error');
    expect(err.outcome).toMatchObject({ retryable: false, resultUnknown: false });
    expect(err.outcome?.requestId).toMatch(/^lg-[0-9a-f]{16}-\d+$/);
  });

  it('reads carry no outcome, and a bad request_id is refused by the tool', async () => {
    const s = await stack();
    s.sim.failNext('STATE', { error: 'nope' });
    const err = await failure(s.client.call('state', {}));
    expect(err.outcome).toBeUndefined();
    const bad = await failure(s.client.call('command', { command: 'list', request_id: 'has space' }));
    expect(bad.code).toBe('invalid_params');
  });

  it('the leases are not offered over the legacy link, with the reason; request_status is, from the daemon ledger', async () => {
    const s = await stack();
    const manifest = (await s.client.call('tools', {})) as { tools: Array<{ name: string; available: boolean; reason?: string }> };
    expect(manifest.tools.find((t) => t.name === 'request_status')).toMatchObject({ available: true });
    await s.client.call('command', { command: 'list', request_id: 'st-1' });
    expect(await s.client.call('request_status', { request_id: 'st-1' })).toMatchObject({ requestId: 'st-1', state: 'completed', source: 'daemon', operation: 'CMD' });
    expect(await s.client.call('request_status', { request_id: 'never-sent' })).toMatchObject({ requestId: 'never-sent', state: 'unknown', source: 'daemon' });
    for (const name of ['exclusive_acquire', 'exclusive_status']) {
      expect(manifest.tools.find((t) => t.name === name)).toMatchObject({ available: false, reason: expect.stringMatching(/only in the mod's control protocol/) });
    }
  });
});
