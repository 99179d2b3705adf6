/**
 * The game servers one daemon reaches: a host per target, and the rule that picks the host a
 * request goes to (docs/targets.md). The kernel stays one host, one link, one event log; this is
 * the only place that knows there may be several.
 */
import { EventEmitter } from 'node:events';
import { McbridgeError } from '../host/errors.js';
import type { Host } from '../host/host.js';

/** The name of the one target of a daemon configured without `targets`. */
export const DEFAULT_TARGET = 'default';

/** Letters, digits, `.`, `_`, `-`; up to 64. Stricter than "no slash, backslash or whitespace", and safe in a file name. */
export const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Refusals that come from one target's game rather than from the call. */
const TARGET_BOUND = new Set(['unsupported_capability', 'not_connected', 'timeout', 'mod_error', 'busy']);

/** Every target at once, where a method takes several. */
export const ALL_TARGETS = '*';

export interface Routed {
  host: Host;
  /** The params the host gets: without `target`, unless it was the tool's own (see `route`). */
  params: Record<string, unknown>;
}

/**
 * The targets by name, in the order configured. `add`/`remove` let a reload change the set
 * without touching the other targets' links; listeners learn of it through `change`.
 */
export class Targets extends EventEmitter {
  private readonly hosts = new Map<string, Host>();
  private defaultName: string | null = null;

  /** A daemon of one host, as every daemon was before targets. */
  static of(host: Host): Targets {
    const targets = new Targets();
    targets.add(host, { default: false });
    return targets;
  }

  add(host: Host, options: { default: boolean }): void {
    if (this.hosts.has(host.target)) throw new McbridgeError('invalid_params', `target '${host.target}' is configured twice; give each target one name`);
    this.hosts.set(host.target, host);
    if (options.default) this.defaultName = host.target;
    this.emit('change', { added: host });
  }

  remove(name: string): Host | undefined {
    const host = this.hosts.get(name);
    if (!host) return undefined;
    this.hosts.delete(name);
    if (this.defaultName === name) this.defaultName = null;
    this.emit('change', { removed: host });
    return host;
  }

  setDefault(name: string | null): void {
    this.defaultName = name !== null && this.hosts.has(name) ? name : null;
  }

  get size(): number {
    return this.hosts.size;
  }

  get defaultTarget(): string | null {
    return this.defaultName;
  }

  names(): string[] {
    return [...this.hosts.keys()];
  }

  hostsList(): Host[] {
    return [...this.hosts.values()];
  }

  get(name: string): Host | undefined {
    return this.hosts.get(name);
  }

  /** The host a request with no target goes to: the one marked default, else the only one; null when that is not clear. */
  implicit(): Host | null {
    if (this.defaultName !== null) return this.hosts.get(this.defaultName) ?? null;
    return this.hosts.size === 1 ? this.hosts.values().next().value! : null;
  }

  /** The host of this name, or the implicit one for none; a coded error that names the choices otherwise. */
  pick(name: unknown): Host {
    if (name === undefined || name === null) {
      const host = this.implicit();
      if (host) return host;
      throw new McbridgeError(
        'target_required',
        `this daemon serves ${this.hosts.size} targets (${this.names().join(', ')}) and none is the default: name one with "target" (the CLI's --target, or MCBRIDGE_TARGET)`,
        { targets: this.names() },
      );
    }
    const host = typeof name === 'string' ? this.hosts.get(name) : undefined;
    if (host) return host;
    throw new McbridgeError('target_unknown', `no target named ${JSON.stringify(name)}; this daemon serves: ${this.names().join(', ')}`, { target: name, targets: this.names() });
  }

  /**
   * Several targets named at once: `*`, a name, or a list of names (deduplicated, in the order
   * given); no choice means the implicit one.
   */
  pickMany(value: unknown): Host[] {
    if (value === ALL_TARGETS) return this.hostsList();
    if (Array.isArray(value)) {
      if (value.length === 0) throw new McbridgeError('invalid_params', `"target" lists no target; give names, or "${ALL_TARGETS}" for all`);
      if (value.includes(ALL_TARGETS)) return this.hostsList();
      return [...new Set(value)].map((name) => this.pick(name));
    }
    return [this.pick(value)];
  }

  /**
   * On a daemon of several targets, a refusal that depends on the game (its CAPS, its link) says
   * which target refused: the same tool may serve on another.
   */
  named(err: unknown, host: Host): unknown {
    if (err instanceof McbridgeError && this.hosts.get(host.target) !== host) return removedByReload(err, host.target);
    if (this.hosts.size < 2 || !(err instanceof McbridgeError) || !TARGET_BOUND.has(err.code)) return err;
    // The write's outcome (retryable, resultUnknown, requestId) is what tells a caller whether it may have run.
    return new McbridgeError(err.code, `target '${host.target}': ${err.message}`, { ...err.details, target: host.target }, err.outcome);
  }

  /**
   * The host a tool call goes to, and its params. `target` routes and is taken out, with one
   * exception kept from the predecessor: on a daemon of one target, a tool that has a `target`
   * param of its own (restore's label) gets a name that matches no target as that param.
   */
  route(method: string, params: Record<string, unknown>): Routed {
    if (!('target' in params)) return { host: this.pick(undefined), params };
    const { target, ...rest } = params;
    if (this.hosts.size === 1 && (typeof target !== 'string' || !this.hosts.has(target))) {
      const only = this.hostsList()[0]!;
      if (takesOwnTarget(only, method)) return { host: only, params };
    }
    return { host: this.pick(target), params: rest };
  }
}

/**
 * A call on a target that a reload removed (or re-created) while the call was in flight: its
 * link stopped, and the daemon did not. Its code and write outcome stay; the words say why.
 */
function removedByReload(err: McbridgeError, target: string): McbridgeError {
  const why = `target '${target}' was removed by a reload`;
  const message = /^the daemon (stopped|is shutting down)/.test(err.message) ? err.message.replace(/^the daemon (stopped|is shutting down)/, why) : `${why}: ${err.message}`;
  return new McbridgeError(err.code, message, { ...err.details, target, removed: true }, err.outcome);
}

/** Whether the tool's input schema has a `target` key of its own. */
function takesOwnTarget(host: Host, method: string): boolean {
  const shape = (host.registry.get(method)?.spec.input as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape !== undefined && 'target' in shape;
}
