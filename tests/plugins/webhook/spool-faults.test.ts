/**
 * The spool's faults against real daemon processes (issue 24): a full disk is a counted,
 * reported condition and delivery goes on from memory (item 1); a spool write that cannot finish
 * never holds up the daemon's loop (item 6); a damaged spool gives back what reads (N20).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../../core/api/client.js';
import { CliProcesses } from '../../support/cli-process.js';
import { pollUntil, startDaemonProcess } from '../../faults/support.js';
import { parseSpool, receiverKey, Spool } from '../../../plugins/webhook/spool.js';
import { buildDelivery } from '../../../plugins/webhook/body.js';
import { startReceiver } from './test-receiver.js';

const SECRET = 'whsec-spool-faults-secret';
const processes = new CliProcesses();
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  await processes.stopAll();
  for (const x of open.splice(0).reverse()) await x.close();
});

async function setup(behaviour: 'hang' | 200) {
  const server = await startReceiver(SECRET, [], behaviour);
  open.push(server);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-spool-faults-'));
  open.push({ close: () => fs.rmSync(dir, { recursive: true, force: true }) });
  fs.mkdirSync(path.join(dir, 'state'));
  fs.writeFileSync(path.join(dir, 'hook.secret'), `${SECRET}\n`);
  const config = path.join(dir, 'mcbridge.config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      webhook: { receivers: [{ urlEnv: 'HOOK_URL', secretFile: 'hook.secret', events: ['mark'], timeout: 120 }], spool: 'state/webhook.spool' },
    }),
  );
  const start = async () => {
    const daemon = await startDaemonProcess(processes, ['--sim'], { HOOK_URL: server.url() }, config);
    const c = await ApiClient.connect({ port: daemon.port });
    open.push(c);
    return { daemon, c, status: async () => (await c.call('webhook_status')) as any };
  };
  return { server, dir, spoolFile: path.join(dir, 'state', 'webhook.spool'), start };
}

/**
 * A full disk under `dir`: a 64 KiB tmpfs filled up when this process may mount one (real
 * ENOSPC); else a directory where the spool's temporary file goes (EISDIR), which takes the same
 * path. `free()` gives the space back.
 */
function fillDisk(dir: string, spoolFile: string): { free(): void; kind: string } {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    open.push({ close: () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' }) });
    const filler = path.join(dir, 'filler');
    try {
      fs.writeFileSync(filler, Buffer.alloc(128 * 1024));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    return { kind: 'ENOSPC', free: () => fs.rmSync(filler) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOSPC') throw err;
    fs.mkdirSync(`${spoolFile}.tmp`);
    return { kind: 'EISDIR', free: () => fs.rmdirSync(`${spoolFile}.tmp`) };
  }
}

it('a full disk under the spool is counted and reported, delivery goes on from memory, and the spool catches up when space returns', async () => {
  const { server, dir, spoolFile, start } = await setup(200);
  const disk = fillDisk(path.join(dir, 'state'), spoolFile);
  const { daemon, c, status } = await start();
  for (const text of ['one', 'two']) await c.call('mark', { text });
  await pollUntil(async () => (await status()).receivers[0].delivered === 2);
  await pollUntil(async () => (await status()).spoolStatus.failures >= 1);
  expect(daemon.alive()).toBe(true);
  const failing = await status();
  expect(failing.spoolStatus).toMatchObject({ file: spoolFile, failing: true, writes: 0 });
  expect(failing.spoolStatus.lastError).toContain(disk.kind);
  expect(daemon.out.stderr).toContain(`webhook spool ${spoolFile} cannot be written (${disk.kind}`);
  expect(JSON.stringify(await c.call('status'))).toContain('"failing":true');

  disk.free();
  await c.call('mark', { text: 'three' });
  await pollUntil(async () => (await status()).spoolStatus.failing === false);
  expect((await status()).spoolStatus.writes).toBeGreaterThanOrEqual(1);
  expect(daemon.out.stderr).toContain(`webhook spool ${spoolFile} is written again`);
  await pollUntil(async () => (await status()).receivers[0].delivered === 3);
  expect(server.accepted()).toHaveLength(3);
  await daemon.kill('SIGTERM');
  expect(parseSpool(fs.readFileSync(spoolFile, 'utf8'))).toMatchObject({ skipped: 0, state: { closed: true } });
}, 60_000);

it('a spool write that cannot finish holds up nothing: the daemon answers while it waits, and the write completes after', async () => {
  const { server, spoolFile, start } = await setup('hang');
  // The temporary file is a pipe nobody reads: opening it to write waits until someone does.
  execFileSync('mkfifo', [`${spoolFile}.tmp`]);
  const { daemon, c, status } = await start();
  for (const text of ['one', 'two', 'three']) await c.call('mark', { text });
  await server.hitsReached(1);
  // Ordering: these answers came while the first spool write was still waiting on the pipe.
  for (let i = 0; i < 20; i += 1) expect(await c.call('ping')).toBeDefined();
  expect((await status()).spoolStatus).toMatchObject({ writes: 0, failures: 0 });
  expect(fs.statSync(`${spoolFile}.tmp`).isFIFO()).toBe(true);

  // Read the pipe: the held write goes on (a pipe cannot be fsync'd: one failure, counted), the next lands.
  const drained = new Promise<string>((resolve) => {
    let text = '';
    fs.createReadStream(`${spoolFile}.tmp`, 'utf8')
      .on('data', (d) => (text += d))
      .on('end', () => resolve(text));
  });
  await drained;
  await pollUntil(async () => (await status()).spoolStatus.writes >= 1);
  expect((await status()).spoolStatus).toMatchObject({ failing: false });
  const spooled = parseSpool(fs.readFileSync(spoolFile, 'utf8'));
  expect(Object.values(spooled.state.queues)[0]).toHaveLength(3);
  expect(daemon.alive()).toBe(true);
}, 60_000);

it('a damaged spool is read for what it holds: good records delivered, the file moved aside and named, the loss counted', async () => {
  const { server, spoolFile, start } = await setup(200);
  const key = receiverKey(server.url(), 0);
  const owed = ['kept one', 'kept two', 'kept three'].map((text, i) => buildDelivery({ type: 'mark', category: 'mark', seq: i + 1, streamId: 'old', eventId: `old:${i + 1}`, text }));
  const lines = Spool.render({ streamId: 'old', lastSeq: 3, queues: { [key]: owed } }).split('\n');
  // A torn record between good ones (a disk error, a hand edit): the rest must survive it.
  lines.splice(2, 0, '{"r":"0:abc","d":{"eventId":"x"');
  fs.writeFileSync(spoolFile, lines.join('\n'));

  const { daemon, status } = await start();
  await pollUntil(async () => (await status()).receivers[0].delivered === 3);
  expect(server.hits.map((h) => (h.json.data as { text: string }).text)).toEqual(['kept one', 'kept two', 'kept three']);
  const s = await status();
  expect(s.receivers[0]).toMatchObject({ gaps: 2, failed: 0 }); // the damage, and the old stream's end
  expect(s.spoolStatus.damaged).toMatchObject({ skipped: 1 });
  const aside = s.spoolStatus.damaged.movedTo as string;
  expect(aside.startsWith(`${spoolFile}.damaged-`)).toBe(true);
  expect(fs.readFileSync(aside, 'utf8')).toBe(lines.join('\n'));
  expect(daemon.out.stderr).toContain(`was damaged: 1 part(s) could not be read and are lost, the rest is delivered; the file was moved to ${aside}`);
}, 60_000);
