/** `mcbridge forward`: the webhook plugin's standalone forwarder (plugins/webhook/standalone.ts), given this CLI's daemon client. */
import { ApiClient } from '../../api/client.js';
import { createLogger } from '../../util/log.js';
import type { GlobalOptions } from './options.js';
import { singleTarget } from './target.js';
import { followEvents } from './watch.js';

export async function forwardCommand(opts: Record<string, unknown>, global: GlobalOptions): Promise<void> {
  const { builtinCommands } = await import('../../daemon/builtins.js');
  // One target: the spool keeps one stream position, and each target's seq is its own.
  const target = singleTarget(global.target, 'forward');
  const { forward } = await builtinCommands.forward();
  const until = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await forward(
    opts,
    {
      connect: () => ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'forward' }),
      follow: target === undefined ? followEvents : (client, follow, emit, until) => followEvents(client, { ...follow, target }, emit, until),
      log: createLogger({ level: global.logLevel, format: global.logFormat, name: 'mcbridge-forward' }),
      env: process.env,
      print: (text) => void process.stdout.write(text),
    },
    until,
  );
}
