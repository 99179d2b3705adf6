/**
 * What an apply changes besides the summons, and how each change is undone on every exit path:
 * the tick state, read before anything changes
 * and put back; the forceload, released when asked; the freeze watchdog.
 */
import type { ToolContext } from 'mcbridge';
import { outputLines } from 'mcbridge/kit';
import { setTickState, setTickStateWithRetry, TickFreeze, type SendLine, type JournalChange, type TickState, type WorldJournal } from '../snapshot/kit.js';
import { forceloadCommand, type Box } from './plan.js';
import { FreezeWatchdog } from './watchdog.js';

export interface TickReport {
  prior: TickState | 'unknown';
  priorSource: 'caller' | 'query' | null;
  frozenByBridge: boolean;
  clearedWhileRunning: boolean;
  refrozen?: boolean;
  refreezeError?: string;
  restored: boolean | null;
  unfreezeError?: string;
  watchdogUnfroze?: boolean;
  watchdogUnfreezeError?: string;
  preserved?: boolean | null;
  [key: string]: unknown;
}

/** What the game answered to `forceload add`, from its (vanilla, English) text; `unknown` for anything else. */
export type ForceloadAnswer = 'added' | 'already-forced' | 'refused' | 'unknown';

export function forceloadAnswer(lines: readonly string[]): ForceloadAnswer {
  const text = lines.join('\n');
  if (/^Marked (chunk|\d+ chunks)\b/im.test(text)) return 'added';
  if (/^No chunks were marked for force loading/im.test(text)) return 'already-forced';
  // Vanilla's failures: a box over 256 chunks, a parse error, no permission.
  if (/Too many chunks|Unknown or incomplete command|Incorrect argument|permission|Unknown command|\bfailed\b/i.test(text)) return 'refused';
  return 'unknown';
}

export interface ForceloadReport {
  command: string;
  /** true only when the game said it marked chunks; false when it refused or had nothing to add; null when its text was not understood. */
  added: boolean | null;
  answer: ForceloadAnswer | null;
  output: string[];
  released: boolean | null;
  releaseError?: string;
  [key: string]: unknown;
}

type Ctx = Pick<ToolContext, 'request' | 'sleep'>;

export class RestoreGuard {
  readonly tick: TickReport = { prior: 'unknown', priorSource: null, frozenByBridge: false, clearedWhileRunning: false, restored: null };
  forceload: ForceloadReport | null = null;
  readonly watchdog = new FreezeWatchdog();
  private tickFreeze: TickFreeze | null = null;
  /** The tick state this restore last set (null: not changed, or a change whose outcome is unknown). */
  private current: TickState | null = null;
  private box: Box | null = null;
  private settled = false;

  constructor(
    private readonly opts: { freeze: boolean; priorTickState: 'auto' | TickState; releaseForceload: boolean; freezeTimeoutSeconds: number },
    private readonly journal: WorldJournal,
  ) {}

  /** A freeze was sent (if the request died half-way the game may be frozen: settle() unfreezes anyway). */
  private get freezeSent(): boolean {
    return this.tickFreeze?.froze ?? false;
  }

  /** Step 10: the prior state (the caller's word, or `tick query`), then freeze if it runs. */
  async freeze(ctx: ToolContext): Promise<void> {
    if (!this.opts.freeze) return;
    const freeze = await TickFreeze.begin(ctx, {
      prior: this.opts.priorTickState,
      what: 'restored',
      instead: "Pass prior_tick_state='frozen' or 'running' if you know it, or freeze=false to skip tick control.",
      journal: this.journal,
    });
    this.tickFreeze = freeze;
    Object.assign(this.tick, { prior: freeze.before, priorSource: this.opts.priorTickState === 'auto' ? 'query' : 'caller' });
    if (this.tick.prior !== 'running') return;
    this.current = null;
    await freeze.freeze();
    this.current = 'frozen';
    this.tick.frozenByBridge = true;
    this.watchdog.start(this.opts.freezeTimeoutSeconds, () => this.watchdogFired(ctx));
  }

  private async watchdogFired(ctx: Ctx): Promise<void> {
    this.tick.watchdogUnfroze = true;
    try {
      this.current = null;
      // On a connection of its own: a summon the mod never answers holds the main one until it
      // times out, and this is the case that left the predecessor's game frozen. Nothing on the main
      // connection must land first: no summon follows once this fired. Retried through a reconnect.
      await setTickStateWithRetry(ctx, 'running', { ownConnection: true });
      this.current = 'running';
      this.tick.restored = true;
    } catch (err) {
      this.tick.watchdogUnfreezeError = (err as Error).message;
    }
  }

  private async set(send: SendLine, want: TickState): Promise<void> {
    this.current = null;
    await setTickState(send, want);
    this.current = want;
  }

  /** Whether the game is frozen now by the recorded state (prior frozen, or frozen here and not released). */
  get frozenNow(): boolean {
    return (this.tick.prior === 'frozen' && this.opts.freeze) || (this.tick.frozenByBridge && !this.tick.watchdogUnfroze);
  }

  /** Step 11: forceload the box's footprint; the game's text is evidence, not parsed. */
  async addForceload(ctx: Ctx, box: Box): Promise<void> {
    this.box = box;
    const command = forceloadCommand('add', box);
    this.forceload = { command, added: false, answer: null, output: [], released: null };
    // Journaled even when it is kept: a restore killed before it ended did not mean to leave it.
    await this.journal.update({ forceloads: [forceloadCommand('remove', box)] });
    const output = outputLines(await ctx.request(`CMD ${command}`));
    const answer = forceloadAnswer(output);
    Object.assign(this.forceload, { added: answer === 'added' ? true : answer === 'unknown' ? null : false, answer, output });
    // What the game did not add (refused, or already forced) is not ours to remove after a crash either.
    if (answer === 'refused' || answer === 'already-forced') this.forget({ forceloads: [] });
  }

  /** Kills while frozen leave dying bodies and drops behind, so a clear runs the game. */
  async runForClear(send: SendLine): Promise<void> {
    if (!this.frozenNow) return;
    if (this.tick.prior === 'frozen') await this.journal.update({ tick: { before: 'frozen', changed: true } });
    this.tick.clearedWhileRunning = true;
    await this.set(send, 'running');
  }

  /** After the clear; not once the watchdog released the game (it stays released). */
  async refreezeAfterClear(send: SendLine): Promise<void> {
    if (!this.tick.clearedWhileRunning || this.tick.refrozen || this.watchdog.fired) return;
    await this.set(send, 'frozen');
    this.tick.refrozen = true;
    if (this.tick.prior === 'frozen') await this.journal.update({ tick: null });
  }

  /** Put everything back, once: refreeze a frozen world a clear ran, unfreeze what this froze, release forceload if asked. */
  async settle(ctx: Ctx): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await this.watchdog.stop();
    const t = this.tick;
    // Back to the prior state from whatever this restore last set (a watchdog release included).
    if (t.prior === 'frozen' && t.clearedWhileRunning && this.current !== 'frozen') {
      try {
        await setTickStateWithRetry(ctx, 'frozen');
        t.refrozen = true;
        this.forget({ tick: null });
      } catch (err) {
        t.refrozen = false;
        t.refreezeError = (err as Error).message;
      }
    }
    if (t.prior === 'running' && this.freezeSent && this.current === 'running') {
      t.restored = true; // a clear's unfreeze, or the watchdog's
      this.tickFreeze!.disarm();
    } else if (t.prior === 'running' && this.freezeSent) {
      try {
        await this.tickFreeze!.release();
        t.restored = true;
      } catch (err) {
        t.restored = false;
        t.unfreezeError = (err as Error).message;
      }
    }
    // Attempted is enough (an add whose reply was lost may have run), unless the game said it added nothing: then a
    // remove would only unmark chunks someone else forced.
    const addedNothing = this.forceload?.answer === 'refused' || this.forceload?.answer === 'already-forced';
    if (this.opts.releaseForceload && this.forceload && this.box && !addedNothing) {
      try {
        await ctx.request(`CMD ${forceloadCommand('remove', this.box)}`);
        this.forceload.released = true;
        this.forget({ forceloads: [] });
      } catch (err) {
        this.forceload.released = false;
        this.forceload.releaseError = (err as Error).message;
      }
    } else if (this.forceload) this.forget({ forceloads: [] }); // kept, as asked (release_forceload: false)
    t.preserved = !this.opts.freeze ? null : t.prior === 'frozen' ? !(t.clearedWhileRunning && t.refrozen === false) : t.restored === true;
  }

  /**
   * An undo done: the journal may drop it. Not worth failing the restore over: if the write
   * fails, a recovery later repeats an undo that is already done (unfreeze a running game).
   */
  private forget(change: JournalChange): void {
    this.journal.update(change).catch(() => undefined);
  }

  /** For an error message: what became of the tick state and the forceload. */
  outcome(): string {
    const t = this.tick;
    const parts: string[] = [];
    if (!this.opts.freeze) parts.push('the tick state was not touched (freeze=false)');
    else if (t.prior === 'frozen')
      parts.push(t.preserved === false ? `the game was left running: refreezing failed (${t.refreezeError}); run \`tick freeze\`` : 'the game stays frozen, as it was before');
    else if (t.restored) parts.push('the game was unfrozen again, as it was running before');
    else if (this.freezeSent) parts.push(`unfreezing failed, so the game is still frozen (${t.unfreezeError}); run \`tick unfreeze\``);
    // Its state unread, or read as running and no freeze sent (the journal write before it failed).
    else parts.push('the tick state was not changed');
    if (this.forceload?.released === true) parts.push('forceload released');
    if (this.forceload?.released === false) parts.push(`releasing the forceload failed (${this.forceload.releaseError})`);
    return parts.join('; ');
  }
}
