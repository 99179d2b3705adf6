/**
 * A daemon of a legacy target and a control target (an embedded sim serving control protocol 1):
 * each reaches its game its own way, and the surface says per target what it serves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { targetSpecs } from '../../../../core/daemon/config/targets.js';
import { startDaemon, type Daemon } from '../../../../core/daemon/daemon.js';
import { silentLogger } from '../../../../core/util/log.js';
import { failure } from '../../../support/errors.js';
import { waitUntil } from '../../../support/wait-until.js';

let daemon: Daemon | null = null;
let client: ApiClient | null = null;
afterEach(async () => {
  client?.close();
  await daemon?.stop();
  daemon = client = null;
});

describe('a legacy target beside a control target', () => {
  it('both connect; targets lists each link; world-disk tools are refused on the control one with the reason', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-mixed-'));
    daemon = await startDaemon({ log: silentLogger(), configDir: dir, api: { port: 0 }, targets: targetSpecs({ live: { sim: true }, far: { sim: { control: true }, default: true } }, dir) });
    await waitUntil(() => daemon!.targets.hostsList().every((h) => h.link.connected), 10_000, 'both targets to connect');
    client = await ApiClient.connect({ port: daemon.apiAddress.port });
    const listed = (await client.call('targets', {})) as { targets: Array<{ name: string; transport: string; control?: Record<string, unknown> }> };
    expect(listed.targets.map((t) => [t.name, t.transport])).toEqual([
      ['live', 'legacy'],
      ['far', 'control'],
    ]);
    expect(listed.targets[1]!.control).toMatchObject({ trust: 'pin', credential: 'given', permissions: ['read', 'write'] });
    expect((await client.call('state', {})) as Record<string, unknown>).toMatchObject({ type: 'state' });
    const refused = await failure(client.call('fork', { name: 'x' }));
    expect(refused.message).toMatch(/world's folder on this machine/);
    // fork stays listed, for live, which serves it.
    const tools = (await client.call('tools', {})) as { tools: Array<{ name: string; available: boolean; targets?: string[] }> };
    expect(tools.tools.find((t) => t.name === 'fork')).toMatchObject({ available: true, targets: ['live'] });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
