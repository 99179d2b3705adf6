/**
 * Carries out one request: refusals in the mod's order (unknown op, disk-bound op, vantage,
 * capability, permission, params), then the game op through the sim's verb handler, or the
 * ledger and lease ops. Writes are de-duplicated per (token id, request id), sequenced and
 * announced with a `write` event.
 */
import type { Reply } from '../host.js';
import type { Frame } from './frames.js';
import type { Lease } from './leases.js';
import type { LedgerEntry, WireError } from './ledger.js';
import { DISK_OPS, hasLineBreak, OPS, paramsProblem, type VerbOp } from './ops.js';
import type { ControlServer } from './server.js';
import type { ControlRequest, ControlSession, Outcome } from './session.js';

export function isWriteOp(op: string): boolean {
  const spec = OPS[op];
  return spec?.kind === 'verb' && spec.write;
}

function refusal(code: string, message: string, retryable = false): WireError {
  return { code, message, retryable, resultUnknown: false };
}

function ok(server: ControlServer, id: string, result: unknown): Outcome {
  return { reply: { type: 'reply', ok: true, id, result, serverTimeMillis: server.millis() } };
}

function failed(server: ControlServer, id: string, error: WireError): Outcome {
  return { reply: { type: 'reply', ok: false, id, error, serverTimeMillis: server.millis() } };
}

export async function dispatch(server: ControlServer, session: ControlSession, request: ControlRequest): Promise<Outcome> {
  const { id, op } = request;
  const spec = OPS[op];
  if (DISK_OPS.has(op)) {
    return failed(server, id, refusal('capability_not_supported', `${op} needs the world's disk and is not served over the control protocol (mc-agent#39); run it where the server's files are`));
  }
  if (!spec) return failed(server, id, refusal('bad_request', `unknown op ${JSON.stringify(op)}`));
  if (spec.kind === 'verb' && spec.vantage && spec.vantage !== server.sim.vantage) {
    return failed(server, id, refusal('capability_not_supported', `${op} is a ${spec.vantage}-vantage op; this is a ${server.sim.vantage}-vantage mod`));
  }
  if (spec.kind === 'verb' && spec.capability && !server.sim.capabilities().includes(spec.capability)) {
    return failed(server, id, refusal('capability_not_supported', `this mod does not advertise the ${spec.capability} capability`));
  }
  const token = session.token!;
  if (!token.permissions.includes(spec.permission)) return failed(server, id, refusal('forbidden', `this credential has no ${spec.permission} permission`));
  const parsed = spec.params.safeParse(request.params);
  if (!parsed.success) return failed(server, id, refusal('bad_request', paramsProblem(parsed.error)));
  if (hasLineBreak(parsed.data)) return failed(server, id, refusal('bad_request', 'a string param may not hold a line break'));
  const gate = server.gate(op);
  if (spec.kind === 'local') {
    if (gate) await gate;
    const outcome = runLocal(server, session, op, parsed.data);
    return 'result' in outcome ? ok(server, id, outcome.result) : failed(server, id, outcome.error);
  }
  return spec.write ? runWrite(server, session, request, spec, parsed.data) : runVerb(server, id, spec, parsed.data, gate);
}

/** The legacy reply as a result, or its `error` reply as `game_error`; null: no reply came (the link was dropped). */
async function verbResult(server: ControlServer, spec: VerbOp, params: Record<string, unknown>, gate: Promise<void> | null): Promise<{ result: Reply } | { error: WireError } | null> {
  if (gate) await gate;
  const reply = await server.sim.runVerb(spec.line(params));
  if (reply === null) return null;
  if (reply.type === 'error') return { error: refusal('game_error', String(reply.message)) };
  return { result: reply };
}

async function runVerb(server: ControlServer, id: string, spec: VerbOp, params: Record<string, unknown>, gate: Promise<void> | null): Promise<Outcome> {
  const outcome = await verbResult(server, spec, params, gate);
  if (outcome === null) return { reply: null, close: true };
  return 'result' in outcome ? ok(server, id, outcome.result) : failed(server, id, outcome.error);
}

function answerDuplicate(server: ControlServer, id: string, entry: LedgerEntry): Outcome {
  if (entry.state === 'pending') return failed(server, id, refusal('request_in_flight', `write ${id} is still running; query request_status`));
  if (entry.result) return ok(server, id, { ...entry.result, duplicate: true });
  return failed(server, id, { ...entry.error!, details: { ...entry.error!.details, duplicate: true } });
}

async function runWrite(server: ControlServer, session: ControlSession, request: ControlRequest, spec: VerbOp, params: Record<string, unknown>): Promise<Outcome> {
  const tokenId = session.token!.id;
  const known = server.ledger.get(tokenId, request.id);
  if (known) return answerDuplicate(server, request.id, known);
  const ledger = server.ledger;
  const entry = ledger.begin(tokenId, request.id, request.op);
  const outcome = await verbResult(server, spec, params, server.gate(request.op));
  if (outcome === null) return { reply: null, close: true };
  const writeSeq = ++server.writeSeq;
  const recorded = 'result' in outcome ? { result: { ...outcome.result, writeSeq, duplicate: false, requestId: request.id } } : outcome;
  ledger.finish(entry, recorded);
  server.publishEvent({ type: 'write', writeSeq, op: request.op, requestId: request.id, tokenId, ok: 'result' in recorded, millis: server.millis() });
  return 'result' in recorded ? ok(server, request.id, recorded.result) : failed(server, request.id, recorded.error);
}

function statusOf(server: ControlServer, tokenId: string, requestId: string): Frame {
  const entry = server.ledger.get(tokenId, requestId);
  if (entry) return { ...entry };
  for (const session of server.sessionsOf(tokenId)) {
    const pending = session.pending.get(requestId);
    if (pending) return { requestId, operation: pending.op, state: 'pending', beganAtMillis: pending.beganAtMillis, updatedAtMillis: pending.beganAtMillis };
  }
  return { requestId, state: 'unknown' };
}

function runLocal(server: ControlServer, session: ControlSession, op: string, params: Record<string, unknown>): { result: unknown } | { error: WireError } {
  const token = session.token!;
  const key = params.key as string;
  const ttlSeconds = params.ttlSeconds as number;
  const asResult = (outcome: { lease: Lease } | { error: WireError }) => ('lease' in outcome ? { result: outcome.lease } : outcome);
  switch (op) {
    case 'request_status':
      return { result: statusOf(server, token.id, params.requestId as string) };
    case 'exclusive_status': {
      if (key === undefined) return { result: { leases: server.leases.status() } };
      const lease = server.leases.status(key)[0] ?? null;
      return { result: { key, held: lease !== null, lease } };
    }
    case 'exclusive_acquire':
      return asResult(server.leases.acquire(key, ttlSeconds, { tokenId: token.id, sessionId: session.sessionId, label: (params.label as string | undefined) ?? token.label }));
    case 'exclusive_renew':
      return asResult(server.leases.renew(key, ttlSeconds, token.id));
    case 'exclusive_release':
      return asResult(server.leases.release(key, token.id));
    default:
      return { error: refusal('internal', `no handler for ${op}`) };
  }
}
