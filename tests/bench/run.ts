import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFloodPayload, type FloodMod } from './flood-mod.js';
import { fmtInt, fmtMiB, fmtNum, markdownSummary, printTable, round } from './stats.js';
import { Subscriber, type RelayKind } from './subscriber.js';
import { delay, guard, killAll, oneCall, readMemory, repoRoot, stopChild, unexpectedExits, withTimeout, type Child } from './children.js';
import { relayRound, summarizeRounds, type RoundResult, type RoundSummary } from './relay-round.js';
import { bytesPerCall, measureCalls, startDaemon as startCallDaemon, startHop, startRawChild, stopServer, summarize, type Server } from './calls.js';
import { forkCopyPart } from './fork-copy.js';
import { webhookPart } from './webhook.js';
import { cliColdPart } from './cli-cold.js';
import { mcpPart } from './mcp-list.js';
import { targetsPart } from './targets.js';
import { controlPart } from './control.js';
import { ledgerPart } from './ledger.js';
import { launchPart } from './launch.js';
import { logCapturePart } from './log-capture.js';

/**
 * `npm run bench`: the daemon next to a raw-Node baseline, in one run.
 *
 *  1. event relay: a flood mod writes N events; the daemon (a child process) relays them
 *     to 10 subscribers; the baseline relay (another child) does the same with nothing but
 *     line splitting and one batched write per subscriber per incoming chunk. Rounds
 *     alternate between the two; the median round counts. The CPU time each relay process
 *     used per round is printed too: on a shared machine it is steadier than wall time.
 *  2. call round trip: sequential `state` calls, client → daemon → mod → back, next to the
 *     zero-work hop (hop.ts: splices the mod's reply into a response frame, nothing else);
 *     and the heap bytes each allocates per call (calls.ts). Each side first answers 3,000
 *     calls, so both run optimised code, as a long-running daemon does.
 *  3. memory: resident set size of the daemon and the raw relay after start, and their peaks
 *     over the flood and the calls.
 *  4. webhook throughput: a burst through the forwarder vs a minimal signed-POST loop (webhook.ts).
 *  5. the fork's world copy vs `cp -r` on a generated world of at least 1 GB (fork-copy.ts).
 *  6. one daemon of 1, 4 and 16 targets: aggregate relay, `state` p50 with every target busy,
 *     RSS per added target, each against the one-target daemon in the same run (targets.ts).
 *  7. `state` over the control protocol (TLS) against the legacy link and a zero-work TLS hop,
 *     and 32 calls in flight at once (control.ts).
 *  8. `command` with the write ledger on disk against one in memory, and against `state` (ledger.ts).
 *  9. `server_start` of a launched sim against spawning its argv by hand until its port file exists (launch.ts).
 * 10. log capture: Log4j lines from a child's pipe through the logs plugin's LogCapture against readline (log-capture.ts).
 *
 * A measurement, not a test: it exits 0 whether or not the targets are met, and non-zero
 * only when the benchmark itself broke. Knobs: BENCH_PARTS (relay,webhook,fork), BENCH_EVENTS,
 * BENCH_ROUNDS, BENCH_CALLS, BENCH_SUBSCRIBERS, BENCH_DAEMON_NODE_ARGS (e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/prof"), BENCH_WEBHOOK_EVENTS, BENCH_WEBHOOK_ROUNDS, BENCH_WORLD_BYTES,
 * BENCH_FORK_ROUNDS, BENCH_FORK_STREAM, BENCH_TARGETS_EVENTS (a multiple of 16), BENCH_TARGETS_ROUNDS,
 * BENCH_TARGETS_SUBSCRIBERS, BENCH_TARGETS_CALLS, BENCH_TARGETS_RATE (events/s per busy target),
 * BENCH_CONTROL_CALLS, BENCH_CONTROL_BURSTS, BENCH_CONTROL_CONCURRENCY, BENCH_LEDGER_CALLS, BENCH_LEDGER_BURSTS, BENCH_LAUNCH_ROUNDS,
 * BENCH_LOG_LINES, BENCH_LOG_ROUNDS.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
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
const CALLS = envInt('BENCH_CALLS', 6_000);
const SUBSCRIBERS = envInt('BENCH_SUBSCRIBERS', 10);
/** Node flags for the daemon under test, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof". */
const DAEMON_NODE_ARGS = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const WARMUP_EVENTS = Math.min(EVENTS, 30_000);
/** Past this much relay time the rounds stop early (at least MIN_ROUNDS), to bound the run. */
const RELAY_BUDGET_MS = 60_000;
const MIN_ROUNDS = Math.min(3, ROUNDS);
const RELAY_TARGET = 0.5; // daemon/baseline events per second, at least
const P50_TARGET = 1.15; // daemon p50 / the zero-work hop's p50, at most
const P99_TARGET = 1.3;
const PEAK_TARGET = 1; // daemon peak RSS / the raw relay's, at most
const ALLOC_TARGET_KIB = 4;

// ---- the two relays under test --------------------------------------------------------

interface Relay {
  kind: RelayKind;
  child: Child;
  mod: FloodMod;
  apiPort: number;
  subscribers: Subscriber[];
}

async function startDaemon(): Promise<Relay> {
  // --push-buffer: the baseline buffers for a slow reader without bound; the daemon's
  // default (8 MiB, then a gap frame) can trip when the bench process itself falls behind.
  const server = await startCallDaemon(DAEMON_NODE_ARGS, ['--buffer', '1000', '--push-buffer', '256']);
  return { kind: 'daemon', child: server.child, mod: server.mod, apiPort: server.apiPort, subscribers: [] };
}

async function startBaseline(): Promise<Relay> {
  const { child, mod, apiPort } = await startRawChild('baseline relay', BASELINE_JS);
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

/** Part 1-3: relay, round trip, memory. Prints its table; returns its part of the JSON summary. */
async function relayBench(): Promise<Record<string, unknown>> {
  if (!existsSync(path.join(repoRoot, 'dist', 'core', 'frontends', 'cli', 'main.js'))) {
    throw new Error('dist/core/frontends/cli/main.js is missing: run `npm run build` first (npm run bench does)');
  }
  if (!existsSync(BASELINE_JS)) throw new Error(`${BASELINE_JS} is missing: build the bench (npm run bench does)`);

  const payload = buildFloodPayload(EVENTS);
  const warmPayload = buildFloodPayload(WARMUP_EVENTS);
  const avgLine = payload.bytes / payload.events;
  console.log(
    `flood: ${fmtInt(EVENTS)} events per round (${fmtNum(avgLine, 0)} B per line on average, ${payload.minLineBytes}..${payload.maxLineBytes}), ` +
      `${SUBSCRIBERS} subscribers, up to ${ROUNDS} rounds per relay after a warm-up of ${fmtInt(WARMUP_EVENTS)}, alternating; median round counts`,
  );

  const load = os.loadavg()[0]!;
  if (load > os.cpus().length * 0.5) {
    console.log(
      `WARNING: load average ${load.toFixed(2)} on ${os.cpus().length} cpus before the start: other processes compete for the CPU, ` +
        'so wall-clock figures (events/s, latency) are unreliable; the CPU-time rows are less affected.',
    );
  }

  const daemon = await startDaemon();
  const baseline = await startBaseline();
  const relays = [daemon, baseline];
  const idleMemory = { daemon: readMemory(daemon.child.proc.pid), baseline: readMemory(baseline.child.proc.pid) };
  for (const relay of relays) await attachSubscribers(relay);

  // 1. relay rounds, alternating which relay goes first.
  const rounds: Record<RelayKind, RoundResult[]> = { daemon: [], baseline: [] };
  const relayStart = performance.now();
  for (const relay of relays) await relayRound(relay.child, relay.subscribers, warmPayload.events, () => relay.mod.flood(warmPayload));
  let roundsRun = 0;
  for (let r = 0; r < ROUNDS; r += 1) {
    if (r >= MIN_ROUNDS && performance.now() - relayStart > RELAY_BUDGET_MS) {
      process.stderr.write(`  relay time budget (${RELAY_BUDGET_MS / 1000} s) spent: stopping after ${r} rounds\n`);
      break;
    }
    roundsRun += 1;
    const order = r % 2 === 0 ? relays : [...relays].reverse();
    for (const relay of order) {
      const result = await relayRound(relay.child, relay.subscribers, payload.events, () => relay.mod.flood(payload));
      rounds[relay.kind].push(result);
      process.stderr.write(
        `  round ${r + 1} ${relay.kind.padEnd(8)} ${fmtInt(result.eventsPerSec).padStart(10)} events/s  ${fmtNum(result.ms, 0).padStart(6)} ms  ` +
          `cpu: relay ${fmtInt(result.relayCpuMs ?? NaN).padStart(5)} ms (sys ${fmtInt(result.relaySysMs ?? NaN).padStart(5)}), bench ${fmtInt(result.benchCpuMs).padStart(5)} ms${result.ok ? '' : `  FAILED: ${result.failure}`}\n`,
      );
    }
  }

  const strays = relays.flatMap((relay) => relay.subscribers.filter((s) => s.strayCount > 0).map((s) => ({ relay: relay.kind, count: s.strayCount, sample: s.strays })));
  for (const relay of relays) for (const sub of relay.subscribers) sub.close();

  // 2. sequential state calls, the daemon next to the zero-work hop in alternating blocks: here,
  // right after the flood (its garbage still being collected: reported, no target), and below on
  // a daemon and a hop of their own, where the call path alone is measured.
  const hop = await startHop();
  const daemonServer: Server = { side: 'daemon', child: daemon.child, mod: daemon.mod, apiPort: daemon.apiPort };
  const afterFlood = await measureCalls([daemonServer, hop], CALLS);

  // 3. memory after the flood and the calls: what the daemon and the raw relay hold, and their peaks.
  await delay(200);
  const memory = { daemon: readMemory(daemon.child.proc.pid), baseline: readMemory(baseline.child.proc.pid) };

  // What the daemon itself counted, as a cross-check.
  let daemonStatus: Record<string, unknown> | null = null;
  try {
    const frame = await oneCall(daemon.apiPort, 'status');
    daemonStatus = (frame.result as Record<string, unknown>) ?? null;
  } catch {
    daemonStatus = null;
  }
  const daemonStderr = daemon.child.stderr.trim();
  await Promise.all([...relays.map((relay) => stopChild(relay.child)), stopServer(hop)]);
  await Promise.all(relays.map((relay) => relay.mod.stop()));

  const freshDaemon = await startCallDaemon([]);
  const freshHop = await startHop();
  const samples = await measureCalls([freshDaemon, freshHop], CALLS);
  await Promise.all([stopServer(freshDaemon), stopServer(freshHop)]);

  // 4. heap bytes per call, each side in a process of its own with a probe (calls.ts).
  const allocation = {
    daemon: await bytesPerCall((nodeArgs) => startCallDaemon(nodeArgs)),
    hop: await bytesPerCall((nodeArgs) => startHop(nodeArgs)),
  };

  // ---- report --------------------------------------------------------------------------
  const relayD = summarizeRounds(rounds.daemon);
  const relayB = summarizeRounds(rounds.baseline);
  const relayFailures = rounds.daemon.filter((r) => !r.ok);
  const baselineFailures = rounds.baseline.filter((r) => !r.ok);
  const relayRatio = relayD.eventsPerSec !== null && relayB.eventsPerSec !== null ? relayD.eventsPerSec / relayB.eventsPerSec : null;
  const relayPass = relayFailures.length === 0 && relayRatio !== null && relayRatio >= RELAY_TARGET;
  const relayVerdict = relayFailures.length > 0 ? `FAIL (${relayFailures.length}/${roundsRun} rounds, see below)` : relayPass ? 'PASS' : 'MISS';

  const latD = summarize(samples.get('daemon')!);
  const latH = summarize(samples.get('hop')!);
  const floodD = summarize(afterFlood.get('daemon')!);
  const floodH = summarize(afterFlood.get('hop')!);
  const div = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);
  const verdict = (value: number | null, target: number, errors = 0) => (errors > 0 ? `FAIL (${errors} bad replies)` : value === null ? 'n/a' : value <= target ? 'PASS' : 'MISS');
  const p50Ratio = div(latD.p50, latH.p50);
  const p99Ratio = div(latD.p99, latH.p99);
  const peakRatio = div(memory.daemon.peak, memory.baseline.peak);
  const allocKiB = allocation.daemon === null ? null : allocation.daemon / 1024;

  const ratio = (v: number | null, d = 2) => (v === null || !Number.isFinite(v) ? 'n/a' : fmtNum(v, d));
  const kib = (v: number | null) => (v === null ? 'n/a' : `${fmtNum(v / 1024, 1)} KiB`);
  const rows: string[][] = [
    ['relay events/s (median)', fmtInt(relayD.eventsPerSec ?? NaN), fmtInt(relayB.eventsPerSec ?? NaN), ratio(relayRatio), `>= ${RELAY_TARGET}`, relayVerdict],
    ['relay round ms (median)', fmtNum(relayD.ms ?? NaN, 0), fmtNum(relayB.ms ?? NaN, 0), ratio(div(relayD.ms, relayB.ms)), '', ''],
    ['relay process CPU ms/round', fmtInt(relayD.relayCpuMs ?? NaN), fmtInt(relayB.relayCpuMs ?? NaN), ratio(div(relayD.relayCpuMs, relayB.relayCpuMs)), 'info', ''],
    ['bench process CPU ms/round', fmtInt(relayD.benchCpuMs ?? NaN), fmtInt(relayB.benchCpuMs ?? NaN), ratio(div(relayD.benchCpuMs, relayB.benchCpuMs)), 'info', ''],
    ['RSS peak, flood + calls (VmHWM)', fmtMiB(memory.daemon.peak), fmtMiB(memory.baseline.peak), ratio(peakRatio), `<= ${PEAK_TARGET}`, verdict(peakRatio, PEAK_TARGET)],
    ['RSS after flood + calls', fmtMiB(memory.daemon.rss), fmtMiB(memory.baseline.rss), ratio(div(memory.daemon.rss, memory.baseline.rss)), 'info', ''],
    // The target is the cli part's row (measured after the daemon settles, next to an idle node).
    ['RSS idle after start', fmtMiB(idleMemory.daemon.rss), fmtMiB(idleMemory.baseline.rss), ratio(div(idleMemory.daemon.rss, idleMemory.baseline.rss)), 'info', ''],
  ];
  const callRows: string[][] = [
    ['state round trip p50 us', fmtNum(latD.p50, 0), fmtNum(latH.p50, 0), ratio(p50Ratio), `<= ${P50_TARGET}`, verdict(p50Ratio, P50_TARGET, latD.errors)],
    ['state round trip p99 us', fmtNum(latD.p99, 0), fmtNum(latH.p99, 0), ratio(p99Ratio), `<= ${P99_TARGET}`, verdict(p99Ratio, P99_TARGET, latD.errors)],
    ['state round trip mean us', fmtNum(latD.mean, 0), fmtNum(latH.mean, 0), ratio(div(latD.mean, latH.mean)), '', ''],
    ['CPU us per state call', fmtNum(latD.cpuUsPerCall, 0), fmtNum(latH.cpuUsPerCall, 0), ratio(div(latD.cpuUsPerCall, latH.cpuUsPerCall)), 'info', ''],
    ['p50 right after the flood rounds us', fmtNum(floodD.p50, 0), fmtNum(floodH.p50, 0), ratio(div(floodD.p50, floodH.p50)), 'info', floodD.errors > 0 ? `FAIL (${floodD.errors} bad replies)` : ''],
    ['p99 right after the flood rounds us', fmtNum(floodD.p99, 0), fmtNum(floodH.p99, 0), ratio(div(floodD.p99, floodH.p99)), 'info', ''],
    ['heap bytes allocated per call', kib(allocation.daemon), kib(allocation.hop), ratio(div(allocation.daemon, allocation.hop)), `<= ${ALLOC_TARGET_KIB} KiB`, verdict(allocKiB, ALLOC_TARGET_KIB)],
  ];
  console.log('');
  printTable(['metric', 'daemon', 'raw relay', 'ratio', 'target', 'verdict'], rows);
  console.log('');
  printTable(['metric', 'daemon', 'zero-work hop', 'ratio', 'target', 'verdict'], callRows);
  console.log('');
  const perRound = (rs: RoundResult[]) => rs.map((r) => (r.ok ? fmtInt(r.eventsPerSec) : 'FAILED')).join(', ');
  console.log(`relay rounds, events/s: daemon [${perRound(rounds.daemon)}]; baseline [${perRound(rounds.baseline)}]`);
  if (relayFailures.length > 0) for (const f of relayFailures) console.log(`daemon round failed: ${f.failure}${f.gaps ? ` e.g. ${JSON.stringify(f.gaps[0])}` : ''}`);
  if (baselineFailures.length > 0) for (const f of baselineFailures) console.log(`baseline round failed: ${f.failure}`);
  if (latD.firstError) console.log(`daemon state call error, first: ${latD.firstError}`);
  if (latH.firstError) console.log(`hop state call error, first: ${latH.firstError}`);
  if (floodD.firstError) console.log(`daemon state call error after the flood, first: ${floodD.firstError}`);
  for (const s of strays) console.log(`unexpected lines on a ${s.relay} subscriber: ${s.count}, e.g. ${s.sample[0]}`);
  const events = daemonStatus?.events as { lastSeq?: number; evicted?: number } | undefined;
  const linkStats = (daemonStatus?.link as { stats?: Record<string, number> } | undefined)?.stats;
  if (events) {
    const expected = 1 + WARMUP_EVENTS + roundsRun * EVENTS; // the greeting is recorded too
    console.log(
      `daemon recorded ${fmtInt(events.lastSeq ?? NaN)} events (expected ${fmtInt(expected)}), ` +
        `link: ${
          linkStats
            ? Object.entries(linkStats)
                .map(([k, v]) => `${k}=${v}`)
                .join(' ')
            : 'n/a'
        }`,
    );
  }
  if (daemonStderr) console.log(`daemon stderr (last lines):\n${daemonStderr.split('\n').slice(-5).join('\n')}`);
  console.log(`load average at the start ${load.toFixed(2)}, at the end ${os.loadavg()[0]!.toFixed(2)}`);

  const relayJson = (rs: RoundResult[], s: RoundSummary) => ({
    eventsPerSec: s.eventsPerSec === null ? null : round(s.eventsPerSec, 0),
    roundMs: s.ms === null ? null : round(s.ms, 1),
    relayCpuMs: s.relayCpuMs,
    benchCpuMs: s.benchCpuMs === null ? null : round(s.benchCpuMs, 0),
    rounds: rs.map((r) => (r.ok ? round(r.eventsPerSec, 0) : null)),
    failures: rs.filter((r) => !r.ok).map((r) => r.failure),
  });
  const latJson = (l: ReturnType<typeof summarize>) => ({
    p50Us: round(l.p50, 1),
    p99Us: round(l.p99, 1),
    meanUs: round(l.mean, 1),
    cpuUsPerCall: round(l.cpuUsPerCall, 1),
    errors: l.errors,
  });
  const r3 = (v: number | null) => (v === null ? null : round(v, 3));
  return {
    relay: {
      events: EVENTS,
      subscribers: SUBSCRIBERS,
      rounds: roundsRun,
      avgLineBytes: round(avgLine, 1),
      daemon: relayJson(rounds.daemon, relayD),
      baseline: relayJson(rounds.baseline, relayB),
      ratio: r3(relayRatio),
      target: RELAY_TARGET,
      pass: relayPass,
      daemonRecorded: events?.lastSeq ?? null,
    },
    calls: {
      calls: CALLS,
      daemon: latJson(latD),
      hop: latJson(latH),
      afterFlood: { daemon: latJson(floodD), hop: latJson(floodH) },
      ratioP50: r3(p50Ratio),
      targetP50: P50_TARGET,
      ratioP99: r3(p99Ratio),
      targetP99: P99_TARGET,
      bytesPerCall: { daemon: allocation.daemon === null ? null : Math.round(allocation.daemon), hop: allocation.hop === null ? null : Math.round(allocation.hop), targetKiB: ALLOC_TARGET_KIB },
    },
    memory: {
      daemonRssBytes: memory.daemon.rss,
      baselineRssBytes: memory.baseline.rss,
      daemonPeakBytes: memory.daemon.peak,
      baselinePeakBytes: memory.baseline.peak,
      peakRatio: r3(peakRatio),
      peakTarget: PEAK_TARGET,
      daemonIdleRssBytes: idleMemory.daemon.rss,
      baselineIdleRssBytes: idleMemory.baseline.rss,
    },
    loadAvg: { start: round(load, 2), end: round(os.loadavg()[0]!, 2) },
  };
}

/**
 * Which parts run: BENCH_PARTS, a comma list of relay (1-3 above), webhook, fork, cli, mcp,
 * targets, control, ledger, launch and logs; default all. 4. webhook throughput (tests/bench/webhook.ts); 5. the fork's
 * world copy next to `cp -r` (tests/bench/fork-copy.ts); 6. targets (tests/bench/targets.ts);
 * 7. control (tests/bench/control.ts).
 */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'relay,webhook,fork,cli,mcp,targets,control,ledger,launch,logs').split(',').map((p) => p.trim()));

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`mcbridge bench: node ${process.version}, ${os.cpus().length} cpus (${os.cpus()[0]?.model ?? '?'}), ${process.platform} ${process.arch}`);
  const summary: Record<string, unknown> = {};
  if (PARTS.has('relay')) Object.assign(summary, await relayBench());
  if (PARTS.has('webhook')) summary.webhook = await webhookPart(envInt('BENCH_WEBHOOK_EVENTS', 10_000), envInt('BENCH_WEBHOOK_ROUNDS', 5));
  if (PARTS.has('cli')) summary.cli = await cliColdPart(envInt('BENCH_CLI_ROUNDS', 15));
  if (PARTS.has('mcp')) summary.mcp = await mcpPart(envInt('BENCH_MCP_ROUNDS', 7), envInt('BENCH_MCP_LISTS', 50));
  if (PARTS.has('targets')) {
    summary.targets = await targetsPart({
      events: envInt('BENCH_TARGETS_EVENTS', 96_000),
      rounds: envInt('BENCH_TARGETS_ROUNDS', 5),
      subscribers: envInt('BENCH_TARGETS_SUBSCRIBERS', 4),
      calls: envInt('BENCH_TARGETS_CALLS', 3_000),
      rate: envInt('BENCH_TARGETS_RATE', 1_000),
      nodeArgs: DAEMON_NODE_ARGS,
    });
  }
  if (PARTS.has('control')) {
    summary.control = await controlPart({
      calls: envInt('BENCH_CONTROL_CALLS', 3_000),
      bursts: envInt('BENCH_CONTROL_BURSTS', 300),
      concurrency: envInt('BENCH_CONTROL_CONCURRENCY', 32),
      nodeArgs: DAEMON_NODE_ARGS,
    });
  }
  if (PARTS.has('ledger')) summary.ledger = await ledgerPart({ calls: envInt('BENCH_LEDGER_CALLS', 2_000), bursts: envInt('BENCH_LEDGER_BURSTS', 100) });
  if (PARTS.has('launch')) summary.launch = await launchPart(envInt('BENCH_LAUNCH_ROUNDS', 15));
  if (PARTS.has('logs')) summary.logCapture = await logCapturePart(envInt('BENCH_LOG_LINES', 200_000), envInt('BENCH_LOG_ROUNDS', 5));
  if (PARTS.has('fork')) summary.forkCopy = await forkCopyPart(envInt('BENCH_WORLD_BYTES', 1.1e9), envInt('BENCH_FORK_ROUNDS', 5));
  const seconds = (performance.now() - started) / 1000;
  console.log(`finished in ${fmtNum(seconds, 1)} s, load average now ${os.loadavg()[0]!.toFixed(2)}`);
  console.log(`\nEvery figure with a target (docs/performance.md), node ${process.version}:\n${markdownSummary()}\n`);
  console.log(JSON.stringify({ ...summary, node: process.version, cpus: os.cpus().length, platform: `${process.platform}-${process.arch}`, seconds: round(seconds, 1) }));
}

main().then(
  () => {
    killAll();
    process.exit(0);
  },
  async (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await delay(300); // a dying child's exit may be reported just after the error it caused
    for (const why of unexpectedExits) process.stderr.write(`${why}\n`);
    killAll();
    process.exit(1);
  },
);
