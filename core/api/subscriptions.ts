/**
 * A local API connection and what it subscribed to: categories per target, so a subscriber of
 * several game servers gets each one's events, named, with gaps counted per target.
 */
import type net from 'node:net';
import type { Cancellation } from '../host/cancel.js';
import { McbridgeError } from '../host/errors.js';
import type { RecordedEvent } from '../host/events/event-log.js';
import { describeZodError } from '../host/params.js';
import { sortTopics, subscribeParams, SUBSCRIPTION_TOPICS } from './frames.js';
import type { RequestId } from './request-line.js';
import type { RequestReader } from './request-reader.js';
import { ALL_TARGETS, type Targets } from './targets.js';

/** Events recorded in one tick, in order; its identity tells connections which batch they saw. */
export type EventBatch = RecordedEvent[];

export interface Connection {
  /** Numbered from 1 per daemon run, for the activity log. */
  n: number;
  socket: net.Socket;
  /** The peer's address, for the auth throttle and logs. */
  address: string;
  reader: RequestReader;
  /** Subscribed categories (or `*`), per target. */
  topics: Map<string, Set<string>>;
  /** Categories subscribed with target `*`: every target present and future takes them. */
  everyTarget: Set<string>;
  /** Topics of targets a reload removed, by name: a target re-created under that name takes them back. */
  parked: Map<string, Set<string>>;
  /** Keyed by the request id itself: a Map tells 1 from "1", as the ids' JSON does. */
  inFlight: Map<RequestId, Cancellation>;
  /** Events not pushed since the connection fell behind, per target (each has its own seq). */
  gaps: Map<string, { dropped: number; fromSeq: number; toSeq: number }>;
  /** The batch this connection has been brought up to date with, and how far (see `deliver` in server.ts). */
  batch: EventBatch | null;
  delivered: number;
}

export interface SubscribeAnswer {
  subscribed: string[];
  /** On a daemon of several targets: what the connection now takes from each. */
  targets?: Record<string, string[]>;
  ignored?: string[];
  warning?: string;
}

/**
 * `subscribe {events, target?}` and `unsubscribe`: the target rule of every call
 * (docs/local-api.md), and `*` or a list for several. `catchUp` runs first: events recorded
 * before the change go out under the old topics.
 */
export function subscribe(targets: Targets, conn: Connection, method: 'subscribe' | 'unsubscribe', params: Record<string, unknown>, catchUp: () => void): SubscribeAnswer {
  const parsed = subscribeParams.safeParse(params);
  if (!parsed.success) throw new McbridgeError('invalid_params', `invalid params for '${method}': ${describeZodError(parsed.error)}`);
  const hosts = targets.pickMany(params.target);
  const { topics: named, unknown } = sortTopics(parsed.data.events);
  const topics = named.includes('*') ? ['*'] : named;
  catchUp();
  const every = params.target === ALL_TARGETS || (Array.isArray(params.target) && params.target.includes(ALL_TARGETS));
  if (every) change(conn.everyTarget, method, topics);
  for (const host of hosts) {
    let own = conn.topics.get(host.target);
    if (!own) conn.topics.set(host.target, (own = new Set()));
    change(own, method, topics);
    if (own.size === 0) conn.topics.delete(host.target);
  }
  const subscribed = [...new Set(hosts.flatMap((h) => [...(conn.topics.get(h.target) ?? [])]))].sort();
  const answer: SubscribeAnswer = { subscribed };
  if (targets.size > 1) answer.targets = Object.fromEntries([...conn.topics].map(([name, own]) => [name, [...own].sort()]));
  if (unknown.length === 0) return answer;
  const warning = `ignored unknown ${unknown.length === 1 ? 'category' : 'categories'} ${unknown.map((u) => `'${u}'`).join(', ')}; ` + `known: ${[...SUBSCRIPTION_TOPICS, '*'].join(', ')}`;
  return { ...answer, ignored: unknown, warning };
}

function change(own: Set<string>, method: 'subscribe' | 'unsubscribe', topics: readonly string[]): void {
  for (const topic of topics) {
    if (method === 'subscribe') own.add(topic);
    else if (topic === '*') own.clear();
    else own.delete(topic);
  }
}

/**
 * A target was added (or re-created by a reload): the connection takes it with the topics it
 * had under that name and those it subscribed for every target. True when it takes any.
 */
export function targetAdded(conn: Connection, name: string): boolean {
  const topics = new Set([...(conn.parked.get(name) ?? []), ...conn.everyTarget]);
  conn.parked.delete(name);
  if (topics.size === 0) return false;
  conn.topics.set(name, topics);
  return true;
}

/** A target was removed: its topics are kept by name for a target re-created under it. True when the connection had any. */
export function targetRemoved(conn: Connection, name: string): boolean {
  const topics = conn.topics.get(name);
  conn.topics.delete(name);
  conn.gaps.delete(name);
  if (!topics) return false;
  conn.parked.set(name, topics);
  return true;
}

/** Subscribed to every category of every target: a whole batch goes out as it is. */
export function takesEverything(conn: Connection, targets: Targets): boolean {
  if (conn.topics.size !== targets.size) return false;
  for (const topics of conn.topics.values()) if (!topics.has('*')) return false;
  return true;
}

/** Whether a connection subscribed to this event's target and category. */
export function wants(conn: Connection, event: RecordedEvent): boolean {
  const topics = conn.topics.get(event.target ?? '');
  return topics !== undefined && (topics.has('*') || topics.has(event.category));
}
