/** `mcbridge forward`'s decisions in process (the CLI suites run dist/): its flags, --status, a run with a spool. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../core/api/client.js';
import { followEvents } from '../../../core/frontends/cli/watch.js';
import { startTestHost } from '../../../core/testing/index.js';
import { OFF_MESSAGE, resolveReceivers } from '../../../plugins/webhook/config.js';
import { parseSpool, Spool } from '../../../plugins/webhook/spool.js';
import { Forwarder } from '../../../plugins/webhook/forwarder.js';
import { forward, runForwarder, type ForwardOptions } from '../../../plugins/webhook/standalone.js';
import { waitUntil } from '../../support/wait-until.js';
import { captureLog, startReceiver } from './test-receiver.js';

const SECRET = 'whsec-forward-unit-secret';
const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

const ENV = { MC_AGENT_WEBHOOK_URL: 'http://127.0.0.1:9/hook/s3cr3t-path', MC_AGENT_WEBHOOK_SECRET: SECRET };

/** A transport whose daemon never answers: forward stops at once when `until` has settled. */
function offline(env: NodeJS.ProcessEnv = ENV) {
  const printed: string[] = [];
  const { lines, log } = captureLog();
  const io = { connect: () => Promise.reject(new Error('connect ECONNREFUSED')), follow: followEvents, log, env, print: (t: string) => void printed.push(t) };
  return { io, printed, lines };
}

const refusal = async (opts: ForwardOptions, env?: NodeJS.ProcessEnv): Promise<string> => {
  const err = (await forward(opts, offline(env).io, Promise.resolve()).then(
    () => undefined,
    (e: unknown) => e,
  )) as { code?: string; message: string } | undefined;
  expect(err?.code).toBe('invalid_params');
  return err!.message;
};

describe('mcbridge forward, in process', () => {
  it('refuses a bad --reconnect-delay or --spool-max-bytes by name, and forwarding that is off', async () => {
    expect(await refusal({ reconnectDelay: 'soon' })).toBe('--reconnect-delay must be a number of seconds from 0 to 3600; got "soon"');
    expect(await refusal({ reconnectDelay: ' ' })).toContain('--reconnect-delay must be');
    expect(await refusal({ reconnectDelay: -1 })).toBe('--reconnect-delay must be a number of seconds from 0 to 3600; got "-1"');
    expect(await refusal({ reconnectDelay: '3600.5' })).toContain('--reconnect-delay must be');
    expect(await refusal({ spoolMaxBytes: '4095' })).toBe('--spool-max-bytes must be a whole number of bytes >= 4096; got "4095"');
    expect(await refusal({ spoolMaxBytes: 5000.5 })).toContain('--spool-max-bytes must be');
    expect(await refusal({}, {})).toBe(OFF_MESSAGE);
    expect(await refusal({ queue: '0' })).toContain('--queue must be a whole number >= 1');
    // A long value is quoted only so far.
    expect(await refusal({ reconnectDelay: '9'.repeat(100) })).toBe(`--reconnect-delay must be a number of seconds from 0 to 3600; got "${'9'.repeat(39)}`);
  });

  it('takes the bounds of both flags; a daemon that never answers is retried until stopped, then the status is printed', async () => {
    const { io, printed, lines } = offline();
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = forward({ reconnectDelay: '0', spoolMaxBytes: 4096, events: 'mark' }, io, until);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    await running;
    const status = JSON.parse(printed.join(''));
    expect(status).toMatchObject({ enabled: true, connected: false, receivers: [{ url: 'http://127.0.0.1:9', events: ['mark'], running: false }] });
    expect(lines.filter((l) => l.includes('webhook forwarder lost the daemon (connect ECONNREFUSED); reconnecting in 0 s')).length).toBeGreaterThan(1);
    expect(printed.join('')).toMatch(/\}\n$/);
    await forward({ reconnectDelay: 3600 }, offline().io, Promise.resolve());
  });

  it('--status says whether the daemon answers, and delivers nothing', async () => {
    const down = offline();
    await forward({ status: true }, down.io, new Promise(() => {}));
    expect(JSON.parse(down.printed.join(''))).toMatchObject({ enabled: true, connected: false, receivers: [{ url: 'http://127.0.0.1:9', delivered: 0, running: false }] });
    expect(down.printed.join('')).toMatch(/^\{\n {2}"enabled": true[\s\S]*\n\}\n$/);
    const up = offline();
    let closed = 0;
    up.io.connect = () => Promise.resolve({ call: () => Promise.resolve({}), close: () => void (closed += 1) }) as never;
    await forward({ status: true }, up.io, new Promise(() => {}));
    expect(JSON.parse(up.printed.join(''))).toMatchObject({ connected: true });
    expect(closed).toBe(1);
    for (const leak of [SECRET, 's3cr3t-path']) expect(down.printed.join('') + up.printed.join('')).not.toContain(leak);
  });

  it('waits --reconnect-delay seconds between attempts, a stop cuts the wait short; a refusal while stopping is not reported', async () => {
    const { io, printed, lines } = offline();
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = forward({ reconnectDelay: '3600' }, io, until);
    await waitUntil(() => lines.some((l) => l.includes('lost the daemon')));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.filter((l) => l.includes('webhook forwarder lost the daemon (connect ECONNREFUSED); reconnecting in 3600 s'))).toHaveLength(1);
    stop();
    const bound = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000));
    expect(await Promise.race([running.then(() => 'stopped'), bound])).toBe('stopped');
    expect(printed.join('')).toContain('"connected":false');

    // The connection attempt in flight when the stop comes fails because of it: no "lost the daemon".
    const stopping = offline();
    let stop2!: () => void;
    const until2 = new Promise<void>((resolve) => (stop2 = resolve));
    stopping.io.connect = () => until2.then(() => Promise.reject(new Error('connect ECONNREFUSED')));
    const second = forward({}, stopping.io, until2);
    stop2();
    await second;
    expect(stopping.lines.filter((l) => l.includes('lost the daemon'))).toEqual([]);
  });

  it('says it is connected while subscribed, and not once the connection drops; the first connection forwards from then on', async () => {
    const t = await startTestHost({ sim: { autoTick: false } });
    open.push(t);
    const server = await startReceiver(SECRET);
    open.push(server);
    t.host.events.record({ type: 'chat', sender: 'Steve', text: 'before the forwarder' });
    const forwarder = new Forwarder(resolveReceivers({}, { MC_AGENT_WEBHOOK_URL: server.url(), MC_AGENT_WEBHOOK_SECRET: SECRET, MC_AGENT_WEBHOOK_EVENTS: 'chat' }), captureLog().log);
    const clients: ApiClient[] = [];
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = runForwarder({
      forwarder,
      log: captureLog().log,
      until,
      reconnectDelayMs: 3_600_000,
      follow: followEvents,
      connect: async () => {
        const client = await ApiClient.connect({ port: t.port });
        clients.push(client);
        const call = client.call.bind(client);
        // An event recorded between the status the forwarder reads and its subscribe: replayed, not missed.
        client.call = async (method, params) => {
          const answer = await call(method, params);
          if (method === 'status') t.host.events.record({ type: 'chat', sender: 'Steve', text: 'racing the subscribe' });
          return answer;
        };
        return client;
      },
    });
    await waitUntil(() => forwarder.status().connected);
    t.sim.chat('Steve', 'live');
    await waitUntil(() => server.hits.length === 2);
    expect(server.hits.map((h) => (h.json.data as { text: string }).text)).toEqual(['racing the subscribe', 'live']);
    expect(forwarder.status().receivers[0]).toMatchObject({ gaps: 0 });
    clients[0]!.close();
    await waitUntil(() => !forwarder.status().connected);
    stop();
    await running;
  });

  it("forwards from a daemon with --spool and the flags, counts a gap for an old run's stream, and leaves the cursor in the spool", async () => {
    const t = await startTestHost({ sim: { autoTick: false } });
    open.push(t);
    const server = await startReceiver(SECRET);
    open.push(server);
    const spool = join(mkdtempSync(join(tmpdir(), 'mcbridge-forward-unit-')), 'f.spool');
    const { io, printed, lines } = offline({ MC_AGENT_WEBHOOK_URL: server.url(), MC_AGENT_WEBHOOK_SECRET: SECRET });
    io.connect = () => ApiClient.connect({ port: t.daemon.apiAddress.port }) as never;
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    // A spool from a daemon run that is gone: its stream is not this one's.
    writeFileSync(spool, Spool.render({ streamId: 'a-gone-stream', lastSeq: 5, queues: {} }));
    const running = forward({ spool, spoolMaxBytes: '65536', events: '*', reconnectDelay: '0.01' }, io, until);
    await waitUntil(() => lines.some((l) => l.includes('webhook forwarder connected to the daemon')));
    expect(lines.find((l) => l.includes('webhook forwarder connected'))).toContain('{"categories":["*"]}');
    expect(lines.some((l) => l.startsWith('warn webhook: events may have been lost before they could be queued (stream-reset)'))).toBe(true);
    t.sim.chat('Steve', 'via forward');
    await waitUntil(() => server.hits.some((h) => (h.json.data as { text?: string }).text === 'via forward'));
    await waitUntil(() => lines.some((l) => l.includes('webhook delivered')));
    stop();
    await running;
    expect(JSON.parse(printed.join(''))).toMatchObject({ spool, spoolStatus: { maxBytes: 65536 }, receivers: [{ gaps: 1, events: ['*'] }] });
    const left = parseSpool(readFileSync(spool, 'utf8')).state;
    expect(left).toMatchObject({ lastSeq: expect.any(Number), streamId: expect.any(String) });
    // A standalone forwarder never knows it had every event of the stream: no clean stop recorded.
    expect(left.closed).toBeUndefined();
  });
});
