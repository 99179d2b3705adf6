import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BIN, waitLinked, type CallServer } from './calls.js';
import { lines } from './child-main.js';
import { freePort, guard, oneCall, readCpuMs, spawnChild, stopChild, withTimeout, type Child } from './children.js';
import { fmtInt, fmtNum, median, percentile, printTable, round } from './stats.js';
import { RpcClient } from './subscriber.js';

/**
 * Part `ledger` of `npm run bench` (docs/reliability.md, "Write ledger on disk"): what keeping
 * the daemon's write ledger on disk costs a write. Two `mcbridge run --sim` daemons, children,
 * one with its state folder on the machine's disk (each write's `pending` entry written, fsync'd
 * and renamed into place before it is sent), one with MCBRIDGE_STATE_DIR=none (memory only, as
 * before item 23), in alternating blocks:
 *
 *  - sequential `command` calls (`say`), each awaited: one disk write per call, the worst case;
 *  - bursts of 32 `command` calls written at once: the writes of one tick share one disk write;
 *  - sequential `state` calls on the disk daemon: a read, which never touches the ledger.
 *
 * Each daemon first answers WARMUP writes, so its ledger is full (1,024 entries): the file
 * rendered per write is as big as it gets.
 */

const BLOCK = 250;
const WARMUP = 1_500;
const BURST = 32;
const DISK = 'ledger on disk';
const MEMORY = 'ledger in memory';

export interface LedgerBenchOptions {
  /** Measured sequential writes per daemon. */
  calls: number;
  /** Measured bursts per daemon. */
  bursts: number;
}

interface Sample {
  us: number[];
  cpuMs: number;
  errors: number;
  firstError?: string;
}

const command = (id: number) => `{"id":${id},"method":"command","params":{"command":"say ledger bench ${id}"}}`;
const state = (id: number) => `{"id":${id},"method":"state"}`;

async function startDaemon(side: string, stateDir: string, cwd: string): Promise<CallServer> {
  const apiPort = await freePort();
  const child = spawnChild(side, [BIN, 'run', '--sim', '--no-config', '--api-port', String(apiPort), '--log-level', 'warn'], { env: { ...process.env, MCBRIDGE_STATE_DIR: stateDir }, cwd });
  await waitLinked(child, apiPort, 'its sim');
  return { side, child, apiPort };
}

async function loop(child: Child, client: RpcClient, n: number, line: (id: number) => string, ids: { n: number }, sample: Sample | null): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    const id = ids.n++;
    const { reply, us } = await guard(child, withTimeout(client.roundTrip(line(id)), 15_000, `the reply to call ${id}`));
    if (!sample) continue;
    sample.us.push(us);
    if (!reply.includes('"ok":true')) {
      sample.errors += 1;
      sample.firstError ??= reply.slice(0, 300);
    }
  }
}

/** `n` lines written at once on one connection; resolves with the wall time to the last reply, in ms. */
function burst(socket: net.Socket, replies: { wait(n: number): Promise<number> }, firstId: number): Promise<number> {
  const text = Array.from({ length: BURST }, (_, i) => `${command(firstId + i)}\n`).join('');
  const t0 = performance.now();
  const done = replies.wait(BURST).then(() => performance.now() - t0);
  socket.write(text);
  return done;
}

function burster(port: number): Promise<{ socket: net.Socket; replies: { wait(n: number): Promise<number>; errors: number } }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    let left = 0;
    let done: (() => void) | null = null;
    const replies = {
      errors: 0,
      wait(n: number) {
        left = n;
        return new Promise<number>((r) => {
          done = () => r(0);
        });
      },
    };
    socket.setEncoding('utf8');
    socket.on(
      'data',
      lines((line) => {
        if (!line.includes('"ok":true')) replies.errors += 1;
        left -= 1;
        if (left === 0) done?.();
      }),
    );
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, replies }));
  });
}

const newSample = (): Sample => ({ us: [], cpuMs: 0, errors: 0 });

async function measure(daemons: CallServer[], calls: number, bursts: number) {
  const seq = new Map<string, Sample>();
  const reads = newSample();
  const bursty = new Map<string, Sample>();
  const clients = new Map<string, RpcClient>();
  const ids = { n: 1 };
  for (const d of daemons) {
    const client = await guard(d.child, RpcClient.connect(d.apiPort));
    clients.set(d.side, client);
    seq.set(d.side, newSample());
    bursty.set(d.side, newSample());
    await loop(d.child, client, WARMUP, command, ids, null);
  }
  const disk = daemons[0]!;
  for (let done = 0, b = 0; done < calls; done += BLOCK, b += 1) {
    const n = Math.min(BLOCK, calls - done);
    for (const d of b % 2 === 0 ? daemons : [...daemons].reverse()) {
      const cpu0 = readCpuMs(d.child.proc.pid);
      await loop(d.child, clients.get(d.side)!, n, command, ids, seq.get(d.side)!);
      seq.get(d.side)!.cpuMs += (readCpuMs(d.child.proc.pid) ?? 0) - (cpu0 ?? 0);
    }
    const cpu0 = readCpuMs(disk.child.proc.pid);
    await loop(disk.child, clients.get(disk.side)!, n, state, ids, reads);
    reads.cpuMs += (readCpuMs(disk.child.proc.pid) ?? 0) - (cpu0 ?? 0);
  }
  for (const client of clients.values()) client.close();
  const sockets = new Map<string, Awaited<ReturnType<typeof burster>>>();
  for (const d of daemons) sockets.set(d.side, await guard(d.child, burster(d.apiPort)));
  for (let done = 0, b = 0; done < bursts; done += 10, b += 1) {
    for (const d of b % 2 === 0 ? daemons : [...daemons].reverse()) {
      const s = sockets.get(d.side)!;
      const sample = bursty.get(d.side)!;
      const cpu0 = readCpuMs(d.child.proc.pid);
      for (let i = 0; i < Math.min(10, bursts - done); i += 1, ids.n += BURST) {
        sample.us.push(1000 * (await guard(d.child, withTimeout(burst(s.socket, s.replies, ids.n), 30_000, `a burst on the ${d.side}`))));
      }
      sample.cpuMs += (readCpuMs(d.child.proc.pid) ?? 0) - (cpu0 ?? 0);
    }
  }
  for (const [side, s] of sockets) {
    bursty.get(side)!.errors = s.replies.errors;
    s.socket.destroy();
  }
  return { seq, reads, bursty };
}

export async function ledgerPart(options: LedgerBenchOptions): Promise<Record<string, unknown>> {
  const { calls, bursts } = options;
  console.log(
    `\nledger: two --sim daemons, ${DISK} (${os.tmpdir()}) and ${MEMORY} (MCBRIDGE_STATE_DIR=none), ${fmtInt(calls)} sequential command calls each after ${fmtInt(WARMUP)} of warm-up, ` +
      `blocks of ${BLOCK} alternating, and as many state calls on the disk daemon; then ${fmtInt(bursts)} bursts of ${BURST} commands at once per daemon`,
  );
  const load = os.loadavg()[0]!;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-ledger-'));
  const children: Child[] = [];
  try {
    const disk = await startDaemon(DISK, path.join(dir, 'state'), dir);
    children.push(disk.child);
    const memory = await startDaemon(MEMORY, 'none', dir);
    children.push(memory.child);
    const { seq, reads, bursty } = await measure([disk, memory], calls, bursts);
    const status = (await oneCall(disk.apiPort, 'status')).result as { link?: { writes?: { tracked?: number; file?: { bytes?: number; unsafeSends?: number } } } };
    const writes = status.link?.writes;
    console.log(`the disk daemon's ledger: ${writes?.tracked ?? '?'} entries, a file of ${fmtInt(writes?.file?.bytes ?? Number.NaN)} bytes, ${writes?.file?.unsafeSends ?? '?'} unsafe sends`);
    return { ...report(seq, reads, bursty, options, load), fileBytes: writes?.file?.bytes ?? null, entries: writes?.tracked ?? null };
  } finally {
    await Promise.all(children.reverse().map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(seq: Map<string, Sample>, reads: Sample, bursty: Map<string, Sample>, options: LedgerBenchOptions, load: number): Record<string, unknown> {
  const stat = (s: Sample, perCall = 1) => ({
    p50: percentile(s.us, 50),
    p90: percentile(s.us, 90),
    p99: percentile(s.us, 99),
    cpuUsPerCall: s.us.length > 0 ? (s.cpuMs * 1000) / (s.us.length * perCall) : Number.NaN,
    errors: s.errors,
  });
  const d = stat(seq.get(DISK)!);
  const m = stat(seq.get(MEMORY)!);
  const r = stat(reads);
  const bd = stat(bursty.get(DISK)!, BURST);
  const bm = stat(bursty.get(MEMORY)!, BURST);
  const perSec = (s: Sample) => (BURST * s.us.length * 1e6) / s.us.reduce((a, b) => a + b, 0);
  const [dps, mps] = [perSec(bursty.get(DISK)!), perSec(bursty.get(MEMORY)!)];
  const div = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : null);
  const ratio = (v: number | null) => (v === null ? 'n/a' : fmtNum(v, 2));
  const us = (v: number) => fmtNum(v, 0);
  const errors = [d, m, r, bd, bm].reduce((n, s) => n + s.errors, 0);
  const rows: string[][] = [
    ['command p50 us', us(d.p50), us(m.p50), ratio(div(d.p50, m.p50))],
    ['command p90 us', us(d.p90), us(m.p90), ratio(div(d.p90, m.p90))],
    ['command p99 us', us(d.p99), us(m.p99), ratio(div(d.p99, m.p99))],
    ['daemon CPU us per command', us(d.cpuUsPerCall), us(m.cpuUsPerCall), ratio(div(d.cpuUsPerCall, m.cpuUsPerCall))],
    [`${BURST} in flight: commands/s`, fmtInt(dps), fmtInt(mps), ratio(div(dps, mps))],
    [`${BURST} in flight: a burst's p50 ms`, fmtNum(median(bursty.get(DISK)!.us) / 1000, 2), fmtNum(median(bursty.get(MEMORY)!.us) / 1000, 2), ratio(div(bd.p50, bm.p50))],
    [`${BURST} in flight: daemon CPU us per command`, us(bd.cpuUsPerCall), us(bm.cpuUsPerCall), ratio(div(bd.cpuUsPerCall, bm.cpuUsPerCall))],
  ];
  console.log('');
  printTable(['metric', DISK, MEMORY, 'ratio'], rows);
  console.log('');
  printTable(
    ['metric', 'command, ledger on disk', 'state (a read), same daemon', 'ratio'],
    [
      ['p50 us', us(d.p50), us(r.p50), ratio(div(d.p50, r.p50))],
      ['daemon CPU us per call', us(d.cpuUsPerCall), us(r.cpuUsPerCall), ratio(div(d.cpuUsPerCall, r.cpuUsPerCall))],
    ],
  );
  if (errors > 0) console.log(`FAIL: ${errors} bad replies; first: ${[...seq.values(), reads].find((s) => s.firstError)?.firstError ?? 'in a burst'}`);
  console.log(`load average at the start of the ledger part ${load.toFixed(2)}, at its end ${os.loadavg()[0]!.toFixed(2)}`);
  const json = (s: ReturnType<typeof stat>) => ({ p50Us: round(s.p50, 1), p90Us: round(s.p90, 1), p99Us: round(s.p99, 1), cpuUsPerCall: round(s.cpuUsPerCall, 1), errors: s.errors });
  const r3 = (v: number | null) => (v === null ? null : round(v, 3));
  return {
    calls: options.calls,
    disk: json(d),
    memory: json(m),
    read: json(r),
    p50Ratio: r3(div(d.p50, m.p50)),
    inFlight: { concurrency: BURST, bursts: options.bursts, diskPerSec: round(dps, 0), memoryPerSec: round(mps, 0), ratio: r3(div(dps, mps)) },
    loadAvg: { start: round(load, 2), end: round(os.loadavg()[0]!, 2) },
  };
}
