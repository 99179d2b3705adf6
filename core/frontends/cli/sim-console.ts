/**
 * `mcbridge sim --console`: the simulated mod run as a dedicated server is run, so a launcher
 * (issue 36's server plugin) treats it as one: Log4j console lines in the vanilla layout on stdout,
 * the server console on stdin (`stop`, `save-all`, any game command), EOF on stdin ignored.
 */
import type { Readable, Writable } from 'node:stream';
import type { SimulatedMod } from '../../sim/index.js';

export type ConsoleLevel = 'INFO' | 'WARN' | 'ERROR';

/** Longest console line taken (vanilla's chat and command bound is 32,767 characters). */
export const MAX_CONSOLE_LINE = 32 * 1024;
/** The game version the sim's greeting names. */
const MINECRAFT = '26.2';

const two = (n: number) => String(n).padStart(2, '0');

/** `[12:34:56] [Server thread/INFO]: msg`, the vanilla console layout (local time, as the game prints it). */
export function consoleLine(message: string, level: ConsoleLevel = 'INFO', thread = 'Server thread', now = new Date()): string {
  return `[${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}] [${thread}/${level}]: ${message}\n`;
}

/**
 * stdin cut into lines of at most `max` bytes: a longer one is refused whole (its rest skipped up
 * to the next line break), so a stray binary stream holds no more than `max` bytes here.
 */
export class ConsoleInput {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onTooLong: (bytes: number) => void,
    private readonly max = MAX_CONSOLE_LINE,
  ) {}

  push(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(10, from);
      const end = nl === -1 ? chunk.length : nl;
      this.size += end - from;
      if (!this.skipping && this.size > this.max) {
        this.skipping = true;
        this.parts = [];
      }
      if (!this.skipping) this.parts.push(chunk.subarray(from, end));
      if (nl === -1) return;
      this.endLine();
      from = nl + 1;
    }
  }

  private endLine(): void {
    const size = this.size;
    const text = this.skipping ? null : Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    if (text === null) this.onTooLong(size);
    else this.onLine(text);
  }
}

/** What the console prints for an event the sim pushes (vanilla logs chat; the mod its own doings). */
function eventLine(event: Record<string, unknown>): [string, ConsoleLevel] | null {
  const text = typeof event.text === 'string' ? event.text : typeof event.message === 'string' ? event.message : '';
  switch (event.type) {
    case 'chat':
      return [`<${String(event.sender)}> ${text}`, 'INFO'];
    // The console's own commands print their feedback; a linked daemon's go back to it, as rcon's do.
    case 'game':
    case 'hello':
      return null;
    case 'portfile_error':
    case 'bind_error':
      return [`[mc-agent-interface] ${event.type}: ${text}`, 'ERROR'];
    default:
      return [`[mc-agent-interface] ${String(event.type)}: ${text}`, 'INFO'];
  }
}

export interface ConsoleRun {
  sim: SimulatedMod;
  stdin: Readable;
  stdout: Writable;
  /** Resolves on SIGINT or SIGTERM: the same shutdown as `stop`. */
  signalled: Promise<void>;
  /** When the start began (`Date.now()`), for the `Done (1.234s)!` line. */
  startedAt: number;
  /** Removes the port file once the sim stopped. */
  afterStop: () => void;
}

/** The lines a dedicated server prints before it loads anything. */
export function startingLines(stdout: Writable): void {
  stdout.write(consoleLine(`Starting minecraft server version ${MINECRAFT}`));
  stdout.write(consoleLine('Loading properties'));
  stdout.write(consoleLine('Default game type: SURVIVAL'));
}

/** Listening: the ready lines, then the console until `stop` or a signal; the world is saved on the way down. */
export async function runConsole(run: ConsoleRun): Promise<void> {
  const { sim, stdin, stdout } = run;
  const print = (message: string, level: ConsoleLevel = 'INFO') => {
    for (const line of message.split('\n')) stdout.write(consoleLine(line, level));
  };
  const level = sim.world.levelName;
  print(`[mc-agent-interface] listening on ${sim.host}:${sim.port}, port file ${sim.portFile}`);
  if (sim.control) {
    print(`[mc-agent-interface] control protocol 1 (TLS) on ${sim.host}:${sim.control.port} ${sim.control.fingerprint}`);
    // Shown once, as without --console; it lands in the server log like any mod's first-run secret.
    if (sim.control.bootstrapToken) print(`[mc-agent-interface] control token (shown once): ${sim.control.bootstrapToken}`);
  }
  print(`Preparing level "${level}"`);
  print(`Done (${((Date.now() - run.startedAt) / 1000).toFixed(3)}s)! For help, type "help"`);
  const unsubscribe = sim.onEvent((event) => {
    const line = eventLine(event);
    if (line) print(...line);
  });
  // A launcher's user wants to see the mod link come and go.
  const unwatch = sim.onConnection((change, peer) => print(`[mc-agent-interface] ${change === 'open' ? 'agent connected from' : 'agent disconnected:'} ${peer} (${sim.connections} open)`));

  let stopAsked!: () => void;
  const stopped = new Promise<void>((resolve) => (stopAsked = resolve));
  let stopping = false;
  // One command at a time, in the order typed: their feedback comes out in that order too.
  let queue = Promise.resolve();
  const input = new ConsoleInput(
    (raw) => {
      const command = raw.trim().replace(/^\//, '');
      if (command === '' || stopping) return;
      if (command === 'stop') {
        stopping = true;
        queue = queue.then(stopAsked);
        return;
      }
      queue = queue.then(async () => {
        try {
          const output = await sim.consoleCommand(command);
          if (output.length > 0) print(output.join('\n'));
        } catch (err) {
          print(`Command failed: ${(err as Error).message}`, 'ERROR');
        }
      });
    },
    (bytes) => print(`Ignored a console line of ${bytes} bytes (at most ${MAX_CONSOLE_LINE})`, 'WARN'),
  );
  const onData = (chunk: Buffer) => input.push(chunk);
  stdin.on('data', onData);
  // A closed stdin is no stop: a server started with `< /dev/null` keeps running.
  stdin.on('error', () => {});

  await Promise.race([stopped, run.signalled]);
  stopping = true;
  stdin.off('data', onData);
  stdin.destroy();
  unsubscribe();
  unwatch();
  print('Stopping the server');
  print('Stopping server');
  print('Saving players');
  print('Saving worlds');
  await sim.stop();
  run.afterStop();
  print(`Saving chunks for level 'ServerLevel[${level}]'/minecraft:overworld`);
  print('All dimensions are saved');
}
