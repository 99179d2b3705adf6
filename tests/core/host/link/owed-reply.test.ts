/**
 * An abandoned request's reply stays owed until *its* reply (or an error) arrives: a stray reply
 * of another type in between must not free the slot, or the next request would get the old reply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ModLink, type ModMessage } from '../../../../core/host/link/mod-link.js';
import { silentLogger } from '../../../../core/util/log.js';
import { ScriptedMod, type ScriptedConnection } from '../../../support/scripted-mod.js';
import { builtinVerbs } from '../../../support/verbs.js';
import { waitUntil } from '../../../support/wait-until.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('an owed reply', () => {
  it('is freed only by a reply of its own type; a stray of another type is dropped and frees nothing', async () => {
    let held: ScriptedConnection | undefined;
    const mod = await ScriptedMod.start({
      respond: (line, conn) => {
        if (line === 'STATE') {
          held = conn; // answered by the test, late
          return [];
        }
        if (line === 'ENTITIES') return [{ line: { type: 'entities', entities: [], mine: true } }];
        if (line.startsWith('MARK')) return [{ line: { type: 'mark_ack', text: line.slice(5) } }];
        return undefined;
      },
    });
    cleanups.push(() => mod.stop());
    const events: ModMessage[] = [];
    const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: (e) => events.push(e) });
    link.start();
    cleanups.push(() => link.stop());
    await waitUntil(() => link.connected, 5_000, 'the link');

    await expect(link.request('STATE', { timeoutMs: 50 })).rejects.toMatchObject({ code: 'timeout' });
    // A stray reply of another type: dropped, and the state reply is still owed.
    held!.write({ type: 'entities', entities: [], stray: true });
    const next = link.request('ENTITIES');
    // A mark overtakes (its reply type is like no other outstanding one): once it is answered,
    // everything the mod sent before it has been read.
    await expect(link.request('MARK barrier')).resolves.toMatchObject({ type: 'mark_ack' });
    expect(held!.received).not.toContain('ENTITIES');
    expect(link.stats.strayReplies).toBeGreaterThanOrEqual(1);

    held!.write({ type: 'state', tick: 7 });
    await expect(next).resolves.toMatchObject({ type: 'entities', mine: true });
    expect(held!.received.filter((l) => l === 'ENTITIES')).toHaveLength(1);
    expect(link.stats.lateReplies).toBe(1);
  });

  it('holds back the main connection, but not a request sent on its own connection', async () => {
    let arrived!: () => void;
    const stateArrived = new Promise<void>((resolve) => (arrived = resolve));
    const mod = await ScriptedMod.start({
      respond: (line) => {
        if (line === 'STATE') {
          arrived();
          return []; // never answered
        }
        if (line.startsWith('CMD')) return [{ line: { type: 'cmd_ack', output: ['Game unfrozen'] } }];
        return undefined;
      },
    });
    cleanups.push(() => mod.stop());
    const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {} });
    link.start();
    cleanups.push(() => link.stop());
    await waitUntil(() => link.connected, 5_000, 'the link');
    const cancel = new AbortController();
    const hung = link.request('STATE', { signal: cancel.signal });
    await stateArrived;
    cancel.abort();
    await expect(hung).rejects.toMatchObject({ code: 'cancelled' });
    const queued = link.request('CMD tick query', { timeoutMs: 200 });
    await expect(link.request('CMD tick unfreeze', { ownConnection: true })).resolves.toMatchObject({ type: 'cmd_ack' });
    // The main connection still owes the STATE reply: what queued there was never sent.
    await expect(queued).rejects.toMatchObject({ code: 'timeout', details: { sent: false } });
    expect(link.status().owed).toEqual([expect.objectContaining({ line: 'STATE', why: 'abandoned' })]);
    expect(link.stats.sideRequests).toBe(1);
  });
});
