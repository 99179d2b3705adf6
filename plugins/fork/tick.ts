/**
 * The game's tick state through vanilla `tick` and `save-all` commands (mod-protocol §6.4). The
 * feedback is vanilla's English text, not a mod contract: anything not recognised is "unknown",
 * never guessed (the predecessor read "not frozen" as frozen).
 */
import { McbridgeError, type ModReply } from 'mcbridge';

export type TickState = 'frozen' | 'running';

export function outputLines(reply: ModReply): string[] {
  const output = reply.output;
  if (!Array.isArray(output)) return [];
  return output.flatMap((line) => String(line).split('\n'));
}

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

type Send = (line: string) => Promise<ModReply>;

/** The state before the fork touches anything; refuses (changing nothing) when it cannot tell. */
export async function queryTickState(send: Send): Promise<TickState> {
  const lines = outputLines(await send('CMD tick query'));
  const state = tickStateOf(lines);
  if (state === null) {
    throw new McbridgeError(
      'mod_error',
      `cannot tell from \`tick query\` whether the game is frozen (it answered ${JSON.stringify(lines)}); nothing was changed. ` +
        'Pass freeze: false to fork without freezing.',
      { step: 'tick query', output: lines },
    );
  }
  return state;
}

/** Send `tick freeze|unfreeze` and check the game says it is in that state now. */
export async function setTickState(send: Send, want: TickState): Promise<void> {
  const command = want === 'frozen' ? 'tick freeze' : 'tick unfreeze';
  const lines = outputLines(await send(`CMD ${command}`));
  if (tickStateOf(lines) !== want) {
    throw new McbridgeError('mod_error', `\`${command}\` did not report the game ${want} (it answered ${JSON.stringify(lines)})`, {
      step: command,
      output: lines,
    });
  }
}
