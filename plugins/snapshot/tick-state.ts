/**
 * The game's tick state through vanilla `tick` and `save-all` commands, for the plugins that
 * freeze the game (fork, restore). The feedback is vanilla's English text, not a mod contract:
 * anything not recognised is "unknown", never guessed (the predecessor read "not frozen" as frozen).
 */
import { McbridgeError, type ModReply, type ToolContext } from 'mcbridge';
import { outputLines } from 'mcbridge/kit';

export type TickState = 'frozen' | 'running';

/** One line to the mod and its reply: `ctx.request` or a clean-up context's. */
export type SendLine = (line: string) => Promise<ModReply>;

/** `The game is frozen` / `The game is running normally` (or sprinting, or lagging); else null. */
export function tickStateOf(lines: readonly string[]): TickState | null {
  for (const line of lines) {
    const text = line.trim();
    if (/^The game is frozen\b/i.test(text)) return 'frozen';
    if (/^The game is (running|sprinting)\b/i.test(text)) return 'running';
  }
  return null;
}

/** `save-all flush` answers `Saved the game`; its failure is a cmd_ack too, with another line. */
export function savedTheGame(lines: readonly string[]): boolean {
  return lines.some((line) => /^Saved the game\b/i.test(line.trim()));
}

/**
 * The state before anything changes (`tick query`); refuses, changing nothing, when it cannot
 * tell. `what` names the tool in the message and `instead` says how to go on without freezing.
 */
export async function queryTickState(send: SendLine, what: string, instead: string): Promise<TickState> {
  const lines = outputLines(await send('CMD tick query'));
  const state = tickStateOf(lines);
  if (state === null) {
    throw new McbridgeError(
      'mod_error',
      `cannot tell from \`tick query\` whether the game is frozen (it answered ${JSON.stringify(lines)}), a format this bridge cannot read; ` +
        `nothing was ${what} and nothing was changed. ${instead}`,
      { step: 'tick query', output: lines },
    );
  }
  return state;
}

/** Send `tick freeze|unfreeze` and check the game says it is in that state now. */
export async function setTickState(send: SendLine, want: TickState): Promise<void> {
  const command = want === 'frozen' ? 'tick freeze' : 'tick unfreeze';
  const lines = outputLines(await send(`CMD ${command}`));
  if (tickStateOf(lines) !== want) {
    throw new McbridgeError('mod_error', `\`${command}\` did not report the game ${want} (it answered ${JSON.stringify(lines)})`, {
      step: command,
      output: lines,
    });
  }
}

/** How long putting the tick state back keeps trying across a reconnect (the host allows clean-ups 10 s in all). */
export const TICK_RETRY_PATIENCE_MS = 8_000;

/** Set the tick state, waiting out a dropped link: a freezing tool must not leave a running game frozen. */
export async function setTickStateWithRetry(ctx: Pick<ToolContext, 'request' | 'sleep'>, want: TickState, options: { ownConnection?: boolean } = {}): Promise<void> {
  const started = Date.now();
  for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      await setTickState((line) => ctx.request(line, options.ownConnection ? { ownConnection: true } : undefined), want);
      return;
    } catch (err) {
      const code = (err as McbridgeError).code;
      if (code !== 'not_connected' || Date.now() - started + delay > TICK_RETRY_PATIENCE_MS) throw err;
      await ctx.sleep(delay);
    }
  }
}

/**
 * The host gives all clean-ups 10 s; past that its message would only say "did not finish". Give
 * up a little earlier and say the game is still frozen, and why (e.g. the link still waits for
 * the reply of a cancelled request that the mod never sent).
 */
export async function withinCleanupBudget(unfreeze: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new McbridgeError(
          'timeout',
          `the game is still frozen: \`tick unfreeze\` could not be sent within ${TICK_RETRY_PATIENCE_MS + 1_000} ms ` +
            '(the mod has not answered an earlier request, or the link is down); run `tick unfreeze` when it is back',
        ),
      );
    }, TICK_RETRY_PATIENCE_MS + 1_000);
  });
  unfreeze.catch(() => {}); // it may still settle after the race is lost
  try {
    await Promise.race([unfreeze, late]);
  } finally {
    clearTimeout(timer);
  }
}
