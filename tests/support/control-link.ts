/**
 * ControlLinks against a hostile control server (hostile-control.ts), each with what it emitted
 * recorded: its events, state and caps changes and log lines. All are stopped after each test of
 * the calling file.
 */
import { afterEach } from 'vitest';
import { ControlLink, type ControlLinkOptions } from '../../core/host/link/control/control-link.js';
import type { VerbLookup, VerbSpec } from '../../core/host/link/verbs.js';
import { capturingLog, TOKEN } from './hostile-control.js';

export type LinkEvent = Record<string, unknown>;

/** `verbs`: a table by verb, or a lookup that reads the argument too. */
export function controlLinks(verbs: Record<string, VerbSpec> | VerbLookup) {
  const lookup: VerbLookup = typeof verbs === 'function' ? verbs : (verb) => verbs[verb];
  const links: ControlLink[] = [];
  afterEach(async () => {
    for (const link of links.splice(0)) await link.stop();
  });
  /** A started link to `server`, pausing 20-40 ms between attempts unless `options` says otherwise. */
  return function start(server: { address: string; pin: string }, options: Partial<ControlLinkOptions> = {}) {
    const events: LinkEvent[] = [];
    const states: string[] = [];
    const caps: unknown[] = [];
    const { log, lines } = capturingLog();
    const link = new ControlLink({
      vantage: 'server',
      address: server.address,
      pin: server.pin,
      token: TOKEN,
      reconnectMinMs: 20,
      reconnectMaxMs: 40,
      log,
      verbs: lookup,
      onEvent: (event) => events.push(event),
      ...options,
    });
    links.push(link);
    link.on('state', (s: string) => states.push(s));
    link.on('caps', (c: Set<string> | null) => caps.push(c === null ? null : [...c].sort()));
    link.start();
    return { link, events, states, caps, lines };
  };
}
