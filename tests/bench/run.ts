import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFloodPayload, FloodMod, type FloodPayload } from './flood-mod.js';
import { fmtInt, fmtMiB, fmtNum, mean, median, percentile, round, table } from './stats.js';
import { RpcClient, Subscriber, type GapInfo, type RelayKind } from './subscriber.js';
import {
  delay, freePort, guard, killAll, oneCall, readCpu, readCpuMs, readMemory, repoRoot, spawnChild, stopChild, unexpectedExits, withTimeout, type Child,
} from './children.js';
import { forkCopyPart } from './fork-copy.js';
import { webhookPart } from './webhook.js';
import { cliColdPart } from './cli-cold.js';
import { mcpPart } from './mcp-list.js';

/**
 * `npm run bench`: the daemon next to a raw-Node baseline, in one run.
 *
 *  1. event relay: a flood mod writes N events; the daemon (a child process) relays them
 *     to 10 subscribers; the baseline relay (another child) does the same with nothing but
 *     line splitting and one batched write per subscriber per incoming chunk. Rounds
 *     alternate between the two; the median round counts. The CPU time each relay process
 *     used per round is printed too: on a shared machine it is steadier than wall time.
 *  2. call round trip: sequential `state` calls, client → relay → mod → back.
 *  3. memory: resident set size of both children after the relay rounds.
 *  4. webhook throughput: a burst through the forwarder vs a minimal signed-POST loop (webhook.ts).
 *  5. the fork's world copy vs `cp -r` on a generated world of at least 1 GB (fork-copy.ts).
 *
 * A measurement, not a test: it exits 0 whether or not the targets are met, and non-zero
 * only when the benchmark itself broke. Knobs: BENCH_PARTS (relay,webhook,fork), BENCH_EVENTS,
 * BENCH_ROUNDS, BENCH_CALLS, BENCH_SUBSCRIBERS, BENCH_DAEMON_NODE_ARGS (e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/prof"), BENCH_WEBHOOK_EVENTS, BENCH_WEBHOOK_ROUNDS, BENCH_WORLD_BYTES,
 * BENCH_FORK_ROUNDS, BENCH_FORK_STREAM.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(repoRoot, 'bin', 'mcbridge.js');
const BASELINE_JS = path.join(here, 'baseline-relay.js');

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got '${raw}'`);
  return n;
}

const EVENTS = envInt('BENCH_EVENTS', 100_000);
const ROUNDS = envInt('BENCH_ROUNDS', 5);
const CALLS = envInt('BENCH_CALLS', 3_000);
const SUBSCRIBERS = envInt('BENCH_SUBSCRIBERS', 10);
const WARMUP_EVENTS = Math.min(EVENTS, 30_000);
const WARMUP_CALLS = 500;
const CALL_BLOCK = 500; // round-trip calls alternate between the two relays in blocks
const ROUND_TIMEOUT_MS = 30_000;
/** Past this much relay time the rounds stop early (at least MIN_ROUNDS), to bound the run. */
const RELAY_BUDGET_MS = 60_000;
const MIN_ROUNDS = Math.min(3, ROUNDS);
const RELAY_TARGET = 0.5; // daemon/baseline events per second, at least
const LATENCY_TARGET = 2; // daemon p50 / baseline p50, at most


// ---- the two relays under test --------------------------------------------------------

interface Relay {
  kind: RelayKind;
  child: Child;
  mod: FloodMod;
  apiPort: number;
  subscribers: Subscriber[];
}

async function startDaemon(): Promise<Relay> {
  const mod = await FloodMod.start();
  const apiPort = await freePort();
  const nodeArgs = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawnChild('daemon', [
    // --push-buffer: the baseline buffers for a slow reader without bound; the daemon's
    // default (8 MiB, then a gap frame) can trip when the bench process itself falls behind.
    ...nodeArgs, BIN, 'run', '--mod-port', String(mod.port), '--api-port', String(apiPort), '--buffer', '1000', '--push-buffer', '256', '--log-level', 'warn',
  ]);
  // Ready when the API answers and the link to the flood mod is up.
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitedYet) await guard(child, new Promise(() => {}));
    try {
      const frame = await oneCall(apiPort, 'ping');
      const result = frame.result as { connected?: boolean } | undefined;
      if (frame.ok === true && result?.connected === true) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the daemon did not connect to the flood mod within 20 s; its stderr:\n${child.stderr.trim() || '(empty)'}`);
    await delay(100);
  }
  return { kind: 'daemon', child, mod, apiPort, subscribers: [] };
}

async function startBaseline(): Promise<Relay> {
  const mod = await FloodMod.start();
  const child = spawnChild('baseline relay', [BASELINE_JS, String(mod.port)]);
  const apiPort = await guard(child, withTimeout(new Promise<number>((resolve) => {
    let out = '';
    child.proc.stdout!.setEncoding('utf8');
    child.proc.stdout!.on('data', (s: string) => {
      out += s;
      const nl = out.indexOf('\n');
      if (nl !== -1) resolve((JSON.parse(out.slice(0, nl)) as { port: number }).port);
    });
  }), 10_000, 'the baseline relay announcing its port'));
  await guard(child, withTimeout((async () => {
    while (mod.connections === 0) await delay(20);
  })(), 10_000, 'the baseline relay connecting to its flood mod'));
  return { kind: 'baseline', child, mod, apiPort, subscribers: [] };
}

async function attachSubscribers(relay: Relay): Promise<void> {
  for (let i = 0; i < SUBSCRIBERS; i += 1) {
    const sub = await guard(relay.child, Subscriber.connect(relay.apiPort, relay.kind));
    const ack = await guard(relay.child, withTimeout(sub.subscribe(), 5_000, `the ${relay.kind} subscribe ack`));
    if (ack.ok !== true) throw new Error(`subscribe failed on the ${relay.kind}: ${JSON.stringify(ack)}`);
    relay.subscribers.push(sub);
  }
}

// ---- 1. event relay ------------------------------------------------------------------

interface RoundResult {
  ms: number;
  eventsPerSec: number;
  /** CPU the relay process used during the round, and the bench process (flood mod + subscribers). */
  relayCpuMs: number | null;
  /** The part of relayCpuMs spent in the kernel (socket reads and writes, loopback TCP). */
  relaySysMs: number | null;
  benchCpuMs: number;
  ok: boolean;
  /** Why the round does not count: gap frames, a timeout. */
  failure?: string;
  gaps?: GapInfo[];
}

async function relayRound(relay: Relay, payload: FloodPayload): Promise<RoundResult> {
  const subs = relay.subscribers;
  let remaining = subs.length;
  let finishedAt = 0;
  let allDone!: () => void;
  const done = new Promise<void>((resolve) => (allDone = resolve));
  for (const sub of subs) {
    sub.expect(payload.events, () => {
      remaining -= 1;
      if (remaining === 0) {
        finishedAt = performance.now();
        allDone();
      }
    });
  }
  const cpu0 = readCpu(relay.child.proc.pid);
  const benchCpu0 = process.cpuUsage();
  const t0 = performance.now();
  const flooding = relay.mod.flood(payload);
  let timedOut = false;
  try {
    await guard(relay.child, withTimeout(Promise.all([done, flooding]), ROUND_TIMEOUT_MS, 'the round'));
  } catch (err) {
    if (!(err instanceof Error) || !err.message.includes('did not happen within')) throw err;
    timedOut = true;
  }
  const gaps = subs.flatMap((s) => s.gaps);
  const ms = (timedOut ? performance.now() : finishedAt) - t0;
  const cpu1 = readCpu(relay.child.proc.pid);
  const benchCpu = process.cpuUsage(benchCpu0);
  const result: RoundResult = {
    ms,
    eventsPerSec: payload.events / (ms / 1000),
    relayCpuMs: cpu0 !== null && cpu1 !== null ? cpu1.total - cpu0.total : null,
    relaySysMs: cpu0 !== null && cpu1 !== null ? cpu1.sys - cpu0.sys : null,
    benchCpuMs: (benchCpu.user + benchCpu.system) / 1000,
    ok: !timedOut && gaps.length === 0,
  };
  if (gaps.length > 0) {
    const dropped = gaps.reduce((n, g) => n + g.dropped, 0);
    result.failure = `${gaps.length} gap frame(s), ${dropped} events not pushed`;
    result.gaps = gaps.slice(0, 5);
  }
  if (timedOut) {
    const counts = subs.map((s) => s.accounted);
    result.failure = `${result.failure ? result.failure + '; ' : ''}timed out after ${ROUND_TIMEOUT_MS} ms with ${Math.min(...counts)}..${Math.max(...counts)} of ${payload.events} events per subscriber`;
    // Let the rest arrive so the next round starts clean.
    await delay(2_000);
  }
  return result;
}

// ---- 2. call round trip --------------------------------------------------------------

interface LatencySample {
  us: number[];
  errors: number;
  firstError?: string;
  /** CPU the relay process used over the measured calls. */
  relayCpuMs: number;
}

async function callBlock(relay: Relay, client: RpcClient, calls: number, sample: LatencySample | null, nextId: { n: number }): Promise<void> {
  const cpu0 = readCpuMs(relay.child.proc.pid);
  try {
    await callLoop(relay, client, calls, sample, nextId);
  } finally {
    const cpu1 = readCpuMs(relay.child.proc.pid);
    if (sample && cpu0 !== null && cpu1 !== null) sample.relayCpuMs += cpu1 - cpu0;
  }
}

async function callLoop(relay: Relay, client: RpcClient, calls: number, sample: LatencySample | null, nextId: { n: number }): Promise<void> {
  for (let i = 0; i < calls; i += 1) {
    const id = nextId.n++;
    const { reply, us } = await guard(relay.child, withTimeout(client.roundTrip(`{"id":${id},"method":"state"}`), 15_000, `the reply to state call ${id}`));
    if (!sample) continue;
    sample.us.push(us);
    let good = false;
    try {
      const frame = JSON.parse(reply) as Record<string, unknown>;
      good = relay.kind === 'daemon'
        ? frame.type === 'response' && frame.id === id && frame.ok === true && (frame.result as { type?: unknown })?.type === 'state'
        : frame.type === 'state';
    } catch {
      good = false;
    }
    if (!good) {
      sample.errors += 1;
      sample.firstError ??= reply.slice(0, 300);
    }
  }
}

// ---- main ----------------------------------------------------------------------------

interface RoundSummary {
  eventsPerSec: number | null;
  ms: number | null;
  relayCpuMs: number | null;
  benchCpuMs: number | null;
}

function summarizeRounds(rounds: RoundResult[]): RoundSummary {
  const good = rounds.filter((r) => r.ok);
  if (good.length === 0) return { eventsPerSec: null, ms: null, relayCpuMs: null, benchCpuMs: null };
  const cpu = good.map((r) => r.relayCpuMs).filter((v): v is number => v !== null);
  return {
    eventsPerSec: median(good.map((r) => r.eventsPerSec)),
    ms: median(good.map((r) => r.ms)),
    relayCpuMs: cpu.length > 0 ? median(cpu) : null,
    benchCpuMs: median(good.map((r) => r.benchCpuMs)),
  };
}

/** Part 1-3: relay, round trip, memory. Prints its table; returns its part of the JSON summary. */
async function relayBench(): Promise<Record<string, unknown>> {
  if (!existsSync(path.join(repoRoot, 'dist', 'core', 'frontends', 'cli', 'main.js'))) {
    throw new Error('dist/core/frontends/cli/main.js is missing: run `npm run build` first (npm run bench does)');
  }
  if (!existsSync(BASELINE_JS)) throw new Error(`${BASELINE_JS} is missing: build the bench (npm run bench does)`);

  const payload = buildFloodPayload(EVENTS);
  const warmPayload = buildFloodPayload(WARMUP_EVENTS);
  const avgLine = payload.bytes / payload.events;
  console.log(`flood: ${fmtInt(EVENTS)} events per round (${fmtNum(avgLine, 0)} B per line on average, ${payload.minLineBytes}..${payload.maxLineBytes}), ` +
    `${SUBSCRIBERS} subscribers, up to ${ROUNDS} rounds per relay after a warm-up of ${fmtInt(WARMUP_EVENTS)}, alternating; median round counts`);

  const load = os.loadavg()[0]!;
  if (load > os.cpus().length * 0.5) {
    console.log(`WARNING: load average ${load.toFixed(2)} on ${os.cpus().length} cpus before the start: other processes compete for the CPU, ` +
      'so wall-clock figures (events/s, latency) are unreliable; the CPU-time rows are less affected.');
  }

  const daemon = await startDaemon();
  const baseline = await startBaseline();
  const relays = [daemon, baseline];
  const idleMemory = { daemon: readMemory(daemon.child.proc.pid), baseline: readMemory(baseline.child.proc.pid) };
  for (const relay of relays) await attachSubscribers(relay);

  // 1. relay rounds, alternating which relay goes first.
  const rounds: Record<RelayKind, RoundResult[]> = { daemon: [], baseline: [] };
  const relayStart = performance.now();
  for (const relay of relays) await relayRound(relay, warmPayload);
  let roundsRun = 0;
  for (let r = 0; r < ROUNDS; r += 1) {
    if (r >= MIN_ROUNDS && performance.now() - relayStart > RELAY_BUDGET_MS) {
      process.stderr.write(`  relay time budget (${RELAY_BUDGET_MS / 1000} s) spent: stopping after ${r} rounds\n`);
      break;
    }
    roundsRun += 1;
    const order = r % 2 === 0 ? relays : [...relays].reverse();
    for (const relay of order) {
      const result = await relayRound(relay, payload);
      rounds[relay.kind].push(result);
      process.stderr.write(`  round ${r + 1} ${relay.kind.padEnd(8)} ${fmtInt(result.eventsPerSec).padStart(10)} events/s  ${fmtNum(result.ms, 0).padStart(6)} ms  ` +
        `cpu: relay ${fmtInt(result.relayCpuMs ?? NaN).padStart(5)} ms (sys ${fmtInt(result.relaySysMs ?? NaN).padStart(5)}), bench ${fmtInt(result.benchCpuMs).padStart(5)} ms${result.ok ? '' : `  FAILED: ${result.failure}`}\n`);
    }
  }

  // 3. memory right after the relay rounds.
  await delay(200);
  const memory = { daemon: readMemory(daemon.child.proc.pid), baseline: readMemory(baseline.child.proc.pid) };

  const strays = relays.flatMap((relay) => relay.subscribers.filter((s) => s.strayCount > 0).map((s) => ({ relay: relay.kind, count: s.strayCount, sample: s.strays })));
  for (const relay of relays) for (const sub of relay.subscribers) sub.close();

  // 2. sequential state calls, in alternating blocks.
  const latency: Record<RelayKind, LatencySample> = { daemon: { us: [], errors: 0, relayCpuMs: 0 }, baseline: { us: [], errors: 0, relayCpuMs: 0 } };
  const clients = new Map<RelayKind, RpcClient>();
  const ids = new Map<RelayKind, { n: number }>();
  for (const relay of relays) {
    const client = await guard(relay.child, RpcClient.connect(relay.apiPort));
    clients.set(relay.kind, client);
    ids.set(relay.kind, { n: 1 });
    await callBlock(relay, client, WARMUP_CALLS, null, ids.get(relay.kind)!);
  }
  for (let done = 0, b = 0; done < CALLS; done += CALL_BLOCK, b += 1) {
    const n = Math.min(CALL_BLOCK, CALLS - done);
    const order = b % 2 === 0 ? relays : [...relays].reverse();
    for (const relay of order) await callBlock(relay, clients.get(relay.kind)!, n, latency[relay.kind], ids.get(relay.kind)!);
  }
  for (const client of clients.values()) client.close();

  // What the daemon itself counted, as a cross-check.
  let daemonStatus: Record<string, unknown> | null = null;
  try {
    const frame = await oneCall(daemon.apiPort, 'status');
    daemonStatus = (frame.result as Record<string, unknown>) ?? null;
  } catch {
    daemonStatus = null;
  }
  const daemonStderr = daemon.child.stderr.trim();

  await Promise.all(relays.map((relay) => stopChild(relay.child)));
  await Promise.all(relays.map((relay) => relay.mod.stop()));

  // ---- report --------------------------------------------------------------------------
  const relayD = summarizeRounds(rounds.daemon);
  const relayB = summarizeRounds(rounds.baseline);
  const relayFailures = rounds.daemon.filter((r) => !r.ok);
  const baselineFailures = rounds.baseline.filter((r) => !r.ok);
  const relayRatio = relayD.eventsPerSec !== null && relayB.eventsPerSec !== null ? relayD.eventsPerSec / relayB.eventsPerSec : null;
  const relayPass = relayFailures.length === 0 && relayRatio !== null && relayRatio >= RELAY_TARGET;
  const relayVerdict = relayFailures.length > 0
    ? `FAIL (${relayFailures.length}/${roundsRun} rounds, see below)`
    : relayPass ? 'PASS' : 'MISS';

  const lat = (kind: RelayKind) => {
    const s = latency[kind];
    return {
      p50: percentile(s.us, 50), p99: percentile(s.us, 99), mean: mean(s.us), errors: s.errors, firstError: s.firstError,
      cpuUsPerCall: s.us.length > 0 ? (s.relayCpuMs * 1000) / s.us.length : NaN,
    };
  };
  const latD = lat('daemon');
  const latB = lat('baseline');
  const latRatio = latD.p50 / latB.p50;
  const latPass = latD.errors === 0 && latRatio <= LATENCY_TARGET;
  const latVerdict = latD.errors > 0 ? `FAIL (${latD.errors} error replies)` : latPass ? 'PASS' : 'MISS';
  const memRatio = memory.daemon.rss !== null && memory.baseline.rss !== null ? memory.daemon.rss / memory.baseline.rss : null;

  const ratio = (v: number | null, d = 2) => (v === null || !Number.isFinite(v) ? 'n/a' : fmtNum(v, d));
  const rows: string[][] = [
    ['relay events/s (median)', fmtInt(relayD.eventsPerSec ?? NaN), fmtInt(relayB.eventsPerSec ?? NaN), ratio(relayRatio), `>= ${RELAY_TARGET}`, relayVerdict],
    ['relay round ms (median)', fmtNum(relayD.ms ?? NaN, 0), fmtNum(relayB.ms ?? NaN, 0), ratio(relayD.ms !== null && relayB.ms !== null ? relayD.ms / relayB.ms : null), '', ''],
    ['relay process CPU ms/round', fmtInt(relayD.relayCpuMs ?? NaN), fmtInt(relayB.relayCpuMs ?? NaN), ratio(relayD.relayCpuMs !== null && relayB.relayCpuMs ? relayD.relayCpuMs / relayB.relayCpuMs : null), 'info', ''],
    ['bench process CPU ms/round', fmtInt(relayD.benchCpuMs ?? NaN), fmtInt(relayB.benchCpuMs ?? NaN), ratio(relayD.benchCpuMs !== null && relayB.benchCpuMs ? relayD.benchCpuMs / relayB.benchCpuMs : null), 'info', ''],
    ['state round trip p50 us', fmtNum(latD.p50, 0), fmtNum(latB.p50, 0), ratio(latRatio), `<= ${LATENCY_TARGET}`, latVerdict],
    ['state round trip p99 us', fmtNum(latD.p99, 0), fmtNum(latB.p99, 0), ratio(latD.p99 / latB.p99), '', ''],
    ['state round trip mean us', fmtNum(latD.mean, 0), fmtNum(latB.mean, 0), ratio(latD.mean / latB.mean), '', ''],
    ['relay CPU us per state call', fmtNum(latD.cpuUsPerCall, 0), fmtNum(latB.cpuUsPerCall, 0), ratio(latD.cpuUsPerCall / latB.cpuUsPerCall), 'info', ''],
    ['RSS after relay rounds', fmtMiB(memory.daemon.rss), fmtMiB(memory.baseline.rss), ratio(memRatio), 'info', ''],
    ['RSS peak (VmHWM)', fmtMiB(memory.daemon.peak), fmtMiB(memory.baseline.peak), ratio(memory.daemon.peak !== null && memory.baseline.peak !== null ? memory.daemon.peak / memory.baseline.peak : null), 'info', ''],
    ['RSS idle, before rounds', fmtMiB(idleMemory.daemon.rss), fmtMiB(idleMemory.baseline.rss), ratio(idleMemory.daemon.rss !== null && idleMemory.baseline.rss !== null ? idleMemory.daemon.rss / idleMemory.baseline.rss : null), 'info', ''],
  ];
  console.log('');
  console.log(table(['metric', 'daemon', 'baseline', 'ratio', 'target', 'verdict'], rows));
  console.log('');
  const perRound = (rs: RoundResult[]) => rs.map((r) => (r.ok ? fmtInt(r.eventsPerSec) : 'FAILED')).join(', ');
  console.log(`relay rounds, events/s: daemon [${perRound(rounds.daemon)}]; baseline [${perRound(rounds.baseline)}]`);
  if (relayFailures.length > 0) for (const f of relayFailures) console.log(`daemon round failed: ${f.failure}${f.gaps ? ` e.g. ${JSON.stringify(f.gaps[0])}` : ''}`);
  if (baselineFailures.length > 0) for (const f of baselineFailures) console.log(`baseline round failed: ${f.failure}`);
  if (latD.firstError) console.log(`daemon state call error, first: ${latD.firstError}`);
  if (latB.firstError) console.log(`baseline state call error, first: ${latB.firstError}`);
  for (const s of strays) console.log(`unexpected lines on a ${s.relay} subscriber: ${s.count}, e.g. ${s.sample[0]}`);
  const events = daemonStatus?.events as { lastSeq?: number; evicted?: number } | undefined;
  const linkStats = (daemonStatus?.link as { stats?: Record<string, number> } | undefined)?.stats;
  if (events) {
    const expected = 1 + WARMUP_EVENTS + roundsRun * EVENTS; // the greeting is recorded too
    console.log(`daemon recorded ${fmtInt(events.lastSeq ?? NaN)} events (expected ${fmtInt(expected)}), ` +
      `link: ${linkStats ? Object.entries(linkStats).map(([k, v]) => `${k}=${v}`).join(' ') : 'n/a'}`);
  }
  if (daemonStderr) console.log(`daemon stderr (last lines):\n${daemonStderr.split('\n').slice(-5).join('\n')}`);
  console.log(`relay: ${relayVerdict}   round trip: ${latVerdict}   memory ratio: ${ratio(memRatio)} (informational)`);

  const relayJson = (rs: RoundResult[], s: RoundSummary) => ({
    eventsPerSec: s.eventsPerSec === null ? null : round(s.eventsPerSec, 0),
    roundMs: s.ms === null ? null : round(s.ms, 1),
    relayCpuMs: s.relayCpuMs,
    benchCpuMs: s.benchCpuMs === null ? null : round(s.benchCpuMs, 0),
    rounds: rs.map((r) => (r.ok ? round(r.eventsPerSec, 0) : null)),
    failures: rs.filter((r) => !r.ok).map((r) => r.failure),
  });
  const latJson = (l: ReturnType<typeof lat>, n: number) => ({
    calls: n, p50Us: round(l.p50, 1), p99Us: round(l.p99, 1), meanUs: round(l.mean, 1), relayCpuUsPerCall: round(l.cpuUsPerCall, 1), errors: l.errors,
  });
  return {
    relay: {
      events: EVENTS, subscribers: SUBSCRIBERS, rounds: roundsRun, avgLineBytes: round(avgLine, 1),
      daemon: relayJson(rounds.daemon, relayD), baseline: relayJson(rounds.baseline, relayB),
      ratio: relayRatio === null ? null : round(relayRatio, 3), target: RELAY_TARGET, pass: relayPass,
      daemonRecorded: events?.lastSeq ?? null,
    },
    roundTrip: {
      daemon: latJson(latD, latency.daemon.us.length), baseline: latJson(latB, latency.baseline.us.length),
      ratioP50: round(latRatio, 3), target: LATENCY_TARGET, pass: latPass,
    },
    memory: {
      daemonRssBytes: memory.daemon.rss, baselineRssBytes: memory.baseline.rss,
      daemonPeakBytes: memory.daemon.peak, baselinePeakBytes: memory.baseline.peak,
      daemonIdleRssBytes: idleMemory.daemon.rss, baselineIdleRssBytes: idleMemory.baseline.rss,
      ratio: memRatio === null ? null : round(memRatio, 3),
    },
    loadAvgAtStart: round(load, 2),
  };
}

/**
 * Which parts run: BENCH_PARTS, a comma list of relay (1-3 above), webhook and fork (4, 5);
 * default all. 4. webhook throughput (tests/bench/webhook.ts); 5. the fork's world copy next to
 * `cp -r` (tests/bench/fork-copy.ts).
 */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'relay,webhook,fork,cli,mcp').split(',').map((p) => p.trim()));

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`mcbridge bench: node ${process.version}, ${os.cpus().length} cpus (${os.cpus()[0]?.model ?? '?'}), ${process.platform} ${process.arch}`);
  const summary: Record<string, unknown> = {};
  if (PARTS.has('relay')) Object.assign(summary, await relayBench());
  if (PARTS.has('webhook')) summary.webhook = await webhookPart(envInt('BENCH_WEBHOOK_EVENTS', 10_000), envInt('BENCH_WEBHOOK_ROUNDS', 5));
  if (PARTS.has('cli')) summary.cli = await cliColdPart(envInt('BENCH_CLI_ROUNDS', 15));
  if (PARTS.has('mcp')) summary.mcp = await mcpPart(envInt('BENCH_MCP_ROUNDS', 7), envInt('BENCH_MCP_LISTS', 50));
  if (PARTS.has('fork')) summary.forkCopy = await forkCopyPart(envInt('BENCH_WORLD_BYTES', 1.1e9), envInt('BENCH_FORK_ROUNDS', 5));
  const seconds = (performance.now() - started) / 1000;
  console.log(`finished in ${fmtNum(seconds, 1)} s`);
  console.log(JSON.stringify({ ...summary, node: process.version, cpus: os.cpus().length, platform: `${process.platform}-${process.arch}`, seconds: round(seconds, 1) }));
}

main().then(
  () => {
    killAll();
    process.exit(0);
  },
  async (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    await delay(300); // a dying child's exit may be reported just after the error it caused
    for (const why of unexpectedExits) process.stderr.write(`${why}\n`);
    killAll();
    process.exit(1);
  },
);
