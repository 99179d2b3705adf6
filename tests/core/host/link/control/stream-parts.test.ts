/**
 * The control link's event envelopes on their own (issue 35, "Test strength"): each seq
 * recorded once (the last one repeated included), every hole said as an event with its count,
 * a new run said, envelopes that break the rules dropped and counted; and a server's fatal error
 * in words.
 */
import { describe, expect, it } from 'vitest';
import type { ModMessage } from '../../../../../core/host/link/connection.js';
import { EventStream, MAX_SEQ_LEAD } from '../../../../../core/host/link/control/event-stream.js';
import { fatalMessage, type Welcome } from '../../../../../core/host/link/control/session.js';

function stream() {
  const events: ModMessage[] = [];
  const s = new EventStream((e) => events.push(e));
  return { s, events };
}

const welcome = (runId: string, replay?: Welcome['replay']): Welcome =>
  ({ type: 'welcome', protocol: 1, instanceId: 'i', runId, permissions: [], capabilities: [], ...(replay ? { replay } : {}) }) as Welcome;
const env = (seq: unknown, extra: Record<string, unknown> = {}) => ({ type: 'event', seq, event: { type: 'chat', text: `#${String(seq)}` }, ...extra });

describe('event envelopes', () => {
  it('are recorded once each, the last seq repeated included, with their server seq', () => {
    const { s, events } = stream();
    expect(s.position()).toEqual({ runId: null, lastSeq: 0 });
    s.welcome(welcome('r1'));
    expect(s.envelope(env(1))).toBe(true);
    expect(s.envelope(env(2, { replay: true }))).toBe(true);
    expect(s.envelope(env(2))).toBe(true);
    expect(s.envelope(env(1))).toBe(true);
    expect(events).toEqual([
      { type: 'chat', text: '#1', serverSeq: 1 },
      { type: 'chat', text: '#2', serverSeq: 2, replayed: true },
    ]);
    expect(s.stats).toEqual({ events: 2, replayed: 1, duplicates: 2, lost: 0, gaps: 0, runChanges: 0, badEnvelopes: 0 });
    expect(s.position()).toEqual({ runId: 'r1', lastSeq: 2 });
  });

  it('a hole is said with its count; the first event after none known is no hole', () => {
    const { s, events } = stream();
    s.welcome(welcome('r1'));
    s.envelope(env(5));
    s.envelope(env(6));
    s.envelope(env(8));
    s.envelope(env(11));
    expect(events.filter((e) => e.type === 'bridge_events_lost')).toEqual([
      { type: 'bridge_events_lost', text: '1 event of the game (seq 7..7) never reached the bridge: the server dropped them (the link fell behind)', runId: 'r1', fromSeq: 7, toSeq: 7, missed: 1 },
      { type: 'bridge_events_lost', text: '2 events of the game (seq 9..10) never reached the bridge: the server dropped them (the link fell behind)', runId: 'r1', fromSeq: 9, toSeq: 10, missed: 2 },
    ]);
    expect(s.stats).toMatchObject({ events: 4, gaps: 2, lost: 3 });
  });

  it('that break the rules are dropped and counted', () => {
    const { s, events } = stream();
    s.welcome(welcome('r1'));
    const bad = [
      env('1'),
      env(1.5),
      env(0),
      env(-1),
      env(2 ** 53),
      { type: 'event', seq: 1 },
      { type: 'event', seq: 1, event: null },
      { type: 'event', seq: 1, event: 'chat' },
      { type: 'event', seq: 1, event: [] },
      env(1, { runId: 'r0' }),
    ];
    for (const frame of bad) expect(s.envelope(frame)).toBe(false);
    expect(s.stats.badEnvelopes).toBe(bad.length);
    expect(events).toEqual([]);
    expect(s.envelope(env(1, { runId: 'r1' }))).toBe(true);
    expect(s.envelope(env(2, { runId: 7 }))).toBe(true);
    expect(s.position().lastSeq).toBe(2);
  });

  it('before any welcome, an envelope naming a run is taken', () => {
    const { s } = stream();
    expect(s.envelope(env(3, { runId: 'r9' }))).toBe(true);
  });

  it('may lead the newest known seq by at most MAX_SEQ_LEAD', () => {
    const { s } = stream();
    s.welcome(welcome('r1'));
    // Nothing known yet: any first seq is where the server is.
    expect(s.envelope(env(2 ** 40))).toBe(true);
    const { s: t } = stream();
    t.welcome(welcome('r1'));
    t.envelope(env(1));
    expect(t.envelope(env(2 + MAX_SEQ_LEAD))).toBe(false);
    expect(t.stats.badEnvelopes).toBe(1);
    expect(t.envelope(env(1 + MAX_SEQ_LEAD))).toBe(true);
    expect(MAX_SEQ_LEAD).toBe(1_048_576);
    const { s: u } = stream();
    u.welcome(welcome('r1', { lost: false, to: 100 }));
    expect(u.envelope(env(101 + MAX_SEQ_LEAD))).toBe(false);
    expect(u.envelope(env(100 + MAX_SEQ_LEAD))).toBe(true);
    const { s: v } = stream();
    v.welcome(welcome('r1', { lost: false, to: 2 ** 60 }));
    expect(v.envelope(env(2 ** 40))).toBe(true);
    // A `to` that is no whole number is no horizon either: the first seq is taken wherever it is.
    const { s: w } = stream();
    w.welcome(welcome('r1', { lost: false, to: 1.5 }));
    expect(w.envelope(env(2 ** 40))).toBe(true);
  });

  it("a later welcome of a new run says so and starts the seqs again; the first session's is no change", () => {
    const { s, events } = stream();
    s.welcome(welcome('r1', { lost: true, from: 50 }));
    expect(events).toEqual([]);
    s.envelope(env(3));
    s.welcome(welcome('r2', { lost: true, from: 9 }));
    expect(events.at(-1)).toEqual({
      type: 'bridge_run_changed',
      text: 'the game restarted (run r2, was r1): events after seq 3 of the old run are gone',
      previousRunId: 'r1',
      runId: 'r2',
      lastSeq: 3,
    });
    expect(events).toHaveLength(2);
    expect(s.position()).toEqual({ runId: 'r2', lastSeq: 0 });
    expect(s.stats.runChanges).toBe(1);
    s.welcome(welcome('r2'));
    expect(s.stats.runChanges).toBe(1);
  });

  it('a replay that does not reach back is a hole, counted when the welcome says from where', () => {
    const { s, events } = stream();
    s.welcome(welcome('r1'));
    s.envelope(env(5));
    s.welcome(welcome('r1', { lost: true, from: 9 }));
    s.welcome(welcome('r1', { lost: true, from: 6 }));
    s.welcome(welcome('r1', { lost: true, from: null }));
    s.welcome(welcome('r1', { lost: false, from: 9 }));
    expect(events.slice(1)).toEqual([
      {
        type: 'bridge_events_lost',
        text: '3 events of the game (seq 6..8) never reached the bridge: the server no longer held them when the link came back',
        runId: 'r1',
        fromSeq: 6,
        toSeq: 8,
        missed: 3,
      },
      {
        type: 'bridge_events_lost',
        text: 'an unknown number of events of the game (seq 6 on) never reached the bridge: the server no longer held them when the link came back',
        runId: 'r1',
        fromSeq: 6,
        toSeq: null,
        missed: null,
      },
    ]);
    expect(s.stats).toMatchObject({ gaps: 2, lost: 3 });
  });
});

describe("a server's fatal error", () => {
  it('is said with its code, its text cut, and the advice for the known codes', () => {
    expect(fatalMessage({ type: 'error', code: 'unauthorized', message: 'revoked' }).message).toBe(
      'the server ended the session (unauthorized: revoked); the server refused the credential (revoked, expired or mistyped): mint one on the server console (/mcagent control token add <label> read+write) and put it where tokenFile/tokenEnv points',
    );
    expect(fatalMessage({ code: 'protocol_version' }).message).toBe('the server ended the session (protocol_version); the mod speaks another control protocol version: update mcbridge or the mod');
    expect(fatalMessage({ code: 'frame_too_large', message: '' }).message).toBe('the server ended the session (frame_too_large); a frame was over the server limit');
    expect(fatalMessage({ code: 5, message: 6 })).toEqual({ code: 'error', message: 'the server ended the session (error)' });
    const long = fatalMessage({ code: 'c'.repeat(80), message: 'm'.repeat(400) });
    expect(long).toEqual({ code: 'c'.repeat(64), message: `the server ended the session (${'c'.repeat(64)}: ${'m'.repeat(300)})` });
  });

  it("of a code that is a name of Object's prototype gets no advice", () => {
    for (const code of ['toString', 'constructor', '__proto__']) expect(fatalMessage({ code }).message).toBe(`the server ended the session (${code})`);
  });
});
