/**
 * Webhook throughput: a burst of N recorded events through the forwarder (the engine the daemon's
 * service and `mcbridge forward` run, logging at info as they do, to /dev/null) to a fast
 * loopback receiver, next to a minimal signed-POST loop (HMAC + http.request on a keep-alive
 * agent, one at a time) posting the same events to the same receiver. Rounds alternate which
 * side goes first; the median round counts. Target: forwarder ≤ 2 × baseline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Forwarder } from '../../plugins/webhook/forwarder.js';
import { fmtInt, fmtNum, median, printTable, round } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECRET = 'bench-webhook-secret-0123456789';
export const WEBHOOK_TARGET = 2;

export interface WebhookResult {
  events: number;
  rounds: number;
  forwarderMs: number[];
  baselineMs: number[];
  /** CPU the sending side (this process) used per round: steadier than wall time on a shared machine. */
  forwarderCpuMs: number[];
  baselineCpuMs: number[];
  /** Rounds where the receiver saw an event out of order or a bad signature (must stay empty). */
  problems: string[];
}

/** Events as the event log records them: ~200-byte chat and game events with seq, streamId and eventId. */
function recordedEvents(n: number, streamId: string): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const seq = i + 1;
    const chat = i % 4 === 3;
    return {
      type: chat ? 'chat' : 'advancement',
      category: chat ? 'chat' : 'game',
      event: true,
      millis: 1_700_000_000_000 + i,
      ...(chat ? { sender: 'Steve', text: `message ${i} from the bench, long enough to look like chat` } : { player: 'Alex', advancement: `minecraft:story/step_${i}` }),
      seq,
      streamId,
      eventId: `${streamId}:${seq}`,
      receivedAt: 1_700_000_000_000 + i,
    };
  });
}

class Receiver {
  private waiting: ((line: string) => void) | undefined;
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    lines: AsyncIterableIterator<string>,
  ) {
    void (async () => {
      for await (const line of lines) this.waiting?.(line);
    })();
  }

  static async start(): Promise<Receiver> {
    const child = spawn(process.execPath, [path.join(here, 'webhook-receiver.js'), SECRET], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done) throw new Error('the bench webhook receiver exited before listening');
    return new Receiver(child, (JSON.parse(first.value) as { port: number }).port, lines);
  }

  /** Arm for `n` requests; resolves with the receiver's `done` line once they all arrived. */
  expect(n: number): Promise<{ outOfOrder: number; badSignatures: number }> {
    const done = new Promise<{ outOfOrder: number; badSignatures: number }>((resolve) => {
      this.waiting = (line) => {
        const [, , outOfOrder, bad] = line.split(' ');
        resolve({ outOfOrder: Number(outOfOrder), badSignatures: Number(bad) });
      };
    });
    this.child.stdin!.write(`expect ${n}\n`);
    return done;
  }

  stop(): void {
    this.child.stdin!.end();
  }
}

/** The forwarder: hand it the whole burst at once, then wait until the receiver has every event. */
async function forwarderRound(receiver: Receiver, events: Record<string, unknown>[], log: pino.Logger): Promise<number> {
  const url = `http://127.0.0.1:${receiver.port}/hook`;
  const forwarder = new Forwarder({ receivers: [{ url, secret: SECRET, events: ['*'], queueSize: events.length, maxAttempts: 5, backoff: 1, maxBackoff: 30, timeout: 10 }] }, log);
  forwarder.start();
  const t0 = performance.now();
  for (const event of events) forwarder.handle({ kind: 'event', event: event as never });
  await forwarder.receivers[0]!.settled(events.length);
  const ms = performance.now() - t0;
  await forwarder.stop();
  return ms;
}

/** The baseline: the least a signed forwarder must do per event, sequentially, on one kept-alive connection. */
async function baselineRound(receiver: Receiver, events: Record<string, unknown>[]): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t0 = performance.now();
  for (const event of events) {
    const body = JSON.stringify(event);
    const ts = Math.floor(Date.now() / 1000);
    const signature = 'sha256=' + createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex');
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: receiver.port,
          path: '/hook',
          method: 'POST',
          agent,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            'X-MC-Agent-Signature': signature,
            'X-MC-Agent-Timestamp': String(ts),
            'X-MC-Agent-Event-Id': String(event.eventId),
          },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
  const ms = performance.now() - t0;
  agent.destroy();
  return ms;
}

export async function webhookBench(options: { events: number; rounds: number; report: (line: string) => void }): Promise<WebhookResult> {
  const receiver = await Receiver.start();
  const log = pino({ level: 'info', base: { pid: process.pid } }, pino.destination({ dest: '/dev/null', sync: true }));
  const result: WebhookResult = { events: options.events, rounds: options.rounds, forwarderMs: [], baselineMs: [], forwarderCpuMs: [], baselineCpuMs: [], problems: [] };
  try {
    const sides = {
      forwarder: (events: Record<string, unknown>[]) => forwarderRound(receiver, events, log),
      baseline: (events: Record<string, unknown>[]) => baselineRound(receiver, events),
    };
    const run = async (side: keyof typeof sides, events: Record<string, unknown>[], round: number) => {
      const arrived = receiver.expect(events.length);
      const cpu0 = process.cpuUsage();
      const ms = await sides[side](events);
      const cpu = process.cpuUsage(cpu0);
      const check = await arrived;
      if (check.outOfOrder > 0 || check.badSignatures > 0) result.problems.push(`round ${round} ${side}: ${check.outOfOrder} out of order, ${check.badSignatures} bad signatures`);
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
    };
    for (const side of ['forwarder', 'baseline'] as const) await run(side, recordedEvents(Math.min(1000, options.events), `warm${side}`), 0);
    for (let r = 1; r <= options.rounds; r += 1) {
      const order = r % 2 === 1 ? (['forwarder', 'baseline'] as const) : (['baseline', 'forwarder'] as const);
      for (const side of order) {
        const { ms, cpuMs } = await run(side, recordedEvents(options.events, `bench${r}${side}`), r);
        (side === 'forwarder' ? result.forwarderMs : result.baselineMs).push(ms);
        (side === 'forwarder' ? result.forwarderCpuMs : result.baselineCpuMs).push(cpuMs);
        options.report(`  webhook round ${r} ${side.padEnd(9)} ${Math.round(ms)} ms (${Math.round(options.events / (ms / 1000))} events/s), sender CPU ${Math.round(cpuMs)} ms`);
      }
    }
  } finally {
    receiver.stop();
  }
  return result;
}

/** Part 4 of `npm run bench`: runs the rounds, prints the table, returns the JSON summary's part. */
export async function webhookPart(events: number, rounds: number): Promise<Record<string, unknown>> {
  console.log('');
  console.log(
    `webhook: a burst of ${fmtInt(events)} events to a loopback receiver (a child process that checks order and signatures), ` +
      `forwarder vs a minimal signed-POST loop, ${rounds} rounds after a warm-up, alternating; median round counts`,
  );
  const r = await webhookBench({ events, rounds, report: (line) => process.stderr.write(`${line}\n`) });
  const f = median(r.forwarderMs);
  const b = median(r.baselineMs);
  const ratio = f / b;
  const verdict = r.problems.length > 0 ? `FAIL (${r.problems.join('; ')})` : ratio <= WEBHOOK_TARGET ? 'PASS' : 'MISS';
  printTable(
    ['metric', 'forwarder', 'baseline', 'ratio', 'target', 'verdict'],
    [
      ['burst delivered, ms (median)', fmtNum(f, 0), fmtNum(b, 0), fmtNum(ratio, 2), `<= ${WEBHOOK_TARGET}`, verdict],
      ['events/s', fmtInt(events / (f / 1000)), fmtInt(events / (b / 1000)), fmtNum(b / f, 2), '', ''],
      ['sender CPU ms per burst', fmtInt(median(r.forwarderCpuMs)), fmtInt(median(r.baselineCpuMs)), fmtNum(median(r.forwarderCpuMs) / median(r.baselineCpuMs), 2), 'info', ''],
    ],
  );
  return {
    events,
    rounds,
    forwarderMs: r.forwarderMs.map((ms) => round(ms, 0)),
    baselineMs: r.baselineMs.map((ms) => round(ms, 0)),
    forwarderCpuMs: r.forwarderCpuMs.map((ms) => round(ms, 0)),
    baselineCpuMs: r.baselineCpuMs.map((ms) => round(ms, 0)),
    ratio: round(ratio, 3),
    target: WEBHOOK_TARGET,
    pass: r.problems.length === 0 && ratio <= WEBHOOK_TARGET,
    problems: r.problems,
  };
}
