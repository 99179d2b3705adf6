import { afterEach, describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../core/daemon/builtins.js';
import { missingCaps, normalizeCaps } from '../../core/host/link/caps.js';
import { resolveVerb, splitVerb } from '../../core/host/link/verbs.js';
import { CLIENT_CAPABILITIES, SERVER_CAPABILITIES, startSim, type SimulatedMod } from '../../core/sim/index.js';
import { LineClient } from '../support/line-client.js';
import { builtinVerbs } from '../support/verbs.js';

/**
 * Every verb a built-in plugin declares, sent to the simulated mod on each vantage that
 * advertises what the verb requires, must be answered with one of the declared reply types:
 * then a harness developed against the sim meets the reply types the link expects from the mod.
 *
 * A sensible request line for each verb, in an order a fresh sim accepts: the client opens a
 * world first (CHAT and LAN need one) and joins a server last (LAN needs single player).
 */
const SAMPLES: Record<string, string[]> = {
  WORLD: ['WORLD New World'],
  CAPS: ['CAPS'],
  STATE: ['STATE'],
  PLAYER: ['PLAYER Steve'],
  ENTITIES: ['ENTITIES', 'ENTITIES 16'],
  CMD: ['CMD time query daytime'],
  CONTEXT: ['CONTEXT', 'CONTEXT ctx-unknown'],
  MARK: ['MARK declared verbs'],
  SNAPSHOT: ['SNAPSHOT', 'SNAPSHOT 0 declared-verbs'],
  SNAPSHOTS: ['SNAPSHOTS'],
  WAIT: ['WAIT 0', 'WAIT 2'],
  LAN: ['LAN'],
  CHAT: ['CHAT hello'],
  SCREEN: ['SCREEN'],
  SAMPLE_START: ['SAMPLE_START 20 16.0 1'],
  SAMPLE_STOP: ['SAMPLE_STOP'],
  CONNECT: ['CONNECT 127.0.0.1:25565'],
};

const VANTAGES = [
  { vantage: 'server', caps: normalizeCaps(SERVER_CAPABILITIES)! },
  { vantage: 'client', caps: normalizeCaps(CLIENT_CAPABILITIES)! },
] as const;

const lookup = builtinVerbs();
// Verbs of the control protocol alone (leases, request_status) never go over this legacy socket: tests/sim/control covers them.
const declared = [...new Set(builtinPlugins.flatMap((p) => Object.keys(p.verbs ?? {})))].filter((verb) => resolveVerb(`${verb} {}`, lookup).legacy);

/** The sample lines a vantage can answer: those whose verb's CAPS it advertises. */
function linesFor(caps: ReadonlySet<string>): string[] {
  return Object.values(SAMPLES)
    .flat()
    .filter((line) => missingCaps(caps, resolveVerb(line, lookup).requires).length === 0);
}

const open: Array<{ sim: SimulatedMod; client: LineClient }> = [];
afterEach(async () => {
  for (const { sim, client } of open.splice(0)) {
    client.close();
    await sim.stop();
  }
});

describe('the verbs the built-in plugins declare, against the simulated mod', () => {
  it('has a sample line for every declared verb, and each is sent on some vantage', () => {
    expect(
      declared.filter((verb) => !(verb in SAMPLES)),
      'add a sample line for these verbs to SAMPLES',
    ).toEqual([]);
    const sent = new Set(VANTAGES.flatMap(({ caps }) => linesFor(caps).map((line) => splitVerb(line).verb)));
    expect(
      declared.filter((verb) => !sent.has(verb)),
      'declared verbs that no vantage advertises the CAPS of',
    ).toEqual([]);
  });

  for (const { vantage, caps } of VANTAGES) {
    it(`the ${vantage} vantage answers each with a declared reply type`, async () => {
      const sim = await startSim({ port: 0, vantage, ...(vantage === 'client' ? { inWorld: false } : {}) });
      const { client } = await LineClient.open(sim.port);
      open.push({ sim, client });
      const wrong: string[] = [];
      for (const line of linesFor(caps)) {
        const { replies } = resolveVerb(line, lookup);
        const reply = await client.request(line, 5_000);
        if (!replies.includes(reply.type)) wrong.push(`'${line}' got ${JSON.stringify(reply).slice(0, 160)}, declared [${replies.join(', ')}]`);
      }
      expect(wrong).toEqual([]);
    });
  }
});
