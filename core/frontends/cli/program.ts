/** The commander program: every command, its flags and help; each command's module loads in its action. */
import { Command, Option } from 'commander';
import { VERSION } from '../../util/version.js';
import { holdYoungGeneration } from '../../util/young-generation.js';
import { EXIT } from './exit.js';
import { PLAIN_MCP_OPTIONS } from './mcp-options.js';
import {
  addTableOptions,
  clientOptions,
  parseList,
  parseLogLevel,
  parseTarget,
  parseNonNegativeInt,
  parseNonNegativeSeconds,
  parsePositiveInt,
  parsePort,
  parseSeconds,
  parseTransport,
  withValues,
  MCP_TRANSPORTS,
} from './options.js';
import { EVENT_CATEGORIES } from '../../host/events/categories.js';
import { addSimCommand } from './sim.js';
import { addAuthoringCommands } from './authoring.js';
import { addDiagnosisCommands } from './doctor.js';
import { addCompletionCommands } from './completion.js';

// Each command's module is imported by its action, so a command loads only what it uses: `call`
// loads the API client, not zod, the plugins, the config loader or the MCP SDK
// (docs/decisions.md, "Client commands load no zod"; tests/core/frontends/cli/lazy-loading.test.ts).

export function buildProgram(): Command {
  // The daemon's options (global, run's, and discovery's) come from the option table,
  // core/authoring/options.ts; what is declared here belongs to one command alone.
  const program = addTableOptions(
    new Command('mcbridge').description('Minecraft Agent Toolkit: one link to the mc-agent-interface mod, served as a local JSON-lines API, MCP and this CLI').version(VERSION),
    'global',
  )
    .option('--timeout <seconds>', 'client commands: give up on each call (and cancel it) after this long', parseSeconds)
    .option('--target <name>', "client commands: the game server (target) to call on a daemon of several; watch takes a comma list or '*' (or set MCBRIDGE_TARGET)", parseTarget)
    .showHelpAfterError()
    // Every command's --help lists the global options too (--api-port, --timeout, ...): they apply there.
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();

  // Client commands read the config's apiHost/apiPort/apiToken/log keys too (client-config.ts).
  const globals = () => clientOptions(program);

  addTableOptions(program.command('run').description('run the daemon in the foreground (logs on stderr)'), 'run')
    .option('--config <file>', 'config file (default: mcbridge.config.* or package.json "mcbridge", searched from the working directory)')
    .option('--no-config', 'ignore any config file')
    .action(async (_opts, cmd: Command) => {
      // Before the daemon loads: its start-up garbage must not grow the young generation for good.
      const started = holdYoungGeneration();
      return (await import('./run.js')).runCommand(cmd, started);
    });

  program
    .command('call')
    .description('call one tool or method and print its result as JSON')
    .argument('<method>', 'tool name, e.g. state, entities, command')
    .argument('[params]', 'params as a JSON object, e.g. \'{"radius": 16}\'')
    .option('--progress', 'print progress lines on stderr')
    .action(async (method: string, params: string | undefined, opts) => (await import('./call.js')).callCommand(method, params, opts, await globals()));

  program
    .command('watch')
    .description('print pushed events, one recorded event per line (as JSON, or --format text), until interrupted')
    .addOption(withValues(new Option('--events <list>', 'categories: hello,chat,game,mark,sample,error,other or *').argParser(parseList).default(['*']), ['*', ...EVENT_CATEGORIES]))
    .option('--since <seq>', 'first replay buffered events after this seq', parseNonNegativeInt)
    .option('--limit <n>', 'with --since: replay only the newest n of them', parsePositiveInt)
    .option('--frames', 'print whole {"type":"event","event","data"} frames instead of the records')
    .addOption(new Option('--format <format>', 'json (one record per line) or text (a line for a person)').choices(['json', 'text']).default('json'))
    .action(async (opts) => (await import('./watch.js')).watchCommand(opts, await globals()));

  program
    .command('logs')
    .description("print the game server's log as records (the logs plugin): the newest, or --follow on; a record lost before it was read is said on stderr")
    .option('--since <seq>', 'the records after this seq (the `next` of a --json page); default: the newest', parseNonNegativeInt)
    .option('--level <level>', 'this level and more severe ones: TRACE, DEBUG, INFO, WARN, ERROR, FATAL', parseLogLevel)
    .option('--grep <text>', 'only records whose message or trace holds this text (any case)')
    .option('--regex', '--grep is a regular expression')
    .option('--limit <n>', 'most records per page (default 200); with --summary, how many traces', parsePositiveInt)
    .option('--json', 'the page as JSON (with --follow: one record per line)')
    .option('--follow', 'keep printing new records until interrupted')
    .option('--summary', 'counts by level and the most frequent stack traces instead (logs_summary)')
    .action(async (opts) => (await import('./logs.js')).logsCommand(opts, await globals()));

  // The predecessor's flags, as it spelt them (a flag wins over MC_AGENT_WEBHOOK_*, which wins over the file).
  program
    .command('forward')
    .description("forward the daemon's events to a webhook as signed POSTs (URL and secret from MC_AGENT_WEBHOOK_URL/SECRET or the config file)")
    .option('--config <file>', 'JSON config file (also MC_AGENT_WEBHOOK_CONFIG): url, secret, events, queue_size, max_attempts, backoff, max_backoff, timeout, or receivers')
    .option('--events <list>', 'categories to forward, comma separated, or * (default chat,game,mark,error; also MC_AGENT_WEBHOOK_EVENTS)')
    .option('--queue <n>', 'events queued per receiver at most; past it the oldest is dropped (default 256; also MC_AGENT_WEBHOOK_QUEUE)', parsePositiveInt)
    .option('--max-attempts <n>', 'attempts per event, the first included (default 5; also MC_AGENT_WEBHOOK_MAX_ATTEMPTS)', parsePositiveInt)
    .option('--backoff <seconds>', 'wait before the first retry, doubled each time with jitter (default 1.0; also MC_AGENT_WEBHOOK_BACKOFF)', parseNonNegativeSeconds)
    .option('--max-backoff <seconds>', 'longest wait between retries (default 30.0; also MC_AGENT_WEBHOOK_MAX_BACKOFF)', parseNonNegativeSeconds)
    .option('--delivery-timeout <seconds>', 'longest one attempt may take (default 10.0; also MC_AGENT_WEBHOOK_TIMEOUT)', parseSeconds)
    .option('--status', 'print what would be forwarded where (URLs redacted) and whether the daemon answers, then exit')
    .option('--reconnect-delay <seconds>', 'wait this long before reconnecting to the daemon (default 2.0)', parseSeconds)
    .option('--spool <file>', "keep undelivered events and the stream position in this file (fsync'd), so a restart resumes where it stopped")
    .option('--spool-max-bytes <n>', 'bound of the spool file; past it the oldest queued events are dropped (default 16 MiB)', parseNonNegativeInt)
    .action(async (opts) => (await import('./forward.js')).forwardCommand(opts, await globals()));

  addTableOptions(program.command('discover').description('print where the daemon would find the mod, without starting anything'), 'discover').action(async (opts) => {
    const { resolvePort } = await import('../../host/link/discovery.js');
    const resolution = resolvePort({ vantage: opts.vantage, modPort: opts.modPort, portFile: opts.portFile, serverDir: opts.serverDir });
    const { vantage, port, source, checked, error, resolved } = resolution;
    process.stdout.write(JSON.stringify({ vantage, port, source, error, checked, resolved }, null, 2) + '\n');
    if (!resolved) process.exitCode = EXIT.failed;
  });

  program
    .command('tools')
    .description('list the tools available now, and why the others are hidden')
    .option('--json', 'print the full manifest')
    .action(async (opts) => (await import('./tools.js')).toolsCommand(opts, await globals()));

  program
    .command('request-status <id>')
    .description("did a write whose answer was lost run? Asks the game server's ledger (control targets): pending, completed, failed or unknown")
    .option('--json', 'print the answer as JSON')
    .action(async (requestId: string, opts) => (await import('./request-status.js')).requestStatusCommand(requestId, opts, await globals()));

  program
    .command('server <action>')
    .description('the game server mcbridge runs for a target (its launch config): start, stop, restart, reset (a clean world from a template or a fork), status')
    .option('--template <dir>', 'reset: the template folder (inside the config folder) to copy the world from')
    .option('--fork <name>', 'reset: the fork (taken with the fork tool) to copy the world from')
    .option('--json', "print the daemon's answer as JSON")
    .action(async (action: string, opts) => (await import('./server.js')).serverCommand(action, opts, await globals()));

  program
    .command('targets')
    .description('list the game servers (targets) the daemon reaches: default, link, vantage, CAPS, the tools each hides and why')
    .option('--json', "print the daemon's answer as JSON")
    .option(
      '--discover <dir>',
      'instead: look under <dir> for game servers with the mod (mc-agent-server/port.txt), say which answer, and print config for the new ones; needs no daemon, changes nothing',
    )
    // --discover reads no daemon options: a config that fails to load is something it reports, not a stop.
    .action(async (opts) =>
      opts.discover !== undefined ? (await import('./discover.js')).discoverCommand(opts.discover, { json: opts.json === true }) : (await import('./targets.js')).targetsCommand(opts, await globals()),
    );

  addTableOptions(program.command('mcp').description('serve the toolkit over MCP (stdio, or streamable HTTP), in front of the daemon'), 'mcp')
    .addOption(
      withValues(
        new Option('--transport <transport>', "stdio or http (streamable-http, the predecessor's name, is http)").argParser(parseTransport).default(PLAIN_MCP_OPTIONS.transport),
        MCP_TRANSPORTS,
      ),
    )
    .option('--host <host>', 'HTTP: address to bind; anything but loopback needs --token', PLAIN_MCP_OPTIONS.host)
    .option('--port <port>', 'HTTP: port to listen on (0 = any free port; default 8766)', (v) => parsePort(v))
    .option('--token <token>', 'HTTP: bearer token every request must carry, or "auto" to generate and store one (or set MCBRIDGE_MCP_TOKEN)')
    .option('--token-file <file>', 'HTTP: where --token auto keeps the token (default ~/.config/mcbridge/mcp-token)')
    .option('--allowed-host <list>', 'HTTP: more Host names to accept, comma separated', parseList)
    .option('--allowed-origin <list>', 'HTTP: more Origins to accept, comma separated', parseList)
    .option('--session-idle <seconds>', 'HTTP: close a session after this long without requests or an open stream (default 1800)', parseSeconds)
    .option('--startup-wait <seconds>', "how long the first tools/list waits for the daemon's surface (default 3)", parseSeconds)
    .option('--embedded', 'when no daemon answers, run one in this process (owning the mod link)')
    .option('--sim', 'with --embedded: run on an in-process simulated mod')
    .option('--read-only', 'with --embedded: hide every tool that can change the game')
    .option('--mod-host <host>', 'with --embedded: address of the mod')
    .option('--config <file>', 'with --embedded: config file for plugins, composites and policy (default: searched from the working directory)')
    .option('--no-config', 'with --embedded: ignore any config file')
    .action(async (opts) => (await import('./mcp.js')).mcpCommand(opts, await globals()));

  program
    .command('config')
    .description('print the resolved config as JSON (secrets redacted), without starting anything')
    .option('--config <file>', 'config file (default: searched from the working directory)')
    .option('--no-config', 'ignore any config file')
    .action(async (opts) => (await import('./config.js')).configCommand(opts));

  program
    .command('plugins')
    .description('list the loaded plugins: version, source, and the state of each tool')
    .option('--json', 'print the report as JSON')
    .action(async (opts) => (await import('./plugins.js')).pluginsCommand(opts, await globals()));

  addSimCommand(program, globals);
  addAuthoringCommands(program);

  addDiagnosisCommands(program, globals);
  addCompletionCommands(program);

  return program;
}
