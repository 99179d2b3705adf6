/**
 * A mod that sends replies nobody asked for, while 60 calls run at once over a real daemon
 * process. Replies carry no ids on the legacy protocol (docs/protocol.md, "Replies nobody asked
 * for"): a stray reply of a type no outstanding request awaits must be dropped and counted in
 * `status`, never handed to a caller. One of exactly the type a request awaits cannot be told
 * apart; the last test measures that limit, so the docs' claim stays true.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';
import { CliProcesses } from '../support/cli-process.js';
import { startDaemonProcess } from '../support/daemon-process.js';

const sims: SimulatedMod[] = [];
const clients: ApiClient[] = [];
const processes = new CliProcesses();

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await processes.stopAll();
  for (const sim of sims.splice(0)) await sim.stop();
});

const STRAY_TICK = 987_654;

/** 60 calls at once (commands, marks, state reads); how many got an answer that was not theirs. */
async function sixtyCalls(client: ApiClient): Promise<{ wrong: string[]; failed: string[] }> {
  const wrong: string[] = [];
  const failed: string[] = [];
  const calls = Array.from({ length: 60 }, async (_, i) => {
    const [tool, args, own] =
      i % 3 === 0
        ? (['command', { command: `say call ${i}` }, (r: any) => r.detail === `say call ${i}`] as const)
        : i % 3 === 1
          ? (['mark', { text: `call ${i}` }, (r: any) => r.detail === `call ${i}`] as const)
          : (['state', {}, (r: any) => r.tick !== STRAY_TICK] as const);
    try {
      const result = await client.call(tool, args);
      if (!own(result)) wrong.push(`${tool} ${i}: ${JSON.stringify(result).slice(0, 120)}`);
    } catch (err) {
      failed.push(`${tool} ${i}: ${(err as Error).message}`);
    }
  });
  await Promise.all(calls);
  return { wrong, failed };
}

async function gameWithStrays(strays: Array<{ target: string; reply: Record<string, unknown> }>) {
  const sim = await startSim({ port: 0, autoTick: false, replyDelayMs: { CMD: 3, STATE: 3 } });
  sims.push(sim);
  const daemon = await startDaemonProcess(processes, ['--mod-port', String(sim.port)]);
  const client = await ApiClient.connect({ port: daemon.port });
  clients.push(client);
  // Armed once the daemon is ready, so its own start-up requests are answered cleanly.
  for (const { target, reply } of strays) sim.fault(target, { unsolicited: reply }, { times: 4 });
  return { sim, client };
}

const strayCount = async (client: ApiClient) => ((await client.call('status')) as any).link.stats.strayReplies as number;

describe('replies nobody asked for, during 60 calls at once', { timeout: 60_000 }, () => {
  it('of types no request awaits: every call gets its own answer; the strays are dropped and counted', async () => {
    const { client } = await gameWithStrays([
      { target: 'CMD', reply: { type: 'snapshots', snapshots: [] } },
      { target: 'MARK', reply: { type: 'context_stats', size: 0 } },
      { target: 'STATE', reply: { type: 'player', name: 'Stray' } },
      // An error that names a line nobody sent answers none of the requests in flight.
      { target: 'CMD', reply: { type: 'error', message: 'unknown command: NOT_SENT_BY_ANYONE' } },
      { target: 'MARK', reply: { type: 'error', message: 'unknown command: ALSO NOT SENT' } },
    ]);
    const { wrong, failed } = await sixtyCalls(client);
    expect(wrong).toEqual([]);
    expect(failed).toEqual([]);
    expect(await strayCount(client)).toBe(20);
  });

  it('of exactly the type a request awaits: the legacy protocol cannot tell them apart (the documented limit)', async () => {
    const { client } = await gameWithStrays([
      { target: 'STATE', reply: { type: 'state', tick: STRAY_TICK } },
      { target: 'CMD', reply: { type: 'cmd_ack', detail: 'stray', output: [] } },
    ]);
    const { wrong, failed } = await sixtyCalls(client);
    // Each stray is written just before the reply of a request that awaits its type and takes its
    // place; the displaced real reply is dropped, or taken by the next request of that type.
    expect(failed).toEqual([]);
    expect(wrong.length).toBeGreaterThan(0);
  });
});
