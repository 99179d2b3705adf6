/**
 * The one tick-freeze guard of the snapshot family (fork, restore): read the state before, freeze
 * a running game, and put it back on every exit path. The unfreeze is a deferred clean-up whose
 * handle the tool runs early on its own paths (success, a reported failure), so it runs once,
 * and a cancel still unfreezes. A journal, when given, hears of the freeze before it is sent.
 */
import type { DeferredCleanup, ToolContext } from 'mcbridge';
import type { WorldJournal } from './journal.js';
import { queryTickState, setTickState, setTickStateWithRetry, withinCleanupBudget, type TickState } from './tick-state.js';

export interface FreezeOptions {
  /** The state before when the caller knows it; `auto` asks the game (`tick query`). */
  prior: TickState | 'auto';
  /** For the refusal when `tick query` cannot be read: what was not done, and how to go on. */
  what: string;
  instead: string;
  /**
   * Whether the clean-up after a cancel unfreezes on a connection of its own: once the freeze
   * was acknowledged, nothing the tool still has out (a cancelled SNAPSHOT the mod may never
   * answer) then holds the unfreeze back.
   */
  cleanupOwnConnection?: boolean;
  journal?: WorldJournal | null;
}

export class TickFreeze {
  /** The state before this guard changed anything. */
  readonly before: TickState;
  /** A freeze was sent (the game may be frozen even if its reply was lost). */
  private sent = false;
  private undo: DeferredCleanup | null = null;
  private ownConnection = false;

  private constructor(
    private readonly ctx: ToolContext,
    before: TickState,
    private readonly options: FreezeOptions,
  ) {
    this.before = before;
  }

  /** Read (or take) the state before; nothing is changed yet. */
  static async begin(ctx: ToolContext, options: FreezeOptions): Promise<TickFreeze> {
    const before = options.prior === 'auto' ? await queryTickState((line) => ctx.request(line), options.what, options.instead) : options.prior;
    return new TickFreeze(ctx, before, options);
  }

  /** Freeze the game if it ran before. */
  async freeze(): Promise<void> {
    if (this.before !== 'running' || this.sent) return;
    // Recorded, and the unfreeze registered, before the freeze is sent: if that request dies half-way the game may be frozen.
    await this.options.journal?.update({ tick: { before: 'running', changed: true } });
    this.undo = this.ctx.defer((clean) => withinCleanupBudget(this.unfreeze(clean)));
    this.sent = true;
    await setTickState((line) => this.ctx.request(line), 'frozen');
    this.ownConnection = this.options.cleanupOwnConnection === true;
  }

  /** This guard froze a running game. */
  get froze(): boolean {
    return this.sent;
  }

  /**
   * Unfreeze now if this guard froze the game, once (later calls get the same outcome); rejects
   * when it failed. `ownConnection` as in FreezeOptions.
   */
  release(ownConnection = false): Promise<void> {
    if (!this.undo) return Promise.resolve();
    this.ownConnection = ownConnection;
    return this.undo.now();
  }

  /** The game runs again by other means (a watchdog's unfreeze): nothing left to undo. */
  disarm(): void {
    this.undo?.cancel();
    this.options.journal?.update({ tick: null }).catch(() => undefined); // as in unfreeze()
  }

  private async unfreeze(ctx: ToolContext): Promise<void> {
    await setTickStateWithRetry(ctx, 'running', { ownConnection: this.ownConnection });
    // Done: if the journal cannot say so, a recovery later unfreezes a running game, which is harmless.
    this.options.journal?.update({ tick: null }).catch(() => undefined);
  }
}
