import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, callLoop, summarize, type CallSample } from './calls.js';
import { delay, freePort, guard, oneCall, readMemory, spawnChild, stopChild, withTimeout, type Child } from './children.js';
import { buildFloodPayload, FloodMod, type FloodPayload } from './flood-mod.js';
import { relayRound, summarizeRounds, type RoundResult } from './relay-round.js';
import { fmtInt, fmtMiB, fmtNum, percentile, printTable, round } from './stats.js';
import { RpcClient, Subscriber } from './subscriber.js';

/**
 * Part `targets` of `npm run bench` (docs/targets.md): one daemon process of 1, 4 and 16
 * targets, each target a flood mod of its own on its own port (`modPort` in the daemon's
 * config), the three daemons side by side so that every figure is taken against the one-target
 * daemon in the same run.
 *
 *  - relay: the same total of events per round for every daemon, split evenly over its targets
 *    (16 targets write 1/16 each, at once), to subscribers of `target: '*'`. The aggregate
 *    events/s is what the comparison is about, and a fixed total keeps the bench process's own
 *    work (writing, counting) the same for every daemon. Rounds alternate which daemon goes
 *    first; the median round counts.
 *  - calls: sequential `state` calls, each on the next target in turn, in blocks of 500 that
 *    alternate between the conditions: the one-target daemon idle (the baseline), and each
 *    daemon with every target busy, i.e. its mod writing a steady BENCH_TARGETS_RATE events/s
 *    (default 1,000 per target: tens of times a busy server's chat and command output) that the
 *    subscribers take. A flood flat out would measure how a CPU is shared, not the daemon.
 *  - memory: each daemon's RSS a few seconds after all its targets connected;
 *    (RSS(16) - RSS(1)) / 15 per added target.
 *
 * Targets (issue 25): aggregate relay with 16 targets >= 0.8x one target's; `state` p50 with
 * 16 busy targets <= 1.2x one idle target's; <= 3 MB RSS per added target (MB as 2^20 bytes,
 * as on the rest of docs/performance.md).
 */
export const TARGETS_RELAY_TARGET = 0.8;
export const TARGETS_P50_TARGET = 1.2;
export const TARGETS_RSS_TARGET_MB = 3;
const COUNTS = [1, 4, 16] as const;
const MB = 1024 * 1024;
/** How long a daemon rests after its targets connected before its RSS is read (as the cli part). */
const SETTLE_MS = 3_000;
const CALL_BLOCK = 500;
const WARMUP_CALLS = 3_000;
/** The paced writer's tick. */
const PACE_MS = 10;

export interface TargetsOptions {
  /** Events per relay round, in all; a multiple of 16. */
  events: number;
  rounds: number;
  subscribers: number;
  /** Measured `state` calls per condition. */
  calls: number;
  /** Events per second each busy target's mod writes while calls are measured. */
  rate: number;
  nodeArgs: string[];
}

interface TargetsDaemon {
  n: number;
  names: string[];
  child: Child;
  mods: FloodMod[];
  apiPort: number;
  dir: string;
  subscribers: Subscriber[];
}

async function startTargetsDaemon(n: number, nodeArgs: string[]): Promise<TargetsDaemon> {
  const mods = await Promise.all(Array.from({ length: n }, () => FloodMod.start()));
  const names = mods.map((_, i) => `t${i}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-targets-'));
  const file = path.join(dir, 'mcbridge.config.json');
  writeFileSync(file, JSON.stringify({ targets: Object.fromEntries(names.map((name, i) => [name, { modPort: mods[i]!.port }])) }));
  const apiPort = await freePort();
  // --push-buffer as the relay part's: the bench's own subscribers may fall behind a flood.
  const args = [...nodeArgs, BIN, 'run', '--config', file, '--api-port', String(apiPort), '--log-level', 'warn', '--push-buffer', '256'];
  const child = spawnChild(`daemon of ${n} target(s)`, args);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitedYet) await guard(child, new Promise(() => {}));
    try {
      const frame = await oneCall(apiPort, 'targets');
      const listed = (frame.result as { targets?: Array<{ connected?: boolean }> } | undefined)?.targets ?? [];
      if (listed.length === n && listed.every((t) => t.connected === true)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the daemon of ${n} targets did not connect to its flood mods within 30 s; its stderr:\n${child.stderr.trim() || '(empty)'}`);
    await delay(100);
  }
  return { n, names, child, mods, apiPort, dir, subscribers: [] };
}

async function stopTargetsDaemon(d: TargetsDaemon): Promise<void> {
  for (const sub of d.subscribers) sub.close();
  await stopChild(d.child);
  await Promise.all(d.mods.map((m) => m.stop()));
  rmSync(d.dir, { recursive: true, force: true });
}

async function attachSubscribers(d: TargetsDaemon, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const sub = await guard(d.child, Subscriber.connect(d.apiPort, 'daemon'));
    const ack = await guard(d.child, withTimeout(sub.subscribe('*'), 5_000, `the subscribe ack of the daemon of ${d.n} targets`));
    if (ack.ok !== true) throw new Error(`subscribe {target: '*'} failed on the daemon of ${d.n} targets: ${JSON.stringify(ack)}`);
    d.subscribers.push(sub);
  }
}

/** Every mod of a daemon writes `rate` events/s, in small writes every PACE_MS, until stopped. */
function pace(mods: readonly FloodMod[], lines: readonly Buffer[], rate: number): () => void {
  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) * rate) / 1000) - sent;
    if (due <= 0) return;
    const chunk = Buffer.concat(Array.from({ length: due }, (_, i) => lines[(sent + i) % lines.length]!));
    sent += due;
    for (const mod of mods) mod.send(chunk);
  }, PACE_MS);
  return () => clearInterval(timer);
}

// ---- calls -----------------------------------------------------------------------------

interface Condition {
  label: string;
  daemon: TargetsDaemon;
  busy: boolean;
  sample: CallSample;
  /** The target index of each sample, for the per-target p50s. */
  targetOf: number[];
}

async function measureTargetCalls(conditions: Condition[], calls: number, rate: number): Promise<void> {
  const lines = buildFloodPayload(2_000, 1).chunks; // one event line per chunk
  const clients = new Map<TargetsDaemon, { client: RpcClient; ids: { n: number } }>();
  const lineOf = (d: TargetsDaemon) => (id: number) => `{"id":${id},"method":"state","params":{"target":"${d.names[id % d.n]}"}}`;
  for (const { daemon } of conditions) {
    if (clients.has(daemon)) continue;
    const client = await guard(daemon.child, RpcClient.connect(daemon.apiPort));
    const ids = { n: 1 };
    clients.set(daemon, { client, ids });
    await callLoop(daemon, client, WARMUP_CALLS, null, ids, lineOf(daemon));
  }
  for (let done = 0, b = 0; done < calls; done += CALL_BLOCK, b += 1) {
    const n = Math.min(CALL_BLOCK, calls - done);
    const order = conditions.map((_, i) => conditions[(i + b) % conditions.length]!);
    for (const c of order) {
      const { client, ids } = clients.get(c.daemon)!;
      const stop = c.busy ? pace(c.daemon.mods, lines, rate) : () => {};
      if (c.busy) await delay(100); // the trickle is flowing before the first call
      const first = ids.n;
      try {
        await callLoop(c.daemon, client, n, c.sample, ids, lineOf(c.daemon));
      } finally {
        stop();
      }
      for (let id = first; id < ids.n; id += 1) c.targetOf.push(id % c.daemon.n);
      await delay(50); // the trickle's last events are pushed before the next block
    }
  }
  for (const { client } of clients.values()) client.close();
}

/** The highest of the per-target p50s: the target worst served. */
function worstTargetP50(c: Condition): number {
  let worst = Number.NaN;
  for (let t = 0; t < c.daemon.n; t += 1) {
    const p50 = percentile(
      c.sample.us.filter((_, i) => c.targetOf[i] === t),
      50,
    );
    if (!(worst >= p50)) worst = p50;
  }
  return worst;
}

// ---- the part ------------------------------------------------------------------------------

export async function targetsPart(options: TargetsOptions): Promise<Record<string, unknown>> {
  const { events, rounds, subscribers, calls, rate, nodeArgs } = options;
  if (events % 16 !== 0) throw new Error(`BENCH_TARGETS_EVENTS must be a multiple of 16 (each of 1, 4 and 16 targets writes an equal share), got ${events}`);
  console.log(
    `\ntargets: daemons of ${COUNTS.join(', ')} targets (a flood mod each), ${fmtInt(events)} events per round in all, split evenly over the targets, ` +
      `${subscribers} subscribers of target '*', ${rounds} rounds alternating; ${fmtInt(calls)} state calls per condition, busy = ${fmtInt(rate)} events/s per target`,
  );
  const load = os.loadavg()[0]!;
  const daemons: TargetsDaemon[] = [];
  try {
    for (const n of COUNTS) daemons.push(await startTargetsDaemon(n, nodeArgs));
    await delay(SETTLE_MS);
    const idleRss = daemons.map((d) => readMemory(d.child.proc.pid).rss);
    for (const d of daemons) await attachSubscribers(d, subscribers);

    // relay
    const payloads = new Map<number, FloodPayload>(COUNTS.map((n) => [n, buildFloodPayload(events / n)]));
    const warm = new Map<number, FloodPayload>(COUNTS.map((n) => [n, buildFloodPayload(Math.max(1, Math.floor(events / 4 / n)))]));
    const floodAll = (d: TargetsDaemon, payload: FloodPayload) => () => Promise.all(d.mods.map((m) => m.flood(payload)));
    for (const d of daemons) await relayRound(d.child, d.subscribers, warm.get(d.n)!.events * d.n, floodAll(d, warm.get(d.n)!));
    const results = new Map<TargetsDaemon, RoundResult[]>(daemons.map((d) => [d, []]));
    for (let r = 0; r < rounds; r += 1) {
      const order = daemons.map((_, i) => daemons[(i + r) % daemons.length]!);
      for (const d of order) {
        const result = await relayRound(d.child, d.subscribers, events, floodAll(d, payloads.get(d.n)!));
        results.get(d)!.push(result);
        process.stderr.write(
          `  round ${r + 1} ${String(d.n).padStart(2)} target(s) ${fmtInt(result.eventsPerSec).padStart(10)} events/s  ${fmtNum(result.ms, 0).padStart(6)} ms  ` +
            `cpu: daemon ${fmtInt(result.relayCpuMs ?? Number.NaN).padStart(5)} ms, bench ${fmtInt(result.benchCpuMs).padStart(5)} ms${result.ok ? '' : `  FAILED: ${result.failure}`}\n`,
        );
      }
    }
    const peakRss = daemons.map((d) => readMemory(d.child.proc.pid).peak);

    // calls
    const sample = (): CallSample => ({ us: [], errors: 0, cpuMs: 0 });
    const [d1, d4, d16] = daemons as [TargetsDaemon, TargetsDaemon, TargetsDaemon];
    const conditions: Condition[] = [
      { label: '1 idle', daemon: d1, busy: false, sample: sample(), targetOf: [] },
      { label: '16 busy', daemon: d16, busy: true, sample: sample(), targetOf: [] },
      { label: '1 busy', daemon: d1, busy: true, sample: sample(), targetOf: [] },
      { label: '4 busy', daemon: d4, busy: true, sample: sample(), targetOf: [] },
      { label: '16 idle', daemon: d16, busy: false, sample: sample(), targetOf: [] },
    ];
    await measureTargetCalls(conditions, calls, rate);
    const lat = new Map(conditions.map((c) => [c.label, summarize(c.sample)]));
    // Every target's ring is full by now: what a target holds once it has had its events.
    const usedRss = daemons.map((d) => readMemory(d.child.proc.pid).rss);

    return report({ daemons, results, idleRss, usedRss, peakRss, conditions, lat, load, options });
  } finally {
    await Promise.all(daemons.map((d) => stopTargetsDaemon(d)));
  }
}

interface Measured {
  daemons: TargetsDaemon[];
  results: Map<TargetsDaemon, RoundResult[]>;
  idleRss: Array<number | null>;
  usedRss: Array<number | null>;
  peakRss: Array<number | null>;
  conditions: Condition[];
  lat: Map<string, ReturnType<typeof summarize>>;
  load: number;
  options: TargetsOptions;
}

function report({ daemons, results, idleRss, usedRss, peakRss, conditions, lat, load, options }: Measured): Record<string, unknown> {
  const [d1, d4, d16] = daemons as [TargetsDaemon, TargetsDaemon, TargetsDaemon];
  const relay = new Map(daemons.map((d) => [d.n, summarizeRounds(results.get(d)!)]));
  const failures = daemons.flatMap((d) =>
    results
      .get(d)!
      .filter((r) => !r.ok)
      .map((r) => `${d.n} target(s): ${r.failure}`),
  );
  const div = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null || b === 0 || !Number.isFinite(a) || !Number.isFinite(b) ? null : a / b);
  const ratio = (v: number | null) => (v === null ? 'n/a' : fmtNum(v, 2));
  const atMost = (v: number | null, target: number, errors = 0) => (errors > 0 ? `FAIL (${errors} bad replies)` : v === null ? 'n/a' : v <= target ? 'PASS' : 'MISS');
  const eps = (n: number) => relay.get(n)!.eventsPerSec;
  const relay16 = div(eps(16), eps(1));
  const relayVerdict = failures.length > 0 ? `FAIL (${failures.length} rounds, see below)` : relay16 === null ? 'n/a' : relay16 >= TARGETS_RELAY_TARGET ? 'PASS' : 'MISS';
  const idle1 = lat.get('1 idle')!;
  const busy16 = lat.get('16 busy')!;
  const errors = [...lat.values()].reduce((n, l) => n + l.errors, 0);
  const p50Ratio = div(busy16.p50, idle1.p50);
  const [rss1, rss4, rss16] = idleRss;
  const perAdded = (rssN: number | null | undefined, n: number, base = rss1) => (rssN == null || base == null ? null : (rssN - base) / (n - 1));
  const per16 = perAdded(rss16, 16);
  const perUsed16 = perAdded(usedRss[2], 16, usedRss[0]);
  const mib = (v: number | null) => (v === null ? 'n/a' : `${fmtNum(v / MB, 2)} MiB`);
  const us = (v: number) => fmtNum(v, 0);
  const worst16 = worstTargetP50(conditions.find((c) => c.label === '16 busy')!);

  const rows: string[][] = [
    ['relay events/s, 16 targets (aggregate, median)', fmtInt(eps(16) ?? Number.NaN), fmtInt(eps(1) ?? Number.NaN), ratio(relay16), `>= ${TARGETS_RELAY_TARGET}`, relayVerdict],
    ['relay events/s, 4 targets', fmtInt(eps(4) ?? Number.NaN), fmtInt(eps(1) ?? Number.NaN), ratio(div(eps(4), eps(1))), 'info', ''],
    [
      'daemon CPU ms per relay round, 16 targets',
      fmtInt(relay.get(16)!.relayCpuMs ?? Number.NaN),
      fmtInt(relay.get(1)!.relayCpuMs ?? Number.NaN),
      ratio(div(relay.get(16)!.relayCpuMs, relay.get(1)!.relayCpuMs)),
      'info',
      '',
    ],
    ['state p50 us, 16 busy targets vs 1 idle', us(busy16.p50), us(idle1.p50), ratio(p50Ratio), `<= ${TARGETS_P50_TARGET}`, atMost(p50Ratio, TARGETS_P50_TARGET, errors)],
    ['state p50 us, worst of the 16 busy targets', us(worst16), us(idle1.p50), ratio(div(worst16, idle1.p50)), 'info', ''],
    ['state p50 us, 4 busy targets', us(lat.get('4 busy')!.p50), us(idle1.p50), ratio(div(lat.get('4 busy')!.p50, idle1.p50)), 'info', ''],
    ['state p50 us, 1 busy target', us(lat.get('1 busy')!.p50), us(idle1.p50), ratio(div(lat.get('1 busy')!.p50, idle1.p50)), 'info', ''],
    ['state p50 us, 16 idle targets', us(lat.get('16 idle')!.p50), us(idle1.p50), ratio(div(lat.get('16 idle')!.p50, idle1.p50)), 'info', ''],
    ['state p99 us, 16 busy targets vs 1 idle', us(busy16.p99), us(idle1.p99), ratio(div(busy16.p99, idle1.p99)), 'info', ''],
    ['RSS after start, 16 targets', fmtMiB(rss16 ?? null), fmtMiB(rss1 ?? null), ratio(div(rss16, rss1)), 'info', ''],
    ['RSS after start, 4 targets', fmtMiB(rss4 ?? null), fmtMiB(rss1 ?? null), ratio(div(rss4, rss1)), 'info', ''],
    ['RSS per added target, (16 - 1) / 15', mib(per16), '', '', `<= ${TARGETS_RSS_TARGET_MB} MB`, atMost(per16 === null ? null : per16 / MB, TARGETS_RSS_TARGET_MB)],
    ['RSS per added target, (4 - 1) / 3', mib(perAdded(rss4, 4)), '', '', 'info', ''],
    ['RSS per added target after relay and calls (rings full)', mib(perUsed16), '', '', 'info', ''],
    ['RSS peak over the relay, 16 targets', fmtMiB(peakRss[2] ?? null), fmtMiB(peakRss[0] ?? null), ratio(div(peakRss[2], peakRss[0])), 'info', ''],
  ];
  console.log('');
  printTable(['metric', 'N targets', '1 target', 'ratio', 'target', 'verdict'], rows);
  console.log('');
  const perRound = (d: TargetsDaemon) =>
    results
      .get(d)!
      .map((r) => (r.ok ? fmtInt(r.eventsPerSec) : 'FAILED'))
      .join(', ');
  console.log(`targets relay rounds, events/s: 1 [${perRound(d1)}]; 4 [${perRound(d4)}]; 16 [${perRound(d16)}]`);
  for (const f of failures) console.log(`targets relay round failed: ${f}`);
  for (const [label, l] of lat) if (l.firstError) console.log(`state call error (${label}), first: ${l.firstError}`);
  for (const d of daemons) if (d.child.stderr.trim()) console.log(`daemon of ${d.n} targets, stderr (last lines):\n${d.child.stderr.trim().split('\n').slice(-5).join('\n')}`);
  console.log(`load average at the start of the targets part ${load.toFixed(2)}, at its end ${os.loadavg()[0]!.toFixed(2)}`);

  const r3 = (v: number | null) => (v === null ? null : round(v, 3));
  return {
    events: options.events,
    rounds: options.rounds,
    subscribers: options.subscribers,
    busyEventsPerSecPerTarget: options.rate,
    relay: Object.fromEntries(
      daemons.map((d) => [
        d.n,
        { eventsPerSec: eps(d.n) === null ? null : round(eps(d.n)!, 0), daemonCpuMs: relay.get(d.n)!.relayCpuMs, rounds: results.get(d)!.map((r) => (r.ok ? round(r.eventsPerSec, 0) : null)) },
      ]),
    ),
    relayRatio16: r3(relay16),
    relayTarget: TARGETS_RELAY_TARGET,
    calls: Object.fromEntries([...lat].map(([label, l]) => [label, { p50Us: round(l.p50, 1), p99Us: round(l.p99, 1), errors: l.errors }])),
    worstTargetP50Us16Busy: round(worst16, 1),
    p50Ratio16Busy: r3(p50Ratio),
    p50Target: TARGETS_P50_TARGET,
    rssAfterStartBytes: Object.fromEntries(daemons.map((d, i) => [d.n, idleRss[i]])),
    rssPeakBytes: Object.fromEntries(daemons.map((d, i) => [d.n, peakRss[i]])),
    rssAfterUseBytes: Object.fromEntries(daemons.map((d, i) => [d.n, usedRss[i]])),
    rssPerAddedTargetBytes: per16 === null ? null : Math.round(per16),
    rssPerAddedTargetAfterUseBytes: perUsed16 === null ? null : Math.round(perUsed16),
    rssTargetMB: TARGETS_RSS_TARGET_MB,
    loadAvg: { start: round(load, 2), end: round(os.loadavg()[0]!, 2) },
  };
}
