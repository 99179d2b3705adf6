/**
 * `mcbridge request-status <id>`: what the game server's ledger (on a legacy target, the daemon's
 * own) says of a write whose answer was lost (the `request_status` tool). docs/control.md. An id
 * nobody has a record of exits 1, the answer still on stdout: a script must not read it as done.
 */
import { ApiClient } from '../../api/client.js';
import { withTarget } from '../target-param.js';
import { EXIT } from './exit.js';
import type { GlobalOptions } from './options.js';
import { singleTarget } from './target.js';

const SAYS: Record<string, string> = {
  pending: 'still running on the server; ask again later',
  completed: 'it ran',
  failed: 'it ran and failed',
  unknown: 'the server has no record of it (the game restarted, or it was never sent): check the game itself, and do not send it again blindly',
};

export async function requestStatusCommand(requestId: string, opts: { json?: boolean }, global: GlobalOptions): Promise<void> {
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  try {
    const answer = (await client.call('request_status', withTarget({ request_id: requestId }, singleTarget(global.target, 'request-status')))) as Record<string, unknown>;
    const state = String(answer.state);
    if (state === 'unknown') process.exitCode = EXIT.failed;
    if (opts.json) {
      process.stdout.write(JSON.stringify(answer, null, 2) + '\n');
      return;
    }
    const detail =
      state === 'completed' && answer.result !== undefined ? `\n${JSON.stringify(answer.result)}` : state === 'failed' && answer.error !== undefined ? `\n${JSON.stringify(answer.error)}` : '';
    // The daemon's own record says more than the generic words (sent, and when).
    const says = typeof answer.note === 'string' ? answer.note : (SAYS[state] ?? '');
    process.stdout.write(`${requestId}: ${state}: ${says}${detail}\n`);
  } finally {
    client.close();
  }
}
