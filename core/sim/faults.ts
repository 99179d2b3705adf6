/**
 * Fault knobs: make chosen requests fail, go unanswered, answer late or cut the connection, so
 * a client's failure paths (unfreeze after a failed fork, a lost link mid-restore) can be tested.
 *
 * A target names the requests it hits. An upper-case first word is a verb, optionally with
 * words its argument must contain, in a row: `SNAPSHOT`, `SNAPSHOT restore-check` (hits
 * `SNAPSHOT 0 restore-check`), `STATE`. Anything else, or `CMD …`, is a vanilla command prefix
 * for `CMD`, a leading `/` ignored: `save-all`, `/tick unfreeze`, `summon minecraft:pig`. Words
 * match whole (`save-all` hits `save-all flush`, not `save-allx`).
 */
import { canonicalVerb, type VerbMatch } from './verbs.js';

export type FaultAction =
  /** The mod answers `{"type":"error","message":…}`; nothing runs. */
  | { error: string }
  /** CMD only: a `cmd_ack` whose output is these lines (a vanilla failure); the command does not run. */
  | { output: string | string[] }
  /** The request is read and never answered. */
  | { noReply: true }
  /** The connection drops: `before` the request runs (it never runs) or `after` it ran (its reply is lost). */
  | { hangUp: 'before' | 'after' }
  /** The request runs normally but only after this many extra milliseconds (server-thread verbs stay FIFO). */
  | { delayMs: number }
  /**
   * The request runs normally, and the mod first writes these replies at once, as if answering a
   * request nobody sent (a stray reply; `millis` is added when missing).
   */
  | { unsolicited: Record<string, unknown> | Array<Record<string, unknown>> };

export type FaultSpec = FaultAction & {
  target: string;
  /** How many matching requests it hits. Default: every one (`failNext` and `disconnectOn`: one). */
  times?: number;
};

export interface Fault {
  readonly target: string;
  readonly action: FaultAction;
  /** Matching requests it has hit so far. */
  readonly hits: number;
  /** Hits left (Infinity: no limit). */
  readonly remaining: number;
  remove(): void;
}

/** What a listener registered with `onRequest` sees for every matched request line. */
export interface RequestInfo {
  line: string;
  verb: string;
  arg: string;
}

/** Vanilla's own failure line for the commands a fork or restore sends. */
const COMMAND_FAILURES: Record<string, string> = {
  'save-all': 'Unable to save the game (is there enough disk space?)',
  summon: 'Unable to summon entity',
  kill: 'No entity was found',
  forceload: 'No chunks were marked for force loading',
};
const GENERIC_COMMAND_FAILURE = 'An unexpected error occurred trying to execute that command';

interface Target {
  verb: string;
  /** For CMD the command prefix (no leading slash); for other verbs words the argument contains in a row. */
  prefix: string;
}

function parseTarget(target: string): Target {
  const text = target.trim();
  if (text === '') throw new Error('a fault target must not be empty');
  const [first, ...rest] = text.split(/\s+/);
  if (first === first.toUpperCase() && /^[A-Z_]+$/.test(first)) {
    const verb = canonicalVerb(first);
    const arg = rest.join(' ');
    return { verb, prefix: verb === 'CMD' ? stripSlash(arg) : arg };
  }
  return { verb: 'CMD', prefix: stripSlash(text) };
}

function stripSlash(command: string): string {
  return command.startsWith('/') ? command.slice(1) : command;
}

/** Whether `wanted`'s words appear in `arg` as whole words in a row (at the start only, for a command prefix). */
function wordsMatch(arg: string, wanted: string, atStart: boolean): boolean {
  if (wanted === '') return true;
  const words = arg.split(/\s+/);
  const need = wanted.split(/\s+/);
  const starts = atStart ? [0] : words.map((_, i) => i);
  return starts.some((at) => need.every((w, i) => words[at + i] === w));
}

/** The action a target gets when none is given: vanilla's failure text for commands, an error otherwise. */
export function defaultFaultAction(target: string): FaultAction {
  const { verb, prefix } = parseTarget(target);
  if (verb === 'CMD' && prefix !== '') {
    return { output: COMMAND_FAILURES[prefix.split(/\s+/)[0]] ?? GENERIC_COMMAND_FAILURE };
  }
  return { error: `task failed: java.lang.IllegalStateException: simulated fault (${target.trim()})` };
}

class ActiveFault implements Fault {
  hits = 0;

  constructor(
    readonly target: string,
    readonly parsed: Target,
    readonly action: FaultAction,
    public remaining: number,
    readonly book: FaultBook,
  ) {}

  remove(): void {
    this.book.remove(this);
  }
}

/** The sim's list of armed faults; the first matching one with hits left takes a request. */
export class FaultBook {
  private faults: ActiveFault[] = [];

  add(target: string, action: FaultAction, times = Infinity): Fault {
    const parsed = parseTarget(target);
    if ('output' in action && parsed.verb !== 'CMD') throw new Error(`an output fault needs a command target, got ${target}`);
    if (!(times > 0)) throw new Error(`fault times must be positive, got ${times}`);
    const fault = new ActiveFault(target, parsed, action, times, this);
    this.faults.push(fault);
    return fault;
  }

  remove(fault: Fault): void {
    this.faults = this.faults.filter((f) => f !== fault);
  }

  clear(): void {
    this.faults = [];
  }

  get armed(): readonly Fault[] {
    return this.faults;
  }

  /** The fault that takes this request (counting the hit), or null. */
  take(match: VerbMatch): FaultAction | null {
    const arg = match.verb === 'CMD' ? stripSlash(match.arg) : match.arg;
    const fault = this.faults.find((f) => f.parsed.verb === match.verb && wordsMatch(arg, f.parsed.prefix, match.verb === 'CMD'));
    if (!fault) return null;
    fault.hits++;
    fault.remaining--;
    if (fault.remaining <= 0) this.remove(fault);
    return fault.action;
  }
}

export function specToAction(spec: FaultSpec): FaultAction {
  const { target: _target, times: _times, ...action } = spec;
  return action as FaultAction;
}
