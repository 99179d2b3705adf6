import net from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION } from '../../core/index.js';
import { CliProcesses } from '../support/cli-process.js';
import { startStack, waitUntil, type Stack } from '../support/helpers.js';
import { ApiSocket, pollUntil, startDaemonProcess, type Frame } from './support.js';

const processes = new CliProcesses();
let stack: Stack | undefined;
afterEach(async () => {
  await processes.stopAll();
  await stack?.close();
  stack = undefined;
});

const MiB = 2 ** 20;

/** A client that writes requests and reads nothing until told to. */
async function nonReader(port: number): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  socket.pause();
  socket.on('error', () => {});
  return socket;
}

describe('a client that does not read its answers', { timeout: 120_000 }, () => {
  it('stops being read once its unsent answers pass the push buffer; the daemon stays small, others are served, and all is answered once it reads', async () => {
    const daemon = await startDaemonProcess(processes, ['--sim', '--push-buffer', '1']);
    const control = await ApiSocket.open(daemon.port);
    // 300 events of 2 KB: every `events` answer is a full 256 KiB page.
    for (let i = 0; i < 300; i++) control.send({ id: `mark-${i}`, method: 'mark', params: { text: `${i} ${'m'.repeat(2_000)}` } });
    await control.until(() => control.responses('mark-299').length === 1, 'the marks');
    const page = await control.request({ id: 'page', method: 'events', params: { since: 0 } });
    expect(JSON.stringify(page).length).toBeGreaterThan(200_000);
    const rssBefore = daemon.rss();

    // 1,000 requests (50 KB) asking for 256 MB of answers.
    const flood = await nonReader(daemon.port);
    const requests = 1_000;
    flood.write(Array.from({ length: requests }, (_, id) => JSON.stringify({ id, method: 'events', params: { since: 0 } }) + '\n').join(''));

    let api: Frame = {};
    await pollUntil(async () => {
      const grew = daemon.rss() - rssBefore;
      if (grew > 200 * MiB) throw new Error(`the daemon grew by ${(grew / MiB).toFixed(0)} MiB buffering answers nobody reads`);
      api = (await control.request({ id: 'status', method: 'status' })).result.api;
      return api.paused === 1;
    });
    expect(api.clients).toBe(2);
    const grown = daemon.rss() - rssBefore;
    expect(grown).toBeLessThan(100 * MiB);
    expect(await control.request({ id: 'ping', method: 'ping' })).toMatchObject({ ok: true });

    // Reading resumes the flow: every request answered exactly once, in order. 256 MB of
    // answers: only their heads are read.
    const answers: string[] = [];
    let tail = '';
    flood.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      let end = 0;
      for (const match of text.matchAll(/\{"type":"response","id":(\d+),"ok":(true|false)/g)) {
        answers.push(`${match[1]}:${match[2]}`);
        end = match.index + match[0].length;
      }
      tail = text.slice(Math.max(end, text.length - 64));
    });
    flood.resume();
    await waitUntil(() => answers.length >= requests, 60_000, 'every answer');
    expect(answers).toEqual(Array.from({ length: requests }, (_, id) => `${id}:true`));
    console.log(`slow reader: daemon RSS ${(rssBefore / MiB).toFixed(0)} MiB before the flood, +${(grown / MiB).toFixed(0)} MiB while paused`);
    expect(daemon.alive()).toBe(true);
    flood.destroy();
    control.close();
  });

  it('is closed, with the reason logged, when answers owed from before the pause pass the hard bound; nobody else is', async () => {
    const logged: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => logged.push(line) });
    stack = await startStack({ daemon: { log, api: { pushBufferBytes: 256 * 1024, maxOutputBytes: 4 * MiB } } });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    stack.daemon.host.use(
      definePlugin({
        name: 'gated',
        version: '1.0.0',
        apiVersion: HOST_API_VERSION,
        tools: [
          defineTool({
            name: 'gated_blob',
            description: 'Half a MiB, once the test opens the gate.',
            input: z.object({}),
            run: async () => {
              waiting += 1;
              await gate;
              return 'x'.repeat(512 * 1024);
            },
          }),
        ],
      }),
    );
    const flood = await nonReader(stack.daemon.apiAddress.port);
    flood.write(Array.from({ length: 40 }, (_, id) => JSON.stringify({ id, method: 'gated_blob' }) + '\n').join(''));
    await waitUntil(() => waiting === 40, 10_000, 'the 40 requests in flight');
    release();
    await waitUntil(() => logged.some((l) => l.includes('does not read its answers')), 10_000, 'the logged close');
    const entry = JSON.parse(logged.find((l) => l.includes('does not read its answers'))!) as Frame;
    expect(entry).toMatchObject({ level: 40, part: 'api', limit: 4 * MiB });
    expect(entry.unsentBytes).toBeGreaterThan(4 * MiB);
    await waitUntil(() => (stack!.daemon.host.status().api as Frame).clients === 1, 10_000, 'the connection to close');
    await expect(stack.client.call('ping')).resolves.toMatchObject({ pong: true });
    flood.destroy();
  });
});
