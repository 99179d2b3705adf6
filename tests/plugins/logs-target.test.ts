/** The logs plugin reads its target's facts: the `logFile` the daemon validated and the state folder, with the mod link down. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createLogsPlugin } from '../../plugins/logs/index.js';
import { makeHost, stopHostsAfterEach } from '../support/host.js';

stopHostsAfterEach();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

it("follows the target's logFile and keeps its records in the host's state folder, while the mod is down", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-logst-'));
  dirs.push(dir);
  const logFile = path.join(dir, 'latest.log');
  fs.writeFileSync(logFile, '[01:02:03] [Server thread/INFO]: Done (1.0s)!\n');
  const host = makeHost([createLogsPlugin()], { stateDir: path.join(dir, 'state'), targetOptions: { logFile } });
  await host.start();
  const deadline = Date.now() + 10_000;
  let page: { records: Array<{ message: string }> };
  for (;;) {
    page = (await host.call('logs', {})) as typeof page;
    if (page.records.length > 0 || Date.now() > deadline) break;
    await new Promise((r) => setImmediate(r));
  }
  expect(page.records.map((r) => r.message)).toEqual(['Done (1.0s)!']);
  expect(host.link.connected).toBe(false);
  await host.stop();
  expect(fs.readFileSync(path.join(dir, 'state', 'logs', 'default.jsonl'), 'utf8')).toContain('Done (1.0s)!');
});
