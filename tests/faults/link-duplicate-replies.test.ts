/**
 * Replies carry no ids: a mod that answers twice, or sends a reply nobody asked for, must not
 * shift every later caller onto the previous caller's answer (docs/decisions.md, "A reply sent
 * twice").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ModLink } from '../../core/host/link/mod-link.js';
import { silentLogger } from '../../core/util/log.js';
import { ScriptedMod, type ScriptedConnection, type ScriptedModOptions } from '../support/scripted-mod.js';
import { builtinVerbs } from '../support/verbs.js';
import { waitUntil } from '../support/wait-until.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function linkTo(options: ScriptedModOptions) {
  const mod = await ScriptedMod.start(options);
  const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {} });
  link.start();
  cleanups.push(
    () => mod.stop(),
    () => link.stop(),
  );
  await waitUntil(() => link.connected, 5_000, 'the link to be ready');
  return { mod, link };
}

const ack = (line: string) => ({ type: 'cmd_ack', millis: Date.now(), detail: line.slice('CMD '.length), output: [] });

/**
 * A mod that answers every CMD twice:
 * - `together`: the copy right after the reply (the scripted mod, like a Java socket, does not
 *   disable Nagle, so the copy often trails by a delayed ACK and arrives after the next request
 *   went out);
 * - `late`: the copy of the previous reply just before the next reply, so it arrives while the
 *   next request of the same verb is waiting (the hard case).
 * `delayMs` makes some commands slow (the server thread), copy included.
 */
function answersTwice(how: 'together' | 'late', delayMs: (line: string) => number = () => 0): ScriptedModOptions {
  const previous = new Map<ScriptedConnection, Record<string, unknown>>();
  return {
    respond: (line, conn) => {
      if (!line.startsWith('CMD ')) return undefined;
      const reply = ack(line);
      if (how === 'together')
        return [
          { line: reply, delayMs: delayMs(line) },
          { line: reply, delayMs: delayMs(line) },
        ];
      const copy = previous.get(conn);
      previous.set(conn, reply);
      return copy ? [{ line: copy }, { line: reply }] : [{ line: reply }];
    },
  };
}

const commands = Array.from({ length: 40 }, (_, i) => `CMD say call ${i}`);

describe('a mod that answers twice', () => {
  for (const how of ['together', 'late'] as const) {
    it(`${how}: 40 commands in a row each get their own reply, and the copies are counted`, async () => {
      const { link } = await linkTo(answersTwice(how));
      for (const command of commands) {
        const reply = await link.request(command);
        expect(reply.detail).toBe(command.slice(4));
      }
      // `late` never sends the copy of the last reply: no request follows it.
      const copies = how === 'together' ? 40 : 39;
      await waitUntil(() => link.stats.duplicateReplies === copies, 5_000, `${copies} copies counted`);
      expect(link.stats.strayReplies).toBe(copies);
      expect(link.status().doubleAnswering).toBe(true);
    });

    it(`${how}: 40 commands at once each get their own reply`, async () => {
      const { link } = await linkTo(answersTwice(how));
      const replies = await Promise.all(commands.map((c) => link.request(c)));
      expect(replies.map((r) => r.detail)).toEqual(commands.map((c) => c.slice(4)));
      expect(link.stats.duplicateReplies).toBeGreaterThanOrEqual(39);
    });
  }
});

describe('a mod that answers twice, with slow verbs', () => {
  it("the first copy is kept back until the next request's own reply shows it is one", async () => {
    const { link } = await linkTo(answersTwice('together', () => 200));
    for (const command of commands.slice(0, 4)) {
      await expect(link.request(command)).resolves.toMatchObject({ detail: command.slice(4) });
    }
    expect(link.stats.duplicateReplies).toBeGreaterThanOrEqual(3);
  });

  it('once a copy was seen, a slow request is never handed the copy of a quick one before it', async () => {
    const { link } = await linkTo(answersTwice('together', (line) => (line.includes('slow') ? 300 : 0)));
    await link.request('CMD say first');
    await waitUntil(() => link.stats.duplicateReplies === 1, 5_000, 'the first copy, with nothing in flight');
    for (let i = 0; i < 3; i++) {
      await expect(link.request(`CMD say quick ${i}`)).resolves.toMatchObject({ detail: `say quick ${i}` });
      await expect(link.request(`CMD say slow ${i}`)).resolves.toMatchObject({ detail: `say slow ${i}` });
    }
    expect(link.status().doubleAnswering).toBe(true);
  });
});

describe('a reply nobody asked for', () => {
  it('with nothing in flight: dropped and counted, and the next request gets its own', async () => {
    const { link, mod } = await linkTo({});
    mod.broadcast({ type: 'state', millis: Date.now(), tick: 99 });
    await waitUntil(() => link.stats.strayReplies === 1, 5_000, 'the stray reply to be counted');
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state', tick: 1 });
    expect(link.stats.duplicateReplies).toBe(0);
  });

  it('in the same read as a reply, with the next request of its type queued: not handed to it', async () => {
    const { link } = await linkTo({
      respond: (line) => {
        if (line === 'CMD say first') return [{ line: `${JSON.stringify(ack(line))}\n${JSON.stringify(ack('CMD unsolicited'))}` }];
        return line.startsWith('CMD ') ? [{ line: ack(line) }] : undefined;
      },
    });
    const [first, second] = await Promise.all([link.request('CMD say first'), link.request('CMD say second')]);
    expect(first.detail).toBe('say first');
    expect(second.detail).toBe('say second');
    expect(link.stats.strayReplies).toBe(1);
  });

  it('a second copy of an earlier reply, with nothing in flight: dropped and counted as a duplicate', async () => {
    const { link, mod } = await linkTo({ respond: (line) => (line === 'STATE' ? [{ line: { type: 'state', millis: 5, tick: 5 } }] : undefined) });
    const reply = await link.request('STATE');
    mod.broadcast(reply);
    await waitUntil(() => link.stats.strayReplies === 1, 5_000, 'the copy to be dropped');
    expect(link.stats.duplicateReplies).toBe(1);
  });
});
