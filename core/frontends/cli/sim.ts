/**
 * `mcbridge sim`: a simulated mod a daemon can discover, and `mcbridge sim chat|join|leave|die`,
 * which drive the simulated players of a daemon that runs its sim in-process (`run --sim`)
 * through its sim_* tools.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { McbridgeError } from '../../host/errors.js';
import { UsageError } from './exit.js';
import { DEFAULT_SERVER_PORT } from '../../host/link/discovery.js';
import type { SimulatedMod } from '../../sim/index.js';
import { addTableOptions, parseNonNegativeInt, parsePort, type GlobalOptions } from './options.js';

/** The port file is ours to remove only while it still names our port (another sim may have taken it over). */
function removePortFile(sim: SimulatedMod): void {
  try {
    if (fs.readFileSync(sim.portFile, 'utf8').trim() === String(sim.port)) fs.rmSync(sim.portFile, { force: true });
  } catch {
    // Already gone.
  }
}

interface SimCliOptions {
  vantage: 'server' | 'client';
  dir: string;
  port?: number;
  seed?: number;
  control?: boolean;
  controlPort?: number;
  console?: boolean;
}

/** The control listener's lines for whoever configures a target: where, which pin, and a token once. */
function controlLines(sim: SimulatedMod): string {
  const control = sim.control;
  if (!control) return '';
  const token = control.bootstrapToken ? `token: ${control.bootstrapToken}\n` : '';
  return `control: ${sim.host}:${control.port} ${control.fingerprint}\n${token}`;
}

async function runSim(opts: SimCliOptions, globals: GlobalOptions): Promise<void> {
  const startedAt = Date.now();
  if (opts.console && opts.vantage !== 'server') throw new UsageError('--console runs the sim as a dedicated server: it has no client vantage');
  const simConsole = opts.console ? await import('./sim-console.js') : null;
  simConsole?.startingLines(process.stdout);
  const [{ startSim }, { createLogger }] = await Promise.all([import('../../sim/index.js'), import('../../util/log.js')]);
  const log = createLogger({ level: globals.logLevel, format: globals.logFormat });
  // Listening before the ready line is printed: whoever reads it may signal at once.
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const sim = await startSim({
    vantage: opts.vantage,
    dir: opts.dir,
    ...(opts.port !== undefined ? { port: opts.port } : { basePort: opts.vantage === 'client' ? 25580 : DEFAULT_SERVER_PORT }),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.control || opts.controlPort !== undefined ? { control: opts.controlPort !== undefined ? { port: opts.controlPort } : true } : {}),
  });
  if (simConsole) {
    log.info({ port: sim.port, portFile: sim.portFile }, `simulated server-vantage mod listening on 127.0.0.1:${sim.port}, console on stdin`);
    return simConsole.runConsole({ sim, stdin: process.stdin, stdout: process.stdout, signalled, startedAt, afterStop: () => removePortFile(sim) });
  }
  process.stdout.write(JSON.stringify({ vantage: opts.vantage, port: sim.port, dir: sim.dir, portFile: sim.portFile }) + '\n' + controlLines(sim));
  log.info({ port: sim.port, portFile: sim.portFile }, `simulated ${opts.vantage}-vantage mod listening on 127.0.0.1:${sim.port}`);
  // The token is never logged: stdout above is its one appearance.
  if (sim.control) log.info({ controlPort: sim.control.port, fingerprint: sim.control.fingerprint }, `control protocol 1 (TLS) on ${sim.host}:${sim.control.port}`);
  await signalled;
  await sim.stop();
  // Unlike the real mod, which leaves a stale port.txt behind, so that nothing discovers a dead sim.
  removePortFile(sim);
}

/** One sim_* tool call; a daemon without an in-process sim is told how to get one. */
async function drive(tool: string, params: Record<string, unknown>, globals: GlobalOptions): Promise<void> {
  const { callCommand } = await import('./call.js');
  try {
    await callCommand(tool, JSON.stringify(params), {}, globals);
  } catch (err) {
    if (err instanceof McbridgeError && err.code === 'unknown_method') {
      throw new McbridgeError(
        'unknown_method',
        `the daemon on ${globals.apiHost}:${globals.apiPort} does not run a simulated mod in its own process, so it has no ${tool} tool; ` +
          'start one with `mcbridge run --sim` (or `mcbridge mcp --embedded --sim`)',
      );
    }
    throw err;
  }
}

export function addSimCommand(program: Command, globals: () => Promise<GlobalOptions>): void {
  const sim = addTableOptions(program.command('sim').description('run a simulated mod (server vantage by default) that a daemon can discover; or drive the players of a `run --sim` daemon'), 'sim')
    .option('--dir <dir>', 'game directory to write mc-agent-server/port.txt into (removed again on exit)', '.')
    .option('--port <port>', `port to listen on (0 = any; default: ${DEFAULT_SERVER_PORT} or the next free one)`, (v) => parsePort(v))
    .option('--seed <n>', 'seed for the deterministic world', parseNonNegativeInt)
    .option('--control', 'also serve control protocol 1 (TLS) and print its address, fingerprint and a first token')
    .option('--control-port <port>', 'port of the control listener (implies --control; default: any free one)', (v) => parsePort(v))
    .option('--console', 'run as a dedicated server runs: Log4j console lines on stdout, the server console (stop, save-all, commands) on stdin')
    .action(async (opts) => runSim(opts, await globals()));

  sim
    .command('chat')
    .description('a simulated player says something in chat (daemon started with `run --sim`)')
    .argument('<player>', 'an online player, e.g. Steve')
    .argument('<text...>', 'the message')
    .action(async (player: string, text: string[]) => drive('sim_chat', { player, text: text.join(' ') }, await globals()));
  sim
    .command('join')
    .description('a simulated player logs in at the world spawn')
    .argument('<player>', 'a new player name, e.g. Alex')
    .action(async (player: string) => drive('sim_join', { player }, await globals()));
  sim
    .command('leave')
    .description('a simulated player logs out')
    .argument('<player>')
    .action(async (player: string) => drive('sim_leave', { player }, await globals()));
  sim
    .command('die')
    .description('a simulated player dies and respawns at the world spawn')
    .argument('<player>')
    .action(async (player: string) => drive('sim_die', { player }, await globals()));
}
