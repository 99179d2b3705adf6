/**
 * Shell completion. `mcbridge completion bash|zsh|fish` prints a script whose shell function asks
 * `mcbridge __complete -- <words so far>` for candidates, so commands and options come from the
 * program itself and tool names from the running daemon (quickly, or not at all).
 */
import { Argument, type Command, type Option } from 'commander';
import { DAEMON_OPTIONS } from '../../authoring/options.js';
import { ApiClient } from '../../api/client.js';
import type { Manifest } from '../../host/plugin-api.js';
import { clientOptions, optionValues, type GlobalOptions } from './options.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** A completion takes this long at most to ask the daemon for tool names; past it, none. */
const DAEMON_WAIT_MS = 500;

const SCRIPTS: Record<Shell, string> = {
  bash: `# mcbridge completion for bash. Load it now:  source <(mcbridge completion bash)
# or for good:  mcbridge completion bash > ~/.local/share/bash-completion/completions/mcbridge
_mcbridge_complete() {
  local IFS=$'\\n'
  COMPREPLY=( $("\${COMP_WORDS[0]}" __complete -- "\${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null) )
}
complete -o default -F _mcbridge_complete mcbridge mc-bridge
`,
  zsh: `#compdef mcbridge mc-bridge
# mcbridge completion for zsh. Load it now:  source <(mcbridge completion zsh)  (after compinit)
# or for good: save it as _mcbridge in a directory on $fpath.
_mcbridge() {
  local -a candidates
  candidates=("\${(@f)$(\${words[1]} __complete -- "\${(@)words[1,CURRENT]}" 2>/dev/null)}")
  if [[ -n "\${candidates[1]}" ]]; then compadd -- "\${candidates[@]}"; else _files; fi
}
compdef _mcbridge mcbridge mc-bridge
`,
  fish: `# mcbridge completion for fish. Load it now:  mcbridge completion fish | source
# or for good:  mcbridge completion fish > ~/.config/fish/completions/mcbridge.fish
function __mcbridge_complete
    set -l words (commandline -opc) (commandline -ct)
    $words[1] __complete -- $words 2>/dev/null
end
complete -c mcbridge -f -a '(__mcbridge_complete)'
complete -c mc-bridge -f -a '(__mcbridge_complete)'
`,
};

function longFlags(cmd: Command): string[] {
  return cmd.options.filter((o) => !o.hidden && o.long).map((o) => o.long!);
}

function findOption(cmds: Command[], flag: string): Option | undefined {
  for (const cmd of cmds) {
    const option = cmd.options.find((o) => o.long === flag || o.short === flag);
    if (option) return option;
  }
  return undefined;
}

/** The value of a global flag among the words (`--api-port 9000` or `--api-port=9000`). */
function flagValue(words: string[], flag: string): string | undefined {
  for (let i = 0; i < words.length; i += 1) {
    if (words[i] === flag) return words[i + 1];
    if (words[i]!.startsWith(`${flag}=`)) return words[i]!.slice(flag.length + 1);
  }
  return undefined;
}

async function toolNames(global: GlobalOptions, words: string[]): Promise<string[]> {
  const port = Number(flagValue(words, '--api-port') ?? global.apiPort);
  const host = flagValue(words, '--api-host') ?? global.apiHost;
  const token = flagValue(words, '--api-token') ?? global.apiToken;
  let client: ApiClient | undefined;
  try {
    client = await ApiClient.connect({ host, port, token, connectTimeoutMs: DAEMON_WAIT_MS, frontend: 'cli' });
    const manifest = (await client.call('tools', {}, { timeoutMs: DAEMON_WAIT_MS })) as Manifest;
    return manifest.tools.filter((t) => t.available).map((t) => t.name);
  } catch {
    return [];
  } finally {
    client?.close();
  }
}

/**
 * Candidates for the last of `words` (words[0] is the program's name, the last is the word being
 * typed, maybe empty): commands, then the command's options and the global ones, an option's
 * values, and for `call` the daemon's tool names.
 */
export async function candidates(program: Command, words: string[], global: () => Promise<GlobalOptions>): Promise<string[]> {
  const current = words.at(-1) ?? '';
  const before = words.slice(1, -1);
  let command: Command | undefined;
  const positionals: string[] = [];
  for (let i = 0; i < before.length; i += 1) {
    const word = before[i]!;
    if (word.startsWith('-')) {
      const option = findOption(command ? [command, program] : [program], word.split('=')[0]!);
      if (option && (option.required || option.optional) && !word.includes('=')) i += 1;
      continue;
    }
    if (!command) command = program.commands.find((c) => c.name() === word);
    else positionals.push(word);
  }
  const previous = before.at(-1);
  const valueFor = previous?.startsWith('-') ? findOption(command ? [command, program] : [program], previous) : undefined;
  let found: string[];
  if (valueFor && (valueFor.required || valueFor.optional)) found = [...optionValues(valueFor)];
  else if (current.startsWith('-')) found = [...(command ? longFlags(command) : []), ...longFlags(program), '--help'];
  else if (!command)
    found = program
      .createHelp()
      .visibleCommands(program)
      .map((c) => c.name())
      .filter((name) => name !== 'help');
  else if (command.name() === 'completion' && positionals.length === 0) found = [...SHELLS];
  else if (command.name() === 'call' && positionals.length === 0) found = await toolNames(await global(), words);
  else found = [];
  return [...new Set(found)].filter((c) => c.startsWith(current));
}

/** Adds `completion` and the hidden `__complete` it calls back. */
export function addCompletionCommands(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (commands, options, and tool names from the running daemon)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action((shell: Shell) => {
      process.stdout.write(SCRIPTS[shell]);
    });
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .helpOption(false)
    .action(async (words: string[]) => {
      // A config the client cannot read must not break the shell: the defaults then.
      const defaults = { apiHost: DAEMON_OPTIONS.apiHost.default, apiPort: DAEMON_OPTIONS.apiPort.default } as GlobalOptions;
      const found = await candidates(program, words, () => clientOptions(program).catch(() => defaults));
      if (found.length) process.stdout.write(found.join('\n') + '\n');
    });
}
