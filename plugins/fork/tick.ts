/**
 * The fork's first step: read the tick state before anything changes. The tick helpers
 * themselves live in 'mcbridge/kit' (restore uses them too).
 */
import { McbridgeError } from 'mcbridge';
import { outputLines, tickStateOf, type SendLine, type TickState } from 'mcbridge/kit';

export { outputLines, savedTheGame, setTickState, tickStateOf, type TickState } from 'mcbridge/kit';

/** The state before the fork touches anything; refuses (changing nothing) when it cannot tell. */
export async function queryTickState(send: SendLine): Promise<TickState> {
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
