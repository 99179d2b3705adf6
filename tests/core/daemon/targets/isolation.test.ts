import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { twoTargets, waitForEvents } from '../../../support/targets.js';
import { waitUntil } from '../../../support/helpers.js';

// Isolation is shown by order and counts, never by a timing bound: everything asked of `live`
// is answered, and every event it recorded is pushed, while `lab` still owes its answer.
describe('a target that hangs, floods or goes down never holds up another', () => {
  it('a SNAPSHOT lab never answers leaves live answering every call and pushing every event, in order', async () => {
    const { daemon, client, live, lab } = await twoTargets();
    lab.fault('SNAPSHOT', { noReply: true });
    let labSettled = false;
    const hung = client.call('snapshot', { target: 'lab', name: 'hangs' }).finally(() => {
      labSettled = true;
    });
    hung.catch(() => undefined);
    await waitUntil(() => lab.received.some((line) => line.startsWith('SNAPSHOT')), 2_000, 'lab to be sent its SNAPSHOT');

    const watcher = await ApiClient.connect({ port: daemon.apiAddress.port });
    const pushed: Array<Record<string, unknown>> = [];
    watcher.on('event', (frame: { data: Record<string, unknown> }) => pushed.push(frame.data));
    await watcher.call('subscribe', { events: ['chat'], target: 'live' });

    const answers = await Promise.all(Array.from({ length: 50 }, () => client.call('state', { target: 'live' })));
    expect(answers).toHaveLength(50);
    for (let i = 0; i < 20; i += 1) live.chat('Alex', `m${i}`);
    // lab floods meanwhile: it is not subscribed, and must not crowd live out.
    for (let i = 0; i < 500; i += 1) lab.chat('Steve', `flood ${i}`);
    await waitUntil(() => pushed.length === 20, 3_000, "live's 20 chats to be pushed");
    expect(pushed.map((e) => e.text)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    expect(new Set(pushed.map((e) => e.target))).toEqual(new Set(['live']));
    expect(labSettled).toBe(false);
    watcher.close();
  });

  it('lab going down leaves live serving; status names each link', async () => {
    const { daemon, client, live, lab } = await twoTargets();
    const before = (await client.call('events', { target: 'live', limit: 1 })) as { next: number };
    await lab.stop();
    await waitUntil(() => !daemon.targets.get('lab')!.link.connected, 3_000, 'lab to be seen down');
    const down = await client.call('state', { target: 'lab' }).catch((err: { code: string }) => err.code);
    expect(down).toBe('not_connected');
    await expect(client.call('state', { target: 'live' })).resolves.toBeTruthy();
    live.chat('Alex', 'still here');
    const events = await waitForEvents(client, 'live', before.next, 1);
    expect(events.map((e) => e.text)).toEqual(['still here']);
    const status = (await client.call('status', { target: 'live' })) as { target: string; targets: Record<string, { connected: boolean }> };
    expect(status.target).toBe('live');
    expect(status.targets.live!.connected).toBe(true);
    expect(status.targets.lab!.connected).toBe(false);
  });
});
