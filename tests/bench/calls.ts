import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FloodMod } from './flood-mod.js';
import { mean, median, percentile } from './stats.js';
import { RpcClient } from './subscriber.js';
import { delay, freePort, guard, oneCall, readCpuMs, repoRoot, spawnChild, stopChild, withTimeout, type Child } from './children.js';

/**
 * The call figures: sequential `state` calls, client → process in the middle → mod → back,
 * through the daemon and through the zero-work hop (hop.ts), in alternating blocks; and the
 * bytes each process allocates per call, counted with heap-probe.ts.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
export const BIN = path.join(repoRoot, 'bin', 'mcbridge.js');
export const HOP_JS = path.join(here, 'hop.js');
const PROBE_URL = pathToFileURL(path.join(here, 'heap-probe.js')).href;
const CALL_BLOCK = 500;
const WARMUP_CALLS = 3_000;

/** Which process serves the calls: 'daemon' and 'hop' here; the control part names four. */
export type Side = string;

/** A process that serves `state` calls on `apiPort`. */
export interface CallServer {
  side: Side;
  child: Child;
  apiPort: number;
}

/** A call server with the flood mod it talks to. */
export interface Server extends CallServer {
  mod: FloodMod;
}

export interface CallSample {
  us: number[];
  errors: number;
  firstError?: string;
  /** CPU the serving process used over the measured calls. */
  cpuMs: number;
}

export async function startDaemon(nodeArgs: string[], extra: string[] = []): Promise<Server> {
  const mod = await FloodMod.start();
  const apiPort = await freePort();
  const child = spawnChild('daemon', [...nodeArgs, BIN, 'run', '--mod-port', String(mod.port), '--api-port', String(apiPort), '--log-level', 'warn', ...extra]);
  await waitLinked(child, apiPort, 'the flood mod');
  return { side: 'daemon', child, mod, apiPort };
}

/** Ready when the daemon's API answers and its link to `what` is up. */
export async function waitLinked(child: Child, apiPort: number, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitedYet) await guard(child, new Promise(() => {}));
    try {
      const frame = await oneCall(apiPort, 'ping');
      if (frame.ok === true && (frame.result as { connected?: boolean } | undefined)?.connected === true) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the ${child.name} did not connect to ${what} within 20 s; its stderr:\n${child.stderr.trim() || '(empty)'}`);
    await delay(100);
  }
}

/** The port a raw-Node child (hop.js, baseline-relay.js, tls-hop.js) prints as {"port":N} once it listens. */
export function announcedPort(child: Child): Promise<number> {
  return guard(
    child,
    withTimeout(
      new Promise<number>((resolve) => {
        let out = '';
        child.proc.stdout!.setEncoding('utf8');
        child.proc.stdout!.on('data', (s: string) => {
          out += s;
          const nl = out.indexOf('\n');
          if (nl !== -1) resolve((JSON.parse(out.slice(0, nl)) as { port: number }).port);
        });
      }),
      10_000,
      `the ${child.name} announcing its port`,
    ),
  );
}

/** A raw-Node child (hop.js, baseline-relay.js) on a flood mod of its own. */
export async function startRawChild(name: string, script: string, nodeArgs: string[] = []): Promise<{ child: Child; mod: FloodMod; apiPort: number }> {
  const mod = await FloodMod.start();
  const child = spawnChild(name, [...nodeArgs, script, String(mod.port)]);
  const apiPort = await announcedPort(child);
  await guard(
    child,
    withTimeout(
      (async () => {
        while (mod.connections === 0) await delay(20);
      })(),
      10_000,
      `the ${name} connecting to its flood mod`,
    ),
  );
  return { child, mod, apiPort };
}

export async function startHop(nodeArgs: string[] = []): Promise<Server> {
  return { side: 'hop', ...(await startRawChild('hop', HOP_JS, nodeArgs)) };
}

export async function stopServer(server: Server): Promise<void> {
  await stopChild(server.child);
  await server.mod.stop();
}

/** The request line of `state` call `id`: `{"id":N,"method":"state"}` unless told otherwise (a target, say). */
export type StateLine = (id: number) => string;
const plainState: StateLine = (id) => `{"id":${id},"method":"state"}`;

export async function callLoop(server: { child: Child }, client: RpcClient, calls: number, sample: CallSample | null, nextId: { n: number }, line: StateLine = plainState): Promise<void> {
  for (let i = 0; i < calls; i += 1) {
    const id = nextId.n++;
    const { reply, us } = await guard(server.child, withTimeout(client.roundTrip(line(id)), 15_000, `the reply to state call ${id}`));
    if (!sample) continue;
    sample.us.push(us);
    let good = false;
    try {
      const frame = JSON.parse(reply) as Record<string, unknown>;
      good = frame.type === 'response' && frame.id === id && frame.ok === true && (frame.result as { type?: unknown })?.type === 'state';
    } catch {
      good = false;
    }
    if (!good) {
      sample.errors += 1;
      sample.firstError ??= reply.slice(0, 300);
    }
  }
}

/** `calls` sequential calls per side, in blocks that alternate which side goes first, after a warm-up. */
export async function measureCalls(servers: CallServer[], calls: number): Promise<Map<Side, CallSample>> {
  const samples = new Map<Side, CallSample>();
  const clients = new Map<Side, RpcClient>();
  const ids = new Map<Side, { n: number }>();
  for (const server of servers) {
    const client = await guard(server.child, RpcClient.connect(server.apiPort));
    clients.set(server.side, client);
    ids.set(server.side, { n: 1 });
    samples.set(server.side, { us: [], errors: 0, cpuMs: 0 });
    await callLoop(server, client, WARMUP_CALLS, null, ids.get(server.side)!);
  }
  for (let done = 0, b = 0; done < calls; done += CALL_BLOCK, b += 1) {
    const n = Math.min(CALL_BLOCK, calls - done);
    const order = b % 2 === 0 ? servers : [...servers].reverse();
    for (const server of order) {
      const sample = samples.get(server.side)!;
      const cpu0 = readCpuMs(server.child.proc.pid);
      await callLoop(server, clients.get(server.side)!, n, sample, ids.get(server.side)!);
      const cpu1 = readCpuMs(server.child.proc.pid);
      if (cpu0 !== null && cpu1 !== null) sample.cpuMs += cpu1 - cpu0;
    }
  }
  for (const client of clients.values()) client.close();
  return samples;
}

export function summarize(sample: CallSample) {
  return {
    p50: percentile(sample.us, 50),
    p90: percentile(sample.us, 90),
    p99: percentile(sample.us, 99),
    mean: mean(sample.us),
    errors: sample.errors,
    firstError: sample.firstError,
    cpuUsPerCall: sample.us.length > 0 ? (sample.cpuMs * 1000) / sample.us.length : Number.NaN,
  };
}

// ---- bytes allocated per call -------------------------------------------------------

/** Room for every call between two probes without a scavenge (MB per semi-space). */
const PROBE_SEMI_SPACE_MB = 64;
const PROBE_CALLS = 1_000;

function probe(child: Child): Promise<{ heap: number; young: number }> {
  return guard(
    child,
    withTimeout(
      new Promise((resolve) => {
        let out = '';
        const onData = (s: string) => {
          out += s;
          const m = /heap-probe (\d+) (-?\d+)\n/.exec(out);
          if (!m) return;
          child.proc.stderr!.off('data', onData);
          resolve({ heap: Number(m[1]), young: Number(m[2]) });
        };
        child.proc.stderr!.on('data', onData);
        child.proc.kill('SIGUSR2');
      }),
      5_000,
      `the ${child.name}'s heap probe`,
    ),
  );
}

/**
 * Heap bytes one `state` call allocates in the serving process: the heap's growth over
 * PROBE_CALLS calls, less what one probe itself costs, with no collection in between (the
 * young generation is made large enough). Null when a collection happened anyway.
 */
export async function bytesPerCall(start: (nodeArgs: string[]) => Promise<Server>): Promise<number | null> {
  const nodeArgs = [`--import=${PROBE_URL}`, `--min-semi-space-size=${PROBE_SEMI_SPACE_MB}`, `--max-semi-space-size=${PROBE_SEMI_SPACE_MB}`];
  const server = await start(nodeArgs);
  try {
    const client = await guard(server.child, RpcClient.connect(server.apiPort));
    const ids = { n: 1 };
    await callLoop(server, client, WARMUP_CALLS, null, ids);
    const perCall: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const a = await probe(server.child);
      await callLoop(server, client, PROBE_CALLS, null, ids);
      const b = await probe(server.child);
      const c = await probe(server.child);
      if (b.young < a.young || c.young < b.young) continue; // a scavenge ran: try again
      perCall.push((b.heap - a.heap - (c.heap - b.heap)) / PROBE_CALLS);
    }
    client.close();
    return perCall.length > 0 ? median(perCall) : null;
  } finally {
    await stopServer(server);
  }
}
