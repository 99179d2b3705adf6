import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { announcedPort, BIN, type CallServer, HOP_JS, measureCalls, summarize, waitLinked } from './calls.js';
import { lines } from './child-main.js';
import { freePort, guard, readCpuMs, spawnChild, stopChild, withTimeout, type Child } from './children.js';
import { fmtInt, fmtNum, median, printTable, round } from './stats.js';

/**
 * Part `control` of `npm run bench` (docs/control.md, docs/performance.md#control-protocol):
 * `state` through the local API, one simulated mod (`mcbridge sim --control`, a child process)
 * serving four processes in the middle at once, measured in alternating blocks:
 *
 *  - a daemon over the legacy link (the loopback JSON-lines socket: today's path);
 *  - a daemon over the control link (TLS, length-prefixed frames, request ids);
 *  - the zero-work hop (hop.ts) on the sim's legacy port: the legacy floor;
 *  - the zero-work TLS hop (tls-hop.ts) on the sim's control port: the floor for any process
 *    that speaks control protocol 1, the daemon's control figures are taken against it.
 *
 * Then many in flight: bursts of 32 `state` calls written at once on one API connection, to each
 * daemon in alternating blocks. Over control they go out together, matched by request id; over
 * legacy the daemon sends them one at a time. The sim is idle: no events but the calls' own.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const TLS_HOP_JS = path.join(here, 'tls-hop.js');
/** The call target of issue 14 (a call ≤ 1.15x the zero-work hop's p50), held to the control floor. */
export const CONTROL_P50_TARGET = 1.15;
const BURST_BLOCK = 25;
const WARMUP_BURSTS = 50;

export interface ControlBenchOptions {
  /** Measured sequential `state` calls per side. */
  calls: number;
  /** Measured bursts per daemon. */
  bursts: number;
  /** Calls per burst. */
  concurrency: number;
  nodeArgs: string[];
}

interface SimChild {
  child: Child;
  legacyPort: number;
  address: string;
  pin: string;
  tokenFile: string;
}

/** `mcbridge sim --control` prints its legacy port (JSON), then `control: <address> <pin>` and `token: <token>`. */
async function startSim(dir: string): Promise<SimChild> {
  const child = spawnChild('sim', [BIN, 'sim', '--control', '--port', '0', '--dir', dir, '--log-level', 'warn']);
  const out = await guard(
    child,
    withTimeout(
      new Promise<string[]>((resolve) => {
        const got: string[] = [];
        child.proc.stdout!.setEncoding('utf8');
        child.proc.stdout!.on(
          'data',
          lines((line) => {
            got.push(line);
            if (got.length === 3) resolve(got);
          }),
        );
      }),
      20_000,
      'the sim announcing its ports and token',
    ),
  );
  const legacyPort = (JSON.parse(out[0]!) as { port: number }).port;
  const [, address, pin] = out[1]!.split(' ');
  const token = out[2]!.startsWith('token: ') ? out[2]!.slice('token: '.length) : '';
  if (!address || !pin || !token) throw new Error(`the sim's control lines are not as expected: ${JSON.stringify(out.slice(1))}`);
  const tokenFile = path.join(dir, 'bench.token');
  writeFileSync(tokenFile, `${token}\n`);
  chmodSync(tokenFile, 0o600);
  return { child, legacyPort, address, pin, tokenFile };
}

async function startDaemonOn(side: string, nodeArgs: string[], link: string[], what: string): Promise<CallServer> {
  const apiPort = await freePort();
  const child = spawnChild(side, [...nodeArgs, BIN, 'run', '--no-config', ...link, '--api-port', String(apiPort), '--log-level', 'warn']);
  await waitLinked(child, apiPort, what);
  return { side, child, apiPort };
}

async function startHopOn(side: string, args: string[]): Promise<CallServer> {
  const child = spawnChild(side, args);
  return { side, child, apiPort: await announcedPort(child) };
}

// ---- many in flight ------------------------------------------------------------------------

/** One API connection that writes a burst of `state` calls at once and counts the replies. */
class Burster {
  private expected = 0;
  private done: (() => void) | null = null;
  errors = 0;
  firstError?: string;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on(
      'data',
      lines((line) => {
        if (!line.startsWith('{"type":"response"') || !line.includes('"ok":true')) {
          this.errors += 1;
          this.firstError ??= line.slice(0, 300);
        }
        this.expected -= 1;
        if (this.expected === 0) this.done?.();
      }),
    );
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<Burster> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('connect', () => resolve(new Burster(socket)));
    });
  }

  /** Resolves with the burst's wall time in ms, from the write to its last reply. */
  burst(n: number, firstId: number): Promise<number> {
    const text = Array.from({ length: n }, (_, i) => `{"id":${firstId + i},"method":"state"}\n`).join('');
    return new Promise((resolve) => {
      const t0 = performance.now();
      this.expected = n;
      this.done = () => resolve(performance.now() - t0);
      this.socket.write(text);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

interface BurstSample {
  ms: number[];
  cpuMs: number;
  errors: number;
  firstError?: string;
}

async function measureBursts(daemons: CallServer[], bursts: number, concurrency: number): Promise<Map<string, BurstSample>> {
  const samples = new Map<string, BurstSample>(daemons.map((d) => [d.side, { ms: [], cpuMs: 0, errors: 0 }]));
  const clients = new Map<string, Burster>();
  let id = 1;
  for (const d of daemons) {
    const client = await guard(d.child, Burster.connect(d.apiPort));
    clients.set(d.side, client);
    for (let i = 0; i < WARMUP_BURSTS; i += 1, id += concurrency) await guard(d.child, withTimeout(client.burst(concurrency, id), 30_000, `a warm-up burst on the ${d.side}`));
  }
  for (let done = 0, b = 0; done < bursts; done += BURST_BLOCK, b += 1) {
    const order = b % 2 === 0 ? daemons : [...daemons].reverse();
    for (const d of order) {
      const sample = samples.get(d.side)!;
      const client = clients.get(d.side)!;
      const cpu0 = readCpuMs(d.child.proc.pid);
      for (let i = 0; i < Math.min(BURST_BLOCK, bursts - done); i += 1, id += concurrency) {
        sample.ms.push(await guard(d.child, withTimeout(client.burst(concurrency, id), 30_000, `a burst of ${concurrency} on the ${d.side}`)));
      }
      const cpu1 = readCpuMs(d.child.proc.pid);
      if (cpu0 !== null && cpu1 !== null) sample.cpuMs += cpu1 - cpu0;
    }
  }
  for (const d of daemons) {
    const client = clients.get(d.side)!;
    Object.assign(samples.get(d.side)!, { errors: client.errors, firstError: client.firstError });
    client.close();
  }
  return samples;
}

// ---- the part ------------------------------------------------------------------------------

const LEGACY = 'daemon (legacy)';
const CONTROL = 'daemon (control)';
const HOP = 'zero-work hop';
const TLS_HOP = 'zero-work TLS hop';

export async function controlPart(options: ControlBenchOptions): Promise<Record<string, unknown>> {
  const { calls, bursts, concurrency, nodeArgs } = options;
  console.log(
    `\ncontrol: one sim (legacy port and control over TLS), ${fmtInt(calls)} sequential state calls per side after 3,000 of warm-up, ` +
      `blocks of 500 alternating over: ${[LEGACY, CONTROL, HOP, TLS_HOP].join(', ')}; then ${fmtInt(bursts)} bursts of ${concurrency} calls at once per daemon`,
  );
  const load = os.loadavg()[0]!;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-control-'));
  const children: Child[] = [];
  try {
    const sim = await startSim(dir);
    children.push(sim.child);
    const legacy = await startDaemonOn(LEGACY, nodeArgs, ['--mod-port', String(sim.legacyPort)], 'the sim');
    children.push(legacy.child);
    const control = await startDaemonOn(CONTROL, nodeArgs, ['--transport', 'control', '--address', sim.address, '--pin', sim.pin, '--token-file', sim.tokenFile], "the sim's control listener");
    children.push(control.child);
    const hop = await startHopOn(HOP, [HOP_JS, String(sim.legacyPort)]);
    children.push(hop.child);
    const tlsHop = await startHopOn(TLS_HOP, [TLS_HOP_JS, sim.address, sim.pin, sim.tokenFile]);
    children.push(tlsHop.child);

    const samples = await measureCalls([legacy, control, hop, tlsHop], calls);
    const burstSamples = await measureBursts([legacy, control], bursts, concurrency);
    const stderr = [legacy, control].map((d) => [d.side, d.child.stderr.trim()] as const).filter(([, s]) => s !== '');
    return report(samples, burstSamples, options, load, stderr);
  } finally {
    await Promise.all(children.reverse().map((c) => stopChild(c)));
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(
  samples: Map<string, Parameters<typeof summarize>[0]>,
  burstSamples: Map<string, BurstSample>,
  options: ControlBenchOptions,
  load: number,
  stderr: ReadonlyArray<readonly [string, string]>,
): Record<string, unknown> {
  const lat = new Map([...samples].map(([side, s]) => [side, summarize(s)]));
  const [l, c, h, t] = [LEGACY, CONTROL, HOP, TLS_HOP].map((side) => lat.get(side)!) as [
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
  ];
  const div = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : null);
  const ratio = (v: number | null) => (v === null ? 'n/a' : fmtNum(v, 2));
  const us = (v: number) => fmtNum(v, 0);
  const errors = [...lat.values()].reduce((n, s) => n + s.errors, 0);
  const p50Floor = div(c.p50, t.p50);
  const verdict = errors > 0 ? `FAIL (${errors} bad replies)` : p50Floor === null ? 'n/a' : p50Floor <= CONTROL_P50_TARGET ? 'PASS' : 'MISS';

  const burst = (side: string) => {
    const s = burstSamples.get(side)!;
    const total = s.ms.reduce((a, b) => a + b, 0);
    const n = s.ms.length * options.concurrency;
    return { callsPerSec: total > 0 ? (n * 1000) / total : Number.NaN, p50Ms: median(s.ms), cpuUsPerCall: n > 0 ? (s.cpuMs * 1000) / n : Number.NaN, errors: s.errors, firstError: s.firstError };
  };
  const bl = burst(LEGACY);
  const bc = burst(CONTROL);
  const burstErrors = bl.errors + bc.errors;

  const vsFloor: string[][] = [
    ['state p50 us, daemon over control', us(c.p50), us(t.p50), ratio(p50Floor), `<= ${CONTROL_P50_TARGET}`, verdict],
    ['state p90 us, daemon over control', us(c.p90), us(t.p90), ratio(div(c.p90, t.p90)), 'info', ''],
    ['CPU us per state call, daemon over control', us(c.cpuUsPerCall), us(t.cpuUsPerCall), ratio(div(c.cpuUsPerCall, t.cpuUsPerCall)), 'info', ''],
  ];
  const inFlight = `${options.concurrency} in flight`;
  const vsLegacy: string[][] = [
    ['state p50 us', us(c.p50), us(l.p50), ratio(div(c.p50, l.p50)), 'info', ''],
    ['state p90 us', us(c.p90), us(l.p90), ratio(div(c.p90, l.p90)), 'info', ''],
    ['daemon CPU us per state call', us(c.cpuUsPerCall), us(l.cpuUsPerCall), ratio(div(c.cpuUsPerCall, l.cpuUsPerCall)), 'info', ''],
    [`${inFlight}: state calls/s`, fmtInt(bc.callsPerSec), fmtInt(bl.callsPerSec), ratio(div(bc.callsPerSec, bl.callsPerSec)), 'info', burstErrors > 0 ? `FAIL (${burstErrors} bad replies)` : ''],
    [`${inFlight}: a burst's p50 ms`, fmtNum(bc.p50Ms, 2), fmtNum(bl.p50Ms, 2), ratio(div(bc.p50Ms, bl.p50Ms)), 'info', ''],
    [`${inFlight}: daemon CPU us per call`, us(bc.cpuUsPerCall), us(bl.cpuUsPerCall), ratio(div(bc.cpuUsPerCall, bl.cpuUsPerCall)), 'info', ''],
  ];
  const wire: string[][] = [
    ['state p50 us, zero-work TLS hop', us(t.p50), us(h.p50), ratio(div(t.p50, h.p50)), 'info', ''],
    ['state p90 us, zero-work TLS hop', us(t.p90), us(h.p90), ratio(div(t.p90, h.p90)), 'info', ''],
    ['state p50 us, daemon over legacy', us(l.p50), us(h.p50), ratio(div(l.p50, h.p50)), 'info', ''],
  ];
  console.log('');
  printTable(['metric', 'control', 'zero-work TLS hop', 'ratio', 'target', 'verdict'], vsFloor);
  console.log('');
  printTable(['metric', 'control', 'daemon over legacy', 'ratio', 'target', 'verdict'], vsLegacy);
  console.log('');
  printTable(['metric', 'measured', 'zero-work hop', 'ratio', 'target', 'verdict'], wire);
  console.log('');
  for (const [side, s] of lat) if (s.firstError) console.log(`state call error (${side}), first: ${s.firstError}`);
  for (const [side, b] of [
    [LEGACY, bl],
    [CONTROL, bc],
  ] as const) {
    if (b.firstError) console.log(`burst error (${side}), first: ${b.firstError}`);
  }
  for (const [side, s] of stderr) console.log(`${side} stderr (last lines):\n${s.split('\n').slice(-5).join('\n')}`);
  console.log(`load average at the start of the control part ${load.toFixed(2)}, at its end ${os.loadavg()[0]!.toFixed(2)}`);

  const latJson = (s: ReturnType<typeof summarize>) => ({ p50Us: round(s.p50, 1), p90Us: round(s.p90, 1), p99Us: round(s.p99, 1), cpuUsPerCall: round(s.cpuUsPerCall, 1), errors: s.errors });
  const burstJson = (b: ReturnType<typeof burst>) => ({ callsPerSec: round(b.callsPerSec, 0), burstP50Ms: round(b.p50Ms, 2), cpuUsPerCall: round(b.cpuUsPerCall, 1), errors: b.errors });
  const r3 = (v: number | null) => (v === null ? null : round(v, 3));
  return {
    calls: options.calls,
    legacy: latJson(l),
    control: latJson(c),
    hop: latJson(h),
    tlsHop: latJson(t),
    p50RatioToTlsHop: r3(p50Floor),
    p50RatioToLegacy: r3(div(c.p50, l.p50)),
    p50Target: CONTROL_P50_TARGET,
    inFlight: { concurrency: options.concurrency, bursts: options.bursts, legacy: burstJson(bl), control: burstJson(bc), ratio: r3(div(bc.callsPerSec, bl.callsPerSec)) },
    loadAvg: { start: round(load, 2), end: round(os.loadavg()[0]!, 2) },
  };
}
