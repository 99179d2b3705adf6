/**
 * The requests of one control link on their own (issue 35, "Test strength"): the queue that
 * sends at most the server's pending limit, the deadlines on vitest's clock (a sent write's
 * grace), replies matched by id, and what an error reply becomes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McbridgeError } from '../../../../../core/host/errors.js';
import { checkStatusReply, type ControlRequest, ControlRequests, replyError, resultOf, WRITE_GRACE_MS, wireName } from '../../../../../core/host/link/control/requests.js';
import type { ModReply } from '../../../../../core/host/link/replies.js';
import { failure } from '../../../../support/errors.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('an error reply', () => {
  const job = { id: 'r-1', line: 'command {"command":"say hi"}' };

  it('maps each server code into the closed set and keeps the server code and details', () => {
    const table = {
      bad_request: 'invalid_params',
      unauthorized: 'unauthorized',
      forbidden: 'forbidden',
      capability_not_supported: 'unsupported_capability',
      game_error: 'mod_error',
      timeout: 'timeout',
      request_in_flight: 'busy',
      too_many_pending: 'busy',
      frame_too_large: 'invalid_params',
      protocol_version: 'unsupported_capability',
      conflict: 'conflict',
      not_found: 'not_found',
      something_new: 'mod_error',
      toString: 'mod_error',
    };
    for (const [serverCode, code] of Object.entries(table)) {
      const e = replyError(job, { code: serverCode, message: 'no', details: { why: 1 } }, false);
      expect([serverCode, e.code]).toEqual([serverCode, code]);
      expect(e.message).toBe(`${job.line}: no`);
      expect(e.details).toEqual({ request: job.line, serverCode, server: { why: 1 } });
      expect(e.outcome).toBeUndefined();
    }
  });

  it('of no object, or with fields of the wrong type, says so; long texts are cut', () => {
    for (const raw of [undefined, null, 'boom', { code: 7, message: 8, details: 'x' }]) {
      const e = replyError(job, raw, false);
      expect(e.code).toBe('mod_error');
      expect(e.message).toBe(`${job.line}: the server gave no message`);
      expect(e.details).toEqual({ request: job.line, serverCode: 'error' });
    }
    const long = replyError(job, { code: 'c'.repeat(100), message: 'm'.repeat(3000) }, false);
    expect(long.details?.serverCode).toBe('c'.repeat(64));
    expect(long.message).toBe(`${job.line}: ${'m'.repeat(2000)}`);
    const at = replyError({ id: 'x', line: 'l'.repeat(120) }, {}, false);
    expect(at.message).toBe(`${'l'.repeat(120)}: the server gave no message`);
    const over = replyError({ id: 'x', line: 'l'.repeat(121) }, {}, false);
    expect(over.message).toBe(`${'l'.repeat(120)}…: the server gave no message`);
    expect(over.details?.request).toBe('l'.repeat(121));
  });

  it("of a write carries the server's outcome: retryable only when the result is known", () => {
    const outcome = (raw: Record<string, unknown>) => replyError(job, { code: 'game_error', ...raw }, true).outcome;
    expect(outcome({})).toEqual({ retryable: false, resultUnknown: false, requestId: 'r-1' });
    expect(outcome({ retryable: true })).toEqual({ retryable: true, resultUnknown: false, requestId: 'r-1' });
    expect(outcome({ retryable: true, resultUnknown: true })).toEqual({ retryable: false, resultUnknown: true, requestId: 'r-1' });
    expect(outcome({ retryable: 'yes', resultUnknown: 'yes' })).toEqual({ retryable: false, resultUnknown: false, requestId: 'r-1' });
  });
});

describe('names, ledger answers and results', () => {
  it('a request is named by its op and params, cut past 120 characters', () => {
    expect(wireName('ping', {})).toBe('ping');
    expect(wireName('command', { command: 'say hi' })).toBe('command {"command":"say hi"}');
    const exact = wireName('o', { t: 'x'.repeat(120 - 10) });
    expect(exact).toHaveLength(120);
    expect(exact.endsWith('…')).toBe(false);
    const cut = wireName('o', { t: 'x'.repeat(200) });
    expect(cut).toBe(`o {"t":"${'x'.repeat(112)}…`);
  });

  it('a request_status answer about another id is dropped with a coded error', () => {
    const reply = { type: 'status', state: 'completed' } as ModReply;
    expect(checkStatusReply(reply, 'a', 'request_status')).toBe(reply);
    const same = { ...reply, requestId: 'a' } as ModReply;
    expect(checkStatusReply(same, 'a', 'request_status')).toBe(same);
    const thrown = (r: ModReply) => {
      try {
        checkStatusReply(r, 'a', 'request_status {"requestId":"a"}');
      } catch (err) {
        return err as McbridgeError;
      }
      throw new Error('no error');
    };
    const other = thrown({ ...reply, requestId: `b${'x'.repeat(200)}` } as ModReply);
    expect(other.code).toBe('mod_error');
    expect(other.message).toBe(`the server answered 'request_status {"requestId":"a"}' about 'b${'x'.repeat(127)}', not the id asked; its answer was dropped. Ask again, and check the server`);
    expect(other.details).toEqual({ request: 'request_status {"requestId":"a"}', askedId: 'a' });
    expect(thrown({ ...reply, requestId: 7 } as unknown as ModReply).message).toMatch(/about a number, not the id asked/);
  });

  it('a result that is no object becomes a value', () => {
    expect(resultOf({ result: { type: 'state', x: 1 } })).toEqual({ type: 'state', x: 1 });
    expect(resultOf({ result: [1, 2] })).toEqual({ type: 'result', value: [1, 2] });
    expect(resultOf({ result: null })).toEqual({ type: 'result', value: null });
    expect(resultOf({})).toEqual({ type: 'result', value: null });
    expect(resultOf({ result: 0 })).toEqual({ type: 'result', value: 0 });
  });
});

function queue(maxWaiting = 100) {
  const sent: ControlRequest[] = [];
  const late: unknown[][] = [];
  const expired: boolean[] = [];
  const q = new ControlRequests(
    maxWaiting,
    (...a) => late.push(a),
    (s) => expired.push(s),
  );
  return { q, sent, late, expired, attach: (limit: number) => q.attach((j) => sent.push(j), limit) };
}

let n = 0;
function req(over: Partial<ControlRequest> = {}): ControlRequest {
  n += 1;
  return { id: `id-${n}`, op: 'state', params: {}, line: `state ${n}`, timeoutMs: 10_000, arrivedAt: Date.now(), write: false, ...over };
}

describe('the request queue', () => {
  it('sends at most the limit, in order, and the next as each answer comes', async () => {
    vi.useFakeTimers();
    const { q, sent, attach } = queue();
    const a = req();
    const b = req();
    const c = req();
    expect(q.status()).toEqual({ inFlight: [], queued: 0, oldestQueuedMs: null });
    const answers = [a, b, c].map((r) => q.enqueue(r));
    expect(q.queued).toBe(3);
    expect(q.has(a.id)).toBe(true);
    // Only its own id: others waiting make no other id busy.
    expect(q.has('nobody')).toBe(false);
    vi.advanceTimersByTime(250);
    expect(q.status()).toEqual({ inFlight: [], queued: 3, oldestQueuedMs: 250 });
    attach(2);
    expect(sent.map((j) => j.id)).toEqual([a.id, b.id]);
    expect([q.inFlight, q.queued]).toEqual([2, 1]);
    // The server is sent what is left of the deadline.
    expect(sent[0]!.timeoutMs).toBe(10_000 - 250);
    vi.advanceTimersByTime(100);
    expect(q.status()).toEqual({
      inFlight: [
        { line: a.line, ageMs: 100 },
        { line: b.line, ageMs: 100 },
      ],
      queued: 1,
      oldestQueuedMs: 350,
    });
    expect(q.onReply({ type: 'reply', id: b.id, ok: true, result: { type: 'state', n: 2 } })).toBe(true);
    expect(await answers[1]).toEqual({ type: 'state', n: 2 });
    expect(sent.map((j) => j.id)).toEqual([a.id, b.id, c.id]);
    expect(q.has(b.id)).toBe(false);
    expect(q.has(c.id)).toBe(true);
    expect(q.has('nobody')).toBe(false);
  });

  it('a limit below one sends one at a time; a deadline long gone is sent as 1 ms', () => {
    vi.useFakeTimers();
    const { q, sent, attach } = queue();
    void q.enqueue(req({ timeoutMs: 1_000 })).catch(() => {});
    void q.enqueue(req()).catch(() => {});
    // The clock past the deadline before its timer ran (a busy event loop).
    vi.setSystemTime(Date.now() + 5_000);
    attach(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.timeoutMs).toBe(1);
  });

  it('refuses past maxWaiting, saying how many wait; not sent', async () => {
    const { q } = queue(2);
    void q.enqueue(req()).catch(() => {});
    void q.enqueue(req()).catch(() => {});
    const err = await failure(q.enqueue(req({ line: 'third' })));
    expect(err.code).toBe('busy');
    expect(err.message).toBe("2 requests already wait for the server; 'third' was not sent. Retry when fewer are pending");
    expect(q.queued).toBe(2);
  });

  it('an error reply rejects with the mapped error; a write keeps its outcome', async () => {
    const { q, attach } = queue();
    attach(4);
    const plain = req();
    const write = req({ write: true, op: 'command' });
    const p = failure(q.enqueue(plain));
    const w = failure(q.enqueue(write));
    expect(q.onReply({ type: 'reply', id: plain.id, ok: 'true', error: { code: 'not_found', message: 'gone' } })).toBe(true);
    expect(q.onReply({ type: 'reply', id: write.id, ok: false, error: { code: 'timeout', message: 'slow', resultUnknown: true } })).toBe(true);
    const e = await p;
    expect([e.code, e.message, e.outcome]).toEqual(['not_found', `${plain.line}: gone`, undefined]);
    expect((await w).outcome).toEqual({ retryable: false, resultUnknown: true, requestId: write.id });
  });

  it('a reply for no request is late: passed on with its result or its error; one with no id is dropped', async () => {
    const { q, late, attach } = queue();
    attach(4);
    expect(q.onReply({ type: 'reply', id: 'gone-1', ok: true, result: 5 })).toBe(false);
    expect(q.onReply({ type: 'reply', id: 'gone-2', ok: false, error: { code: 'x' } })).toBe(false);
    expect(q.onReply({ type: 'reply', ok: true })).toBe(false);
    expect(q.onReply({ type: 'reply', id: 9, ok: true })).toBe(false);
    expect(late).toEqual([
      ['gone-1', { type: 'result', value: 5 }, undefined],
      ['gone-2', null, { code: 'x' }],
    ]);
  });

  it('an unsent request times out at its deadline as queued; a sent read as sent; the answer after it is late', async () => {
    vi.useFakeTimers();
    const { q, expired, late, attach } = queue();
    const unsent = failure(q.enqueue(req({ timeoutMs: 1_000, line: 'waits' })));
    vi.advanceTimersByTime(999);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    const e = await unsent;
    expect(e.code).toBe('timeout');
    expect(e.message).toBe("no response for 'waits' within 1.0s (1.0s of it queued behind earlier requests)");
    expect(expired).toEqual([false]);
    attach(4);
    const r = req({ timeoutMs: 2_000, line: 'sent' });
    const sent = failure(q.enqueue(r));
    vi.advanceTimersByTime(2_000);
    const s = await sent;
    expect(s.message).toBe("no response for 'sent' within 2.0s");
    expect(s.outcome).toBeUndefined();
    expect(expired).toEqual([false, true]);
    expect(q.onReply({ type: 'reply', id: r.id, ok: true, result: {} })).toBe(false);
    expect(late).toHaveLength(1);
  });

  it('a sent write waits a grace past its deadline: an answer in it settles the write', async () => {
    vi.useFakeTimers();
    const { q, expired, attach } = queue();
    attach(4);
    const w = req({ write: true, timeoutMs: 1_000 });
    const answer = q.enqueue(w);
    vi.advanceTimersByTime(1_000 + WRITE_GRACE_MS - 1);
    expect(expired).toEqual([]);
    q.onReply({ type: 'reply', id: w.id, ok: true, result: { type: 'ok' } });
    expect(await answer).toEqual({ type: 'ok' });
    vi.advanceTimersByTime(60_000);
    expect(expired).toEqual([]);
  });

  it('a sent write with no answer in the grace fails as may-have-run; an unsent one as safe to resend', async () => {
    vi.useFakeTimers();
    const { q, expired, attach } = queue();
    const unsent = failure(q.enqueue(req({ write: true, timeoutMs: 500 })));
    vi.advanceTimersByTime(500);
    expect((await unsent).outcome).toMatchObject({ retryable: true, resultUnknown: false });
    attach(4);
    const w = req({ write: true, timeoutMs: 1_000 });
    const sent = failure(q.enqueue(w));
    vi.advanceTimersByTime(1_000 + WRITE_GRACE_MS - 1);
    expect(expired).toEqual([false]);
    vi.advanceTimersByTime(1);
    const e = await sent;
    expect(e.code).toBe('timeout');
    expect(e.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: w.id });
    expect(expired).toEqual([false, true]);
  });

  it('an abort cancels it where it is, once, and lets the next one out', async () => {
    const { q, sent, attach } = queue();
    const listeners = new Set<() => void>();
    // Keyed by the event's name, as an AbortSignal is: a listener for another event never fires on abort.
    const signal = {
      aborted: false,
      addEventListener: (t: 'abort', l: () => void) => t === 'abort' && listeners.add(l),
      removeEventListener: (t: 'abort', l: () => void) => t === 'abort' && listeners.delete(l),
    };
    attach(1);
    const first = failure(q.enqueue(req({ signal, line: 'first' })));
    const second = req();
    const next = q.enqueue(second);
    expect(listeners.size).toBe(1);
    for (const l of [...listeners]) l();
    const e = await first;
    expect([e.code, e.message]).toEqual(['cancelled', "the request 'first' was cancelled"]);
    expect(listeners.size).toBe(0);
    expect(sent.map((j) => j.id)).toContain(second.id);
    q.onReply({ type: 'reply', id: second.id, ok: true, result: { type: 'x' } });
    expect(await next).toEqual({ type: 'x' });
    // An answer settles it: its listener goes.
    const third = q.enqueue(req({ signal }));
    expect(listeners.size).toBe(1);
    q.onReply({ type: 'reply', id: sent.at(-1)!.id, ok: true, result: {} });
    await third;
    expect(listeners.size).toBe(0);
  });

  it('a detach fails what was sent as sent and what waits as never sent, and sends nothing more', async () => {
    const { q, sent, attach } = queue();
    attach(1);
    const out = req({ line: 'out', write: true });
    const waiting = req({ line: 'waiting', write: true });
    const a = failure(q.enqueue(out));
    const b = failure(q.enqueue(waiting));
    q.detach('the session closed');
    const [ea, eb] = [await a, await b];
    expect([ea.code, ea.message]).toEqual(['not_connected', "the session closed while waiting for the reply to 'out'"]);
    expect(ea.outcome).toMatchObject({ resultUnknown: true });
    expect([eb.code, eb.message]).toEqual(['not_connected', "the session closed before 'waiting' was sent"]);
    expect(eb.outcome).toMatchObject({ retryable: true, resultUnknown: false });
    expect([q.inFlight, q.queued]).toEqual([0, 0]);
    const later = q.enqueue(req());
    expect(sent).toHaveLength(1);
    expect(q.queued).toBe(1);
    void later.catch(() => {});
  });
});
