/**
 * The write ledger against a legacy mod that answers huge outputs (issue 35, items 2 and 3): the
 * ledger stays bounded in bytes, said in `status`, and a resent id is still answered, honestly
 * cut; an id reused for another payload is a `conflict` and nothing is sent.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ModLink } from '../../core/host/link/mod-link.js';
import { LEDGER_BYTES } from '../../core/host/link/writes.js';
import { silentLogger } from '../../core/util/log.js';
import { failure } from '../support/errors.js';
import { ScriptedMod } from '../support/scripted-mod.js';
import { builtinVerbs } from '../support/verbs.js';
import { waitUntil } from '../support/wait-until.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const OUTPUT_BYTES = 1024 * 1024;

/** A mod whose every CMD answers a MiB of output, and MARK a mark_ack. */
async function hugeAnswers() {
  const mod = await ScriptedMod.start({
    respond: (line) => {
      if (line.startsWith('CMD ')) return [{ line: { type: 'cmd_ack', millis: 1, detail: line.slice(4), output: [`${line}:${'o'.repeat(OUTPUT_BYTES)}`] } }];
      if (line.startsWith('MARK ')) return [{ line: { type: 'mark_ack', millis: 1, detail: line.slice(5) } }];
      return undefined;
    },
  });
  const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {} });
  link.start();
  cleanups.push(
    () => mod.stop(),
    () => link.stop(),
  );
  await waitUntil(() => link.connected, 5_000, 'the link to be ready');
  return { mod, link };
}

const sentCmds = (mod: ScriptedMod) => mod.received.filter((l) => l.startsWith('CMD ')).length;

describe('the write ledger of a legacy link, answered in MiB', () => {
  it('64 writes of 1 MiB each: the ledger holds kilobytes (said in status), and every resent id is answered, said to be cut', async () => {
    const { mod, link } = await hugeAnswers();
    const firsts = [];
    for (let n = 0; n < 64; n++) firsts.push(await link.request(`CMD say ${n}`, { requestId: `big-${n}` }));
    expect(sentCmds(mod)).toBe(64);
    const writes = link.status().writes!;
    expect(writes.tracked).toBe(64);
    // Whole, these answers are 64 MiB; kept, a few hundred bytes each.
    expect(writes.bytes).toBeLessThan(64 * 2048);
    expect(writes.bytes).toBeLessThan(LEDGER_BYTES);
    for (const n of [0, 63]) {
      const again = await link.request(`CMD say ${n}`, { requestId: `big-${n}` });
      const json = JSON.stringify(firsts[n]);
      expect(again).toMatchObject({
        type: 'cmd_ack',
        detail: `say ${n}`,
        duplicate: true,
        requestId: `big-${n}`,
        truncated: true,
        originalBytes: Buffer.byteLength(json),
        sha256: createHash('sha256').update(json).digest('hex'),
      });
      expect(again.output).toBeUndefined();
    }
    expect(sentCmds(mod)).toBe(64); // no resend ran again
  });

  it("a command reusing a mark's id is a conflict and is not sent; the mark resent is its duplicate", async () => {
    const { mod, link } = await hugeAnswers();
    await link.request('MARK before', { requestId: 'same-1' });
    const err = await failure(link.request('CMD summon minecraft:pig 0 64 0', { requestId: 'same-1' }));
    expect(err.code).toBe('conflict');
    expect(err.message).toMatch(/new request id/);
    expect(err.outcome).toEqual({ retryable: false, resultUnknown: false, requestId: 'same-1' });
    expect(sentCmds(mod)).toBe(0);
    expect(await link.request('MARK before', { requestId: 'same-1' })).toMatchObject({ type: 'mark_ack', duplicate: true });
  });
});
