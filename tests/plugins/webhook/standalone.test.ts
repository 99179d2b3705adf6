import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../core/api/client.js';
import { followEvents } from '../../../core/frontends/cli/watch.js';
import { silentLogger } from '../../../core/util/log.js';
import { startTestHost } from '../../../core/testing/index.js';
import { resolveReceivers } from '../../../plugins/webhook/config.js';
import { Forwarder } from '../../../plugins/webhook/forwarder.js';
import { buildDelivery } from '../../../plugins/webhook/body.js';
import { parseSpool, receiverKey, recordBytes, Spool } from '../../../plugins/webhook/spool.js';
import { runForwarder } from '../../../plugins/webhook/standalone.js';
import { runCli } from '../../support/cli-process.js';
import { captureLog, startReceiver } from './test-receiver.js';
import { waitUntil } from '../../support/wait-until.js';

const SECRET = 'whsec-forward-secret';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

const texts = (hits: Array<{ json: Record<string, unknown> }>) => hits.map((h) => (h.json.data as { text: string }).text);

describe('mcbridge forward', () => {
  it("forwards the daemon's events and, after the connection drops, resumes from the last seq without loss or repeats", async () => {
    const t = await startTestHost({ sim: { autoTick: false } });
    open.push(t);
    const server = await startReceiver(SECRET);
    open.push(server);
    const resolved = resolveReceivers({}, { MC_AGENT_WEBHOOK_URL: server.url(), MC_AGENT_WEBHOOK_SECRET: SECRET, MC_AGENT_WEBHOOK_EVENTS: 'chat' });
    const forwarder = new Forwarder(resolved, silentLogger());
    const clients: ApiClient[] = [];
    let connected!: () => void;
    const firstConnect = new Promise<void>((resolve) => (connected = resolve));
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const running = runForwarder({
      forwarder,
      log: silentLogger(),
      until,
      reconnectDelayMs: 10,
      onConnected: () => connected(),
      follow: followEvents,
      connect: async () => {
        const c = await ApiClient.connect({ port: t.daemon.apiAddress.port });
        clients.push(c);
        return c;
      },
    });
    await firstConnect;
    t.sim.chat('Steve', 'one');
    await server.hitsReached(1);
    clients[0]!.close();
    t.sim.chat('Steve', 'two'); // recorded while the forwarder is away: the buffer fills the hole
    await server.hitsReached(2);
    t.sim.chat('Steve', 'three');
    await server.hitsReached(3);
    expect(texts(server.hits)).toEqual(['one', 'two', 'three']);
    expect(clients.length).toBeGreaterThanOrEqual(2);
    expect(server.hits.every((h) => h.verified)).toBe(true);
    await forwarder.receivers[0]!.settled(3);
    stop();
    await running;
    expect(forwarder.status()).toMatchObject({ connected: false, receivers: [{ delivered: 3, failed: 0, running: false }] });
  });

  it('with a spool, a restarted forwarder delivers what it owed and what the daemon recorded meanwhile, once each', async () => {
    const t = await startTestHost({ sim: { autoTick: false } });
    open.push(t);
    const server = await startReceiver(SECRET, ['hang']);
    open.push(server);
    const file = join(mkdtempSync(join(tmpdir(), 'mcbridge-spool-')), 'forward.spool');
    const env = { MC_AGENT_WEBHOOK_URL: server.url(), MC_AGENT_WEBHOOK_SECRET: SECRET, MC_AGENT_WEBHOOK_EVENTS: 'chat', MC_AGENT_WEBHOOK_TIMEOUT: '60' };
    const start = () => {
      const forwarder = new Forwarder(resolveReceivers({}, env), silentLogger());
      const resume = forwarder.useSpool(new Spool(file, 1 << 20));
      let stop!: () => void;
      const until = new Promise<void>((resolve) => (stop = resolve));
      let connected!: () => void;
      const ready = new Promise<void>((resolve) => (connected = resolve));
      const running = runForwarder({
        forwarder,
        log: silentLogger(),
        until,
        reconnectDelayMs: 10,
        resume,
        onConnected: () => connected(),
        follow: followEvents,
        connect: () => ApiClient.connect({ port: t.daemon.apiAddress.port }),
      });
      return {
        forwarder,
        ready,
        stop: async () => {
          stop();
          return await running;
        },
      };
    };
    const first = start();
    await first.ready;
    t.sim.chat('Steve', 'one');
    await server.hitsReached(1); // 'one' hangs in flight
    t.sim.chat('Steve', 'two');
    await t.waitForEvent((e) => e.text === 'two');
    await first.stop();
    expect(first.forwarder.status().receivers[0]).toMatchObject({ delivered: 0, failed: 0 });
    t.sim.chat('Steve', 'three'); // recorded while no forwarder runs
    await t.waitForEvent((e) => e.text === 'three');
    const spooled = readFileSync(file, 'utf8');
    for (const leak of [SECRET, 's3cr3t-path', 'querytoken']) expect(spooled).not.toContain(leak);

    const second = start();
    await second.forwarder.receivers[0]!.settled(3);
    await second.stop();
    expect(texts(server.hits)).toEqual(['one', 'one', 'two', 'three']);
    const answered = server.hits.slice(1).map((h) => h.json.eventId);
    expect(new Set(answered).size).toBe(3);
    expect(second.forwarder.status().receivers[0]).toMatchObject({ delivered: 3, failed: 0, dropped: 0 });
  });

  it('keeps the spool under its byte bound by dropping the oldest queued events, counted', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const file = join(mkdtempSync(join(tmpdir(), 'mcbridge-spool-')), 'small.spool');
    const forwarder = new Forwarder(resolveReceivers({}, { MC_AGENT_WEBHOOK_URL: server.url(), MC_AGENT_WEBHOOK_SECRET: SECRET, MC_AGENT_WEBHOOK_TIMEOUT: '60' }), silentLogger());
    forwarder.useSpool(new Spool(file, 2_000));
    forwarder.start();
    open.push({ close: () => forwarder.stop() });
    for (let seq = 1; seq <= 20; seq += 1) {
      forwarder.handle({ kind: 'event', event: { type: 'chat', category: 'chat', seq, streamId: 's', eventId: `s:${seq}`, receivedAt: 1, text: `m${seq}` } });
    }
    await forwarder.flush(); // what the scheduled write does soon after
    expect(readFileSync(file).length).toBeLessThanOrEqual(2_000);
    const status = forwarder.status().receivers[0]!;
    expect(status.dropped).toBeGreaterThan(0);
    expect(status.queued + status.dropped).toBeGreaterThanOrEqual(19);
  });

  it('over the bound, drops from the receiver that owes the most, not the first', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const file = join(mkdtempSync(join(tmpdir(), 'mcbridge-spool-')), 'two.spool');
    const receiver = (events: string[]) => ({ url: server.url(), secret: SECRET, events, queueSize: 100, maxAttempts: 1, backoff: 1, maxBackoff: 1, timeout: 60 });
    const { lines, log } = captureLog();
    const forwarder = new Forwarder({ receivers: [receiver(['mark']), receiver(['chat', 'mark'])] }, log);
    expect(forwarder.categories()).toEqual(['mark', 'chat']);
    forwarder.useSpool(new Spool(file, 4_096));
    open.push({ close: () => forwarder.stop() });
    const event = (seq: number, category: 'mark' | 'chat') => ({ type: category, category, seq, streamId: 's', eventId: `s:${seq}`, receivedAt: 1, text: `m${seq}` });
    forwarder.handle({ kind: 'event', event: event(1, 'mark') });
    for (let seq = 2; seq <= 40; seq += 1) forwarder.handle({ kind: 'event', event: event(seq, 'chat') });
    await forwarder.flush();
    const [marks, chats] = forwarder.status().receivers;
    expect(marks).toMatchObject({ queued: 1, dropped: 0 });
    expect(chats!.dropped).toBeGreaterThan(0);
    expect(lines.filter((l) => l.startsWith('warn webhook spool full; dropped 1 oldest event(s)'))).toHaveLength(chats!.dropped);
    expect(readFileSync(file).length).toBeLessThanOrEqual(4_096);
  });

  it('a spool exactly at its bound keeps every queued event; a byte less drops the oldest', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'mcbridge-spool-'));
    const spooled = async (maxBytes: number) => {
      const file = join(dir, `${maxBytes}.spool`);
      const forwarder = new Forwarder({ receivers: [{ url: server.url(), secret: SECRET, events: ['*'], queueSize: 100, maxAttempts: 1, backoff: 1, maxBackoff: 1, timeout: 60 }] }, silentLogger());
      forwarder.useSpool(new Spool(file, maxBytes));
      open.push({ close: () => forwarder.stop() });
      for (const seq of [1, 2, 3]) forwarder.handle({ kind: 'event', event: { type: 'chat', category: 'chat', seq, streamId: 's', eventId: `s:${seq}`, receivedAt: 1, text: `m${seq}` } });
      await forwarder.flush();
      return { dropped: forwarder.status().receivers[0]!.dropped, queued: Object.values(parseSpool(readFileSync(file, 'utf8')).state.queues)[0]! };
    };
    const roomy = await spooled(1_000_000);
    // What the forwarder counts for these three: a fixed 200 for the rest of the state, and each record with its key.
    const key = receiverKey(server.url(), 0);
    const exact = roomy.queued.reduce((n, d) => n + recordBytes(key, d), 200);
    const at = await spooled(exact);
    expect([at.dropped, at.queued.map((d) => d.eventId)]).toEqual([0, ['s:1', 's:2', 's:3']]);
    const under = await spooled(exact - 1);
    expect([under.dropped, under.queued.map((d) => d.eventId)]).toEqual([1, ['s:2', 's:3']]);
  });

  it('an event in flight larger than the bound is still written: nothing queued is left to drop', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const file = join(mkdtempSync(join(tmpdir(), 'mcbridge-spool-')), 'big.spool');
    const forwarder = new Forwarder({ receivers: [{ url: server.url(), secret: SECRET, events: ['*'], queueSize: 4, maxAttempts: 1, backoff: 1, maxBackoff: 1, timeout: 60 }] }, silentLogger());
    forwarder.useSpool(new Spool(file, 4_096));
    forwarder.start();
    open.push({ close: () => forwarder.stop() });
    forwarder.handle({ kind: 'event', event: { type: 'chat', category: 'chat', seq: 1, streamId: 's', eventId: 's:1', receivedAt: 1, text: 'x'.repeat(8_000) } });
    await server.hitsReached(1);
    await forwarder.flush();
    expect(forwarder.status().spoolStatus).toMatchObject({ failures: 0, failing: false });
    expect(Object.values(parseSpool(readFileSync(file, 'utf8')).state.queues)[0]!.map((d) => d.eventId)).toEqual(['s:1']);
  });

  it('writes the spool as deliveries and events come, marked closed only by a clean stop', async () => {
    const server = await startReceiver(SECRET);
    open.push(server);
    const file = join(mkdtempSync(join(tmpdir(), 'mcbridge-spool-')), 'live.spool');
    const resolved = resolveReceivers({}, { MC_AGENT_WEBHOOK_URL: server.url(), MC_AGENT_WEBHOOK_SECRET: SECRET, MC_AGENT_WEBHOOK_EVENTS: 'chat' });
    const owed = { type: 'chat', category: 'chat', seq: 1, streamId: 's', eventId: 's:1', receivedAt: 1, text: 'owed' } as const;
    writeFileSync(file, Spool.render({ streamId: 's', lastSeq: 1, queues: { [receiverKey(server.url(), 0)]: [buildDelivery(owed)] } }));
    const forwarder = new Forwarder(resolved, silentLogger());
    expect(forwarder.useSpool(new Spool(file, 1 << 20))).toEqual({ streamId: 's', lastSeq: 1 });
    forwarder.start();
    const written = () => parseSpool(readFileSync(file, 'utf8')).state;
    // The owed event delivered, before any new one was handled: the spool no longer holds it.
    await waitUntil(() => server.hits.length === 1 && Object.keys(written().queues).length === 0);
    forwarder.handle({ kind: 'event', event: { ...owed, seq: 2, eventId: 's:2', text: 'new' } });
    await waitUntil(() => written().lastSeq === 2);
    expect(written().closed).toBeUndefined();
    await forwarder.flush();
    expect(written().closed).toBeUndefined();
    await forwarder.stop(true);
    expect(written()).toMatchObject({ streamId: 's', lastSeq: 2, closed: true });
  });

  it('--status prints the redacted receiver and whether the daemon answers; no secret, no path', async () => {
    const run = await runCli(['forward', '--status', '--api-port', '1'], {
      env: { MC_AGENT_WEBHOOK_URL: 'https://user:pw@hooks.example.com:8443/h/abc?token=q', MC_AGENT_WEBHOOK_SECRET: SECRET },
    });
    expect(run.code).toBe(0);
    const status = JSON.parse(run.stdout) as Record<string, any>;
    expect(status).toMatchObject({ enabled: true, connected: false, receivers: [{ url: 'https://hooks.example.com:8443', events: ['chat', 'game', 'mark', 'error'] }] });
    for (const leak of [SECRET, 'pw', '/h/abc', 'token=q']) expect(run.stdout + run.stderr).not.toContain(leak);
  });

  it('refuses to start without a secret, naming the variable (exit 1), and is off by default', async () => {
    const half = await runCli(['forward'], { env: { MC_AGENT_WEBHOOK_URL: 'http://127.0.0.1:9/x', MC_AGENT_WEBHOOK_SECRET: '' } });
    expect(half.code).toBe(1);
    expect(half.stderr).toContain('MC_AGENT_WEBHOOK_SECRET is not set');
    const off = await runCli(['forward'], { env: { MC_AGENT_WEBHOOK_URL: '', MC_AGENT_WEBHOOK_SECRET: '' } });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('webhook forwarding is off by default');
  });
});
