/**
 * One control target flooding events, another target's requests timed (issue 35, item 13):
 * `npm run build && node tests/bench/control-fairness.mjs [framesPerTurn]`. A figure, not a test:
 * the flood server is a child process; the two links share this process's event loop, as the
 * targets of one daemon do. framesPerTurn 1e9 is the link without its per-turn bound.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { encodeFrame } from '../../dist/core/host/link/control/frames.js';

if (process.argv[2] === 'server') {
  const [certFile, keyFile] = process.argv.slice(3);
  const event = (seq) => encodeFrame({ type: 'event', seq, event: { type: 'chat', sender: 'Notch', text: `flood line ${seq} with some words to make it a realistic chat message` } });
  let go = false;
  let seq = 0;
  const server = tls.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write(encodeFrame({ type: 'welcome', protocol: 1, instanceId: 'i', runId: 'r', permissions: ['read'], capabilities: ['state'], replay: { lost: false, to: 0 } }));
      const pump = () => {
        if (socket.destroyed) return;
        if (!go) return void setTimeout(pump, 20);
        const batch = [];
        for (let i = 0; i < 256; i++) batch.push(event(++seq));
        if (socket.write(Buffer.concat(batch))) setImmediate(pump);
        else socket.once('drain', pump);
      };
      pump();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => (go = m === 'go'));
} else {
  const framesPerTurn = Number(process.argv[2] ?? 64);
  const { Host } = await import('../../dist/core/host/host.js');
  const { startSim } = await import('../../dist/core/sim/index.js');
  const sim = await startSim({ port: 0, control: true });
  const control = sim.control;
  const child = fork(new URL(import.meta.url).pathname, ['server', control.certFile, path.join(path.dirname(control.certFile), 'server.key')]);
  const { port } = await new Promise((r) => child.once('message', r));
  const flooded = new Host({ link: { transport: 'control', address: `127.0.0.1:${port}`, pin: control.fingerprint, token: 'mca1.tk_bench.abcdefghijkl', framesPerTurn } });
  const other = new Host({ link: { transport: 'control', address: `127.0.0.1:${control.port}`, pin: control.fingerprint, token: control.bootstrapToken } });
  await flooded.start();
  await other.start();
  while (!flooded.link.connected || !other.link.connected) await new Promise((r) => setTimeout(r, 20));
  const timed = async (n) => {
    const ms = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await other.link.request('PING');
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    return { p50: ms[Math.floor(n / 2)].toFixed(2), p99: ms[Math.floor(n * 0.99)].toFixed(2) };
  };
  await timed(300);
  const idle = await timed(1000);
  child.send('go');
  await new Promise((r) => setTimeout(r, 500));
  const seq0 = flooded.events.lastSeq;
  const t0 = performance.now();
  const busy = await timed(1000);
  const rate = Math.round(((flooded.events.lastSeq - seq0) * 1000) / (performance.now() - t0));
  console.log(JSON.stringify({ framesPerTurn, idle, busy, floodEventsPerSecond: rate }));
  child.kill();
  await flooded.stop();
  await other.stop();
  await sim.stop();
  process.exit(0);
}
