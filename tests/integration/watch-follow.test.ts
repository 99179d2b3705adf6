import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { followEvents } from '../../core/frontends/cli/watch.js';
import type { McbridgeError } from '../../core/host/errors.js';
import type { RecordedEvent } from '../../core/host/events/event-log.js';
import { startStack, waitUntil, type Stack } from '../support/helpers.js';

let stack: Stack | undefined;
const extra: ApiClient[] = [];
afterEach(async () => {
  for (const c of extra.splice(0)) c.close();
  await stack?.close();
  stack = undefined;
});

const unhandled: unknown[] = [];
process.on('unhandledRejection', (err) => unhandled.push(err));

describe('mcbridge watch: following events', () => {
  it('fills a gap from the buffer, in order, once per event', async () => {
    stack = await startStack();
    const client = await ApiClient.connect({ port: stack.daemon.apiAddress.port });
    extra.push(client);
    const before = stack.daemon.host.events.lastSeq;
    for (const text of ['a', 'b', 'c']) await stack.client.call('mark', { text });
    const seen: RecordedEvent[] = [];
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const following = followEvents(client, { events: ['mark'] }, (e) => seen.push(e), until);
    await waitUntil(() => client.listenerCount('gap') > 0, 2_000, 'the watcher to listen');
    // Subscribed in the daemon: a push from now on reaches it.
    await waitUntil(() => (stack!.daemon.host.status().api as { subscribers: number }).subscribers > 0, 5_000, 'the subscription');
    // The daemon says this watcher missed the three marks: they come from the buffer.
    client.emit('gap', { type: 'gap', dropped: 3, fromSeq: before + 1, toSeq: stack.daemon.host.events.lastSeq, streamId: stack.daemon.host.events.streamId });
    await waitUntil(() => seen.length >= 3, 2_000, 'the gap to be filled');
    await stack.client.call('mark', { text: 'd' });
    await waitUntil(() => seen.length >= 4, 2_000, 'the next push');
    stop();
    await following;
    expect(seen).toHaveLength(4);
    expect(seen.every((e) => e.category === 'mark')).toBe(true);
    const seqs = seen.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(4);
  });

  it('ends with the error when a gap cannot be filled, instead of an unhandled rejection', async () => {
    stack = await startStack();
    const client = await ApiClient.connect({ port: stack.daemon.apiAddress.port });
    extra.push(client);
    const never = new Promise<void>(() => {});
    const following = followEvents(client, { events: ['*'] }, () => {}, never);
    await waitUntil(() => client.listenerCount('gap') > 0, 2_000, 'the watcher to listen');
    // Subscribed in the daemon: a push from now on reaches it.
    await waitUntil(() => (stack!.daemon.host.status().api as { subscribers: number }).subscribers > 0, 5_000, 'the subscription');
    const before = unhandled.length;
    // A seq beyond the newest: the daemon answers streamReset, which ends the watch.
    const far = stack.daemon.host.events.lastSeq + 1_000;
    client.emit('gap', { type: 'gap', dropped: 1, fromSeq: far, toSeq: far, streamId: 'other' });
    const err = (await following.then(
      () => new Error('expected the watch to fail'),
      (e: McbridgeError) => e,
    )) as McbridgeError;
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/daemon restarted/);
    // An unhandled rejection is reported once the microtasks of this turn have run.
    await new Promise((r) => setImmediate(r));
    expect(unhandled.length).toBe(before);
  });
});
