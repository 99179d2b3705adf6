/**
 * The operations of control protocol 1 as the sim serves them (server vantage). Each game op is
 * carried out by the sim's own verb handler, so its result is the very object the legacy reply
 * is; the table says which permission and capability it needs, whether it is a write, and the
 * verb line its params become.
 */
import { z } from 'zod';
import type { Permission } from './tokens.js';

export interface VerbOp {
  kind: 'verb';
  permission: Permission;
  /** Writes get a writeSeq, a `write` event and de-duplication by request id. */
  write: boolean;
  /** The CAPS token it needs (as the legacy verb does); none: always served. */
  capability?: string;
  /** Only where the mod has this vantage (`chat` is a client-vantage op). */
  vantage?: 'client';
  params: z.ZodType<Record<string, unknown>>;
  line(params: Record<string, unknown>): string;
}

/** Ops answered by the control layer itself (ledger, leases). */
export interface LocalOp {
  kind: 'local';
  permission: Permission;
  params: z.ZodType<Record<string, unknown>>;
}

const text = z.string().min(1);
const none = z.object({});
const ttl = z.number().int().min(1).max(3600);

function verb(permission: Permission, capability: string | undefined, params: z.ZodType<Record<string, unknown>>, line: VerbOp['line'], extra: Partial<VerbOp> = {}): VerbOp {
  return { kind: 'verb', permission, write: permission === 'write', capability, params, line, ...extra };
}

function joined(verbName: string, ...args: unknown[]): string {
  const present = args.filter((a) => a !== undefined && a !== '').map(String);
  return [verbName, ...present].join(' ');
}

export const OPS: Record<string, VerbOp | LocalOp> = {
  ping: verb('read', undefined, none, () => 'PING'),
  capabilities: verb('read', undefined, none, () => 'CAPS'),
  state: verb('read', 'state', none, () => 'STATE'),
  // The sim's ENTITIES takes a radius (docs/protocol.md); a dimension is passed on as the mod's newest build takes it.
  entities: verb('read', 'entities', z.object({ dimension: text.optional(), radius: z.number().min(0).optional() }), (p) => joined('ENTITIES', p.radius ?? p.dimension)),
  player: verb('read', 'player', z.object({ player: text }), (p) => joined('PLAYER', p.player)),
  context: verb('read', 'context', z.object({ contextId: text.optional() }), (p) => joined('CONTEXT', p.contextId)),
  wait: verb('read', 'wait', z.object({ ticks: z.number().int().min(0).max(2_147_483_647) }), (p) => joined('WAIT', p.ticks)),
  snapshots: verb('read', 'snapshot', none, () => 'SNAPSHOTS'),
  command: verb('write', 'command', z.object({ command: text }), (p) => joined('CMD', p.command)),
  mark: verb('write', 'mark', z.object({ text }), (p) => joined('MARK', p.text)),
  snapshot: verb('write', 'snapshot', z.object({ name: text.optional(), dimension: text.optional() }), (p) => joined('SNAPSHOT', p.name, p.dimension)),
  chat: verb('write', 'chat', z.object({ text }), (p) => joined('CHAT', p.text), { vantage: 'client' }),
  request_status: { kind: 'local', permission: 'read', params: z.object({ requestId: z.string().min(1).max(128) }) },
  exclusive_status: { kind: 'local', permission: 'read', params: z.object({ key: text.max(128).optional() }) },
  exclusive_acquire: { kind: 'local', permission: 'write', params: z.object({ key: text.max(128), ttlSeconds: ttl, label: z.string().max(128).optional() }) },
  exclusive_renew: { kind: 'local', permission: 'write', params: z.object({ key: text.max(128), ttlSeconds: ttl }) },
  exclusive_release: { kind: 'local', permission: 'write', params: z.object({ key: text.max(128) }) },
};

/** Composite ops of the mod that need the world's disk: refused over this transport. */
export const DISK_OPS = new Set(['fork', 'restore', 'freeze', 'verify', 'order']);

/** A line break would end the verb line early and smuggle in a second request. */
export function hasLineBreak(params: Record<string, unknown>): boolean {
  return Object.values(params).some((v) => typeof v === 'string' && /[\r\n]/.test(v));
}

/** zod's first complaint, as one short sentence for a `bad_request`. */
export function paramsProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  return `params.${issue.path.join('.') || '(params)'}: ${issue.message}`;
}
