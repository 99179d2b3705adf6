/**
 * The mod restarts a hundred times while calls and events flow: the link reconnects each time,
 * every answer a call gets is its own (each reply names its request), and no descriptor or
 * memory is left behind per restart. Loopback only; bounded in restarts and calls.
 */
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../core/host/errors.js';
import { ModLink, type LinkState } from '../../core/host/link/mod-link.js';
import { silentLogger } from '../../core/util/log.js';
import { startSim } from '../../core/sim/index.js';
import { builtinVerbs } from '../support/verbs.js';
import { waitUntil } from '../support/wait-until.js';

const RESTARTS = 100;
const WORKERS = 4;
/** Answered calls between two restarts. */
const CALLS_PER_LIFE = 8;

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const openFds = () => readdirSync('/proc/self/fd').length;

/** Resolves when the link reaches `state` (at once if it is there). */
function whenState(link: ModLink, states: LinkState[]): Promise<void> {
  if (states.includes(link.status().state)) return Promise.resolve();
  return new Promise((resolve) => {
    const on = (state: LinkState) => {
      if (!states.includes(state)) return;
      link.off('state', on);
      resolve();
    };
    link.on('state', on);
  });
}

describe('the mod restarted a hundred times under load', () => {
  it('never crosses a reply, and leaves no descriptors or memory behind', async () => {
    // CMD runs on the sim's server thread (a little late); MARK answers at once and overtakes it.
    const sim = await startSim({ port: 0, autoTick: false, replyDelayMs: { CMD: 2 } });
    cleanups.push(() => sim.stop());
    let events = 0;
    const link = new ModLink({
      vantage: 'server',
      modPort: sim.port,
      verbs: builtinVerbs(),
      reconnectMinMs: 2,
      reconnectMaxMs: 10,
      log: silentLogger(),
      onEvent: () => (events += 1),
    });
    link.start();
    cleanups.push(() => link.stop());
    await whenState(link, ['ready']);

    const crossed: string[] = [];
    const failures = new Map<string, number>();
    let answered = 0;
    let wake: (() => void) | null = null;
    let running = true;

    async function worker(w: number): Promise<void> {
      for (let i = 0; running; i++) {
        await whenState(link, ['ready', 'stopped']);
        if (!running || link.status().state === 'stopped') return;
        const name = `w${w}-${i}`;
        const [line, expected] = i % 2 === 0 ? [`CMD say ${name}`, `say ${name}`] : [`MARK ${name}`, name];
        try {
          const reply = await link.request(line);
          if (reply.detail !== expected) crossed.push(`${line} got ${JSON.stringify(reply)}`);
          answered += 1;
          wake?.();
        } catch (err) {
          const code = (err as McbridgeError).code;
          failures.set(code, (failures.get(code) ?? 0) + 1);
          // A failure may come without I/O: let the event loop turn before the next call.
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    }

    /** Resolves once `count` more calls have been answered. */
    async function answers(count: number): Promise<void> {
      const target = answered + count;
      while (answered < target) await new Promise<void>((resolve) => (wake = resolve));
    }

    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
    let fdsBefore = 0;
    let rssBefore = 0;
    for (let r = 0; r < RESTARTS; r++) {
      await answers(CALLS_PER_LIFE);
      for (let e = 0; e < 20; e++) sim.emit({ type: 'game', millis: sim.millis(), text: `restart ${r} event ${e}` });
      if (r === 10) {
        // Past warm-up: module loading, pools and JIT are done.
        fdsBefore = openFds();
        rssBefore = process.memoryUsage().rss;
      }
      await sim.restart({ port: sim.port });
    }
    await answers(CALLS_PER_LIFE);
    running = false;
    await Promise.all(workers);

    expect(crossed).toEqual([]);
    // In-flight calls fail with not_connected when the mod goes; nothing else goes wrong.
    expect([...failures.keys()].filter((code) => code !== 'not_connected')).toEqual([]);
    expect(link.stats.connections).toBeGreaterThanOrEqual(RESTARTS + 1);
    // Events reach the link between restarts (some of each burst are lost with the connection).
    expect(events).toBeGreaterThan(RESTARTS * 5);
    await waitUntil(() => sim.connections === 1 && link.status().inFlight.length === 0, 5_000, 'one connection and nothing in flight');
    expect(link.status().owed).toEqual([]);
    expect(openFds()).toBeLessThanOrEqual(fdsBefore + 4);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
  });
});
