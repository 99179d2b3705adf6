/**
 * The CLI's entry: the plain `call` and `mcp` forms run without commander (quick-call.ts); everything else
 * through the full program (program.ts).
 */
import { describeError, EXIT, exitCodeFor } from './exit.js';
import { quickCall, quickMcp, runQuickCall, runQuickMcp } from './quick-call.js';

function exitCode(): number {
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
}

/**
 * stdout closed by its reader (`mcbridge watch | head`): the reader took what it wanted, so the
 * command ends at once with status 0 and no word (docs/decisions.md, "A closed stdout ends the CLI
 * with 0"). The MCP front-end handles its own stdout: there a closed stdout is a client gone.
 */
function endQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    process.stderr.write(describeError(err) + '\n');
    process.exit(EXIT.failed);
  });
}

/** Parse and run; never throws, returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  if (argv[2] !== 'mcp') endQuietlyOnClosedStdout();
  try {
    const quick = quickCall(argv.slice(2));
    if (quick) {
      await runQuickCall(quick);
      return exitCode();
    }
    const mcp = quickMcp(argv.slice(2));
    if (mcp) {
      await runQuickMcp(mcp);
      return exitCode();
    }
    const [{ buildProgram }, { CommanderError }] = await Promise.all([import('./program.js'), import('commander')]);
    try {
      await buildProgram().parseAsync(argv);
    } catch (err) {
      if (!(err instanceof CommanderError)) throw err;
      // `commander.help` is the help shown for a missing command: a usage mistake like the others.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      return EXIT.usage;
    }
    return exitCode();
  } catch (err) {
    process.stderr.write(describeError(err) + '\n');
    return exitCodeFor(err);
  }
}
