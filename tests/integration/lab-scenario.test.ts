/**
 * A test harness's one call (issue 36, item 8): a scenario declared in a JSON config resets a lab
 * server the daemon runs (a simulated mod launched as a child) from its template, summons at the
 * input's coordinates and checks the answer; a failing check names its step.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: scenario steps are written with ${...} references
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import type { McbridgeError } from '../../core/host/errors.js';
import { configuredDaemon } from '../support/servers.js';
import { CliProcesses } from '../support/cli-process.js';
import type { DaemonProcess } from '../support/daemon-process.js';

type Json = Record<string, any>;
const processes = new CliProcesses();
let root: string;
let daemon: DaemonProcess;
let api: ApiClient;

const scenario = (name: string, expected: string) => ({
  name,
  description: 'Reset the lab from its template, summon a zombie, check the game said so.',
  input: { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' }, z: { type: 'integer' } }, required: ['x', 'y', 'z'] },
  steps: [
    { call: 'server_reset', as: 'reset' },
    { call: 'command', args: { command: 'summon minecraft:zombie ${x} ${y} ${z}' }, as: 'spawn' },
    { expect: { path: 'steps.reset.result.reset.source.kind', equals: 'template' } },
    { expect: { path: 'steps.spawn.result.output[0]', contains: expected } },
  ],
});

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-lab-scenario-')));
  fs.mkdirSync(path.join(root, 'templates', 'clean'), { recursive: true });
  fs.writeFileSync(path.join(root, 'templates', 'clean', 'level.dat'), 'clean');
  const config = {
    targets: { lab: { launch: { sim: true, cwd: 'servers/lab', world: { template: 'templates/clean' } } } },
    scenarios: [scenario('zombie_trial', 'Summoned new'), scenario('wrong_trial', 'Summoned new Creeper')],
  };
  daemon = await configuredDaemon(processes, root, config);
  api = await ApiClient.connect({ port: daemon.port });
}, 60_000);

afterAll(async () => {
  api?.close();
  await processes.stopAll();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a scenario that resets a lab server', { timeout: 90_000 }, () => {
  it('resets, summons and checks in one call; the world is the template again', async () => {
    const world = path.join(root, 'servers', 'lab', 'world');
    fs.writeFileSync(path.join(world, 'ops.json'), '["a bot"]');
    const before = ((await api.call('server_status', {})) as Json).pid;
    const result = (await api.call('zombie_trial', { x: 3, y: 64, z: -2 }, { timeoutMs: 60_000 })) as Json;
    expect(result.passed).toBe(true);
    expect(result.steps).toHaveLength(4);
    expect(fs.existsSync(path.join(world, 'ops.json'))).toBe(false);
    const now = (await api.call('server_status', {})) as Json;
    expect(now).toMatchObject({ state: 'running', world: { lastReset: { source: { kind: 'template' } } } });
    expect(now.pid).not.toBe(before);
    const zombies = (await api.call('entities', { types: ['minecraft:zombie'] })) as Json;
    // One zombie, where the input said (block centres), in a world started afresh.
    expect(zombies.entities).toHaveLength(1);
    expect(zombies.entities[0]).toMatchObject({ type: 'minecraft:zombie', x: 3.5, y: 64, z: -1.5 });
  });

  it('a check that fails says which step stopped, with expected and actual', async () => {
    const err = (await api.call('wrong_trial', { x: 1, y: 64, z: 1 }, { timeoutMs: 60_000 }).catch((e: unknown) => e)) as McbridgeError;
    expect(err.code).toBe('scenario_failed');
    expect(err.message).toMatch(/scenario 'wrong_trial' step 3 \(expect\): expected steps\.spawn\.result\.output\[0\] to contain "Summoned new Creeper", but it is "Summoned new Zombie/);
    expect(err.details).toMatchObject({ scenario: 'wrong_trial', step: 3 });
  });
});
