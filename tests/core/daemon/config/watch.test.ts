/**
 * Watching the config file (ConfigRuntime.watch): which file events start a reload, how a burst
 * of them becomes one, and the warning for keys that only a restart applies. The debounce is a
 * timer, so these tests fake setTimeout: they wait for the directory event itself (a watcher of
 * their own on the same directory), then run the timer, instead of waiting for time to pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../../core/daemon/config/load.js';
import { ConfigRuntime, type ConfigRuntimeOptions } from '../../../../core/daemon/config/runtime.js';
import { silentLogger } from '../../../../core/util/log.js';
import { project, removeProjects, type Project } from '../../../support/config-project.js';
import { makeHost, stopHostsAfterEach } from '../../../support/host.js';

stopHostsAfterEach();
const runtimes: ConfigRuntime[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const r of runtimes.splice(0)) await r.close();
  removeProjects();
});

const CONFIG = 'mcbridge.config.json';

async function watched(p: Project, config: Record<string, unknown>, options: Partial<ConfigRuntimeOptions> = {}): Promise<ConfigRuntime> {
  const file = p.write(CONFIG, JSON.stringify(config));
  const runtime = new ConfigRuntime(makeHost([]), { loaded: (await loadConfig({ file }))!, log: silentLogger(), ...options });
  runtimes.push(runtime);
  await runtime.start();
  runtime.watch();
  return runtime;
}

/**
 * Does `change` and resolves once an event for `name` in `dir` has been delivered. Watchers of one
 * directory share the same inotify read, so by then the runtime's watcher has had it too.
 */
async function seen(dir: string, name: string, change: () => void): Promise<void> {
  let watcher!: fs.FSWatcher;
  const delivered = new Promise<void>((resolve) => {
    watcher = fs.watch(dir, { persistent: false }, (_event, changed) => {
      if (changed?.toString() === name) resolve();
    });
  });
  change();
  await delivered;
  watcher.close();
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Runs the debounce, then waits for every reload it started: reloads are serialised, so one asked
 * for now runs after them. Returns the reloads the file events started.
 */
async function settle(runtime: ConfigRuntime): Promise<number> {
  vi.advanceTimersByTime(1_000);
  await runtime.reload('probe');
  return (runtime.status().reloads as number) - 1;
}

/** A logger that keeps its lines, for what only the log says. */
function recordingLogger(level: string) {
  const lines: Array<{ level: number; msg: string; reason?: string; keys?: string[] }> = [];
  return { lines, log: pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
}

describe('watching the config file', () => {
  it('reloads once for a burst of saves', async () => {
    const p = project();
    const runtime = await watched(p, {});
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await seen(p.dir, CONFIG, () => p.write(CONFIG, JSON.stringify({ deny: [] })));
    await seen(p.dir, CONFIG, () => p.write(CONFIG, JSON.stringify({ readOnly: true })));
    expect(runtime.status().reloads).toBe(0);
    expect(await settle(runtime)).toBe(1);
    expect(runtime.status()).not.toHaveProperty('lastError');
  });

  it('ignores changes to other files in the same directory', async () => {
    const p = project();
    const runtime = await watched(p, {});
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await seen(p.dir, 'notes.txt', () => p.write('notes.txt', 'not the config'));
    expect(await settle(runtime)).toBe(0);
  });

  it('does not reload a file that was moved away (the next save brings it back)', async () => {
    const p = project();
    const { lines, log } = recordingLogger('info');
    const runtime = await watched(p, {}, { log });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await seen(p.dir, CONFIG, () => fs.renameSync(path.join(p.dir, CONFIG), path.join(p.dir, 'old.json')));
    vi.advanceTimersByTime(1_000);
    // Reloads are serialised: this one (which fails, the file is gone) runs after any the move started.
    expect(await runtime.reload('probe')).toMatchObject({ ok: false, error: expect.stringMatching(/^\S*mcbridge\.config\.json: does not exist/) });
    expect(lines.filter((l) => l.reason !== undefined).map((l) => l.reason)).toEqual(['probe']);
  });

  it('follows the watch setting: the command line first, then the config, on by default', async () => {
    expect((await watched(project(), {})).status().watching).toBe(true);
    expect((await watched(project(), { watch: false })).status().watching).toBe(false);
    expect((await watched(project(), {}, { watch: false })).status().watching).toBe(false);
    expect((await watched(project(), { watch: false }, { watch: true })).status().watching).toBe(true);
  });

  it('stops watching when closed', async () => {
    const runtime = await watched(project(), {});
    await runtime.close();
    expect(runtime.status().watching).toBe(false);
  });
});

describe('a reload that changes a daemon option', () => {
  it('warns that only a restart applies it, naming the keys; other changes do not warn', async () => {
    const p = project();
    const { lines: warnings, log } = recordingLogger('warn');
    const file = p.write(CONFIG, JSON.stringify({ apiPort: 7000, webhook: { receivers: [{ urlEnv: 'HOOK_A' }] } }));
    const runtime = new ConfigRuntime(makeHost([]), { loaded: (await loadConfig({ file }))!, log, watch: false });
    runtimes.push(runtime);
    await runtime.start();

    p.write(CONFIG, JSON.stringify({ apiPort: 7000, webhook: { receivers: [{ urlEnv: 'HOOK_A' }] }, readOnly: true }));
    expect(await runtime.reload()).toMatchObject({ ok: true });
    expect(warnings).toEqual([]);

    p.write(CONFIG, JSON.stringify({ apiPort: 7001, webhook: { receivers: [{ urlEnv: 'HOOK_A' }] }, readOnly: true }));
    expect(await runtime.reload()).toMatchObject({ ok: true });
    expect(warnings).toEqual([expect.objectContaining({ keys: ['apiPort'], msg: expect.stringMatching(/^config: apiPort changed; .* when the daemon restarts$/) })]);

    p.write(CONFIG, JSON.stringify({ apiPort: 7002, webhook: { receivers: [{ urlEnv: 'HOOK_B' }] }, readOnly: true }));
    expect(await runtime.reload()).toMatchObject({ ok: true });
    expect(warnings[1]).toMatchObject({ keys: ['apiPort', 'webhook'], msg: expect.stringMatching(/^config: apiPort, webhook changed; /) });
  });
});
