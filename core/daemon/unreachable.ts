/**
 * How a front-end says that no daemon answers, and what to do about it. Apart from
 * default-surface.ts, which loads every built-in plugin, so that the MCP front-end in front of
 * a running daemon never loads them.
 */
import { McbridgeError } from '../host/errors.js';

export interface DaemonAddress {
  host: string;
  port: number;
}

export function howToStart(address: DaemonAddress): string {
  return (
    `No mcbridge daemon answers on ${address.host}:${address.port}. Start one next to the game server with ` +
    '`mcbridge run` (or `mcbridge run --sim` for the simulated world), or run this MCP server with ' +
    '`mcbridge mcp --embedded` so it hosts the mod link itself. Until a daemon answers, the tool list is the default ' +
    'surface of the mod\'s released capabilities and every game tool fails with code "unavailable".'
  );
}

/** The refusal for a game tool while no daemon answers (the CLI's exit-3 condition). */
export function unreachableError(address: DaemonAddress, cause: string): McbridgeError {
  return new McbridgeError('unavailable', `${howToStart(address)} (${cause})`, {
    reason: 'daemon_unreachable',
    host: address.host,
    port: address.port,
  });
}
