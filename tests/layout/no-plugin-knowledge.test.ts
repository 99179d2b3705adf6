import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../core/daemon/builtins.js';
import { EVENT_CATEGORIES } from '../../core/host/events/categories.js';
import { DEFAULT_CAPS } from '../../core/host/link/caps.js';
import { PROTOCOL_VERBS } from '../../core/host/link/verbs.js';
import { REPO } from '../support/config-project.js';
import { COMPOSITION_ROOT, readTree } from '../support/layers.js';

// The host knows no plugin's verbs or tool names (docs/plugins.md), and neither do the daemon,
// the front-ends or the kit: each capability is a plugin all the way. Every string literal (and
// object key) in these folders is checked against what the built-in plugins declare.
const SEALED = ['core/host/', 'core/daemon/', 'core/frontends/', 'core/kit/'];

/**
 * KNOWN: built-in tools the front-ends and the composite context still name, with no branch yet
 * to move them (each needs its own change: a follow-up issue). The CLI and MCP call `status`,
 * `events` and `capabilities` for their own features, the CLI's spinner words the long calls,
 * the MCP resources read events and snapshots, and a composite's `ctx` has `command`, `state`
 * and `wait` helpers.
 */
const KNOWN: ReadonlyArray<readonly [file: string, name: string]> = [
  ['core/daemon/builtins.ts', 'describeSurface'],
  ['core/frontends/mcp/frontend.ts', 'status'],
  ['core/frontends/mcp/prompts.ts', 'capabilities'],
  ['core/frontends/cli/checks.ts', 'status'],
  ['core/daemon/port-taken.ts', 'status'], // asks the daemon holding a taken API port who it is
  ['core/frontends/cli/plugins.ts', 'status'],
  ['core/frontends/cli/watch.ts', 'events'],
  ['core/frontends/cli/request-status.ts', 'request_status'], // the CLI command of the tool (docs/control.md)
  ['core/frontends/cli/server.ts', 'status'], // an action of `mcbridge server`, called as server_status (docs/servers.md)
  ...['wait', 'wait_for', 'fork', 'restore', 'snapshot', 'command', 'command_output'].map((name) => ['core/frontends/cli/spinner.ts', name] as const),
  ...['events', 'snapshots', 'snapshot', 'logs'].map((name) => ['core/frontends/mcp/resources.ts', name] as const),
  ...['logs', 'logs_summary'].map((name) => ['core/frontends/cli/logs.ts', name] as const), // the CLI command of the tools (docs/logs.md)
  ['core/frontends/cli/program.ts', 'logs'], // declares `mcbridge logs`
  ...['command', 'state', 'wait'].map((name) => ['core/daemon/config/composites.ts', name] as const),
  ['core/daemon/config/scenarios.ts', 'wait_for'], // a scenario's `wait_for` step is a call of that tool (docs/plugins.md#scenarios)
];

/** Not knowledge of a plugin: words spelled like a built-in tool that mean something else where they stand. */
const HOMONYMS: ReadonlyArray<readonly [file: string, name: string]> = [
  ['core/frontends/cli/doctor.ts', 'status'], // the CLI command `mcbridge status`
  ['core/frontends/cli/sim.ts', 'chat'], // the CLI command `mcbridge sim chat`
  ['core/frontends/cli/sim-console.ts', 'chat'], // a player's chat line on the sim's console
  ['core/frontends/cli/watch-format.ts', 'context'], // an event's field
  ['core/kit/text.ts', 'command'], // a parameter's name
  ['core/frontends/cli/create-plugin.ts', 'STATE'], // the source of a new plugin, which sends STATE itself
  // The mod's two general verbs, which several plugins send, declared once for all of them (issue
  // 23): a fact of the mod's protocol (docs/protocol.md), with the CAPS token each needs.
  ['core/kit/verbs.ts', 'CMD'],
  ['core/kit/verbs.ts', 'STATE'],
  ['core/kit/verbs.ts', 'command'],
  ['core/kit/verbs.ts', 'state'],
  // The control protocol's ledger op, which the link asks itself after a reconnect (like PING): a
  // fact of the protocol (docs/control.md), spelled like the tool that asks it for a caller.
  ['core/host/link/control/control-link.ts', 'request_status'],
  // The same op on a legacy link, which the daemon's own write ledger answers (the mod keeps none).
  ['core/host/link/mod-link.ts', 'request_status'],
];

const pluginVerbs = new Set(builtinPlugins.flatMap((p) => Object.keys(p.verbs ?? {})).filter((v) => !(v in PROTOCOL_VERBS)));
const toolNames = new Set(builtinPlugins.flatMap((p) => (p.tools ?? []).map((t) => t.name)));

/**
 * Protocol words that happen to be spelled like a built-in tool: the replies to the protocol's
 * own verbs anywhere, CAPS tokens (docs/protocol.md#capabilities-caps) where they are defined,
 * event types (docs/protocol.md#events) where they are categorised.
 */
const protocolReplies = new Set(Object.values(PROTOCOL_VERBS).flatMap((spec) => spec.replies));
const PROTOCOL_WORDS: Record<string, ReadonlySet<string>> = {
  'core/host/link/caps.ts': new Set([...DEFAULT_CAPS.server, ...DEFAULT_CAPS.client]),
  'core/host/events/categories.ts': new Set(EVENT_CATEGORIES),
};

interface Finding {
  file: string;
  /** The verb, tool name or plugin export that is known. */
  name: string;
  what: string;
}

/** `emitter.on('state', …)`, `socket.once('connect', …)`: an event name, not a tool. */
function isEmitterEventName(node: ts.Node): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments[0] !== node) return false;
  const callee = call.expression;
  return ts.isPropertyAccessExpression(callee) && ['on', 'once', 'off', 'emit'].includes(callee.name.text);
}

/** What one file's string literals and object keys know: a plugin's verb, a built-in tool's name (bare, or as MCP shows it: mc_<name>). */
function literalKnowledge(file: string, source: ts.SourceFile): Finding[] {
  const allowed = PROTOCOL_WORDS[file] ?? new Set<string>();
  const found: Finding[] = [];
  const check = (text: string, node: ts.Node, key: boolean) => {
    for (const word of text.match(/\b[A-Z][A-Z0-9_]*\b/g) ?? []) {
      if (pluginVerbs.has(word)) found.push({ file, name: word, what: `the verb ${word} in ${JSON.stringify(text)}` });
    }
    if (key) return;
    if (toolNames.has(text) && !protocolReplies.has(text) && !allowed.has(text) && !isEmitterEventName(node)) {
      found.push({ file, name: text, what: `the tool name ${JSON.stringify(text)}` });
    }
    for (const [, name] of text.matchAll(/\bmc_([a-z][a-z0-9_]*)\b/g)) {
      if (toolNames.has(name!)) found.push({ file, name: name!, what: `the tool mc_${name} in ${JSON.stringify(text.slice(0, 60))}…` });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      check((node as ts.LiteralLikeNode).text, node, false);
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
      check(node.name.text, node, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The composition root may import each built-in plugin's entry and put it in the list, nothing
 * more: a plugin it names twice, or a plugin module it re-exports, is knowledge of that plugin.
 */
function compositionRootKnowledge(file: string, source: ts.SourceFile): Finding[] {
  const found: Finding[] = [];
  const imported = new Set<string>();
  for (const statement of source.statements) {
    const from =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : '';
    if (!from.includes('/plugins/')) continue;
    if (ts.isExportDeclaration(statement)) {
      const names = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements.map((e) => e.name.text) : ['*'];
      for (const name of names) found.push({ file, name, what: `re-exports ${name} from ${from}` });
    } else if (ts.isImportDeclaration(statement)) {
      if (!/\/plugins\/[^/]+\/index\.js$/.test(from)) found.push({ file, name: from, what: `imports ${from}, not a plugin's entry` });
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) imported.add(e.name.text);
      if (statement.importClause?.name) imported.add(statement.importClause.name.text);
    }
  }
  const uses = new Map<string, number>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && imported.has(node.text) && !ts.isImportSpecifier(node.parent) && !ts.isImportClause(node.parent)) {
      uses.set(node.text, (uses.get(node.text) ?? 0) + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const [name, count] of uses) if (count > 1) found.push({ file, name, what: `names the plugin ${name} ${count} times (only in the list)` });
  return found;
}

const tree = readTree(REPO);

function knowledgeIn(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  return [...literalKnowledge(file, source), ...(file === COMPOSITION_ROOT ? compositionRootKnowledge(file, source) : [])];
}

const key = (file: string, name: string) => `${file} ${name}`;
const TOLERATED = new Set([...KNOWN, ...HOMONYMS].map(([file, name]) => key(file, name)));

describe('core knows no plugin', () => {
  const sealed = [...tree.keys()].filter((f) => SEALED.some((dir) => f.startsWith(dir)));
  const findings = sealed.flatMap((f) => knowledgeIn(f, tree.get(f)!));

  it('reads every sealed folder', () => {
    expect(pluginVerbs.size).toBeGreaterThan(5);
    expect(toolNames.size).toBeGreaterThan(10);
    for (const dir of SEALED)
      expect(
        sealed.some((f) => f.startsWith(dir)),
        dir,
      ).toBe(true);
  });

  it("names no verb of a plugin and no built-in tool in host, daemon, front-ends or kit (only the protocol's CAPS and PING)", () => {
    const problems = findings.filter((f) => !TOLERATED.has(key(f.file, f.name))).map((f) => `${f.file}: ${f.what}`);
    expect(problems, 'move these into the plugin that sends the verb or defines the tool').toEqual([]);
  });

  it('tolerates only offenders that still offend (remove an entry once its branch has removed the knowledge)', () => {
    const found = new Set(findings.map((f) => key(f.file, f.name)));
    expect([...KNOWN, ...HOMONYMS].filter(([file, name]) => !found.has(key(file, name)))).toEqual([]);
  });

  it.each([
    ['core/host/host.ts', "const verb = 'ENTITIES 8';", 'the verb ENTITIES'],
    ['core/frontends/mcp/prompts.ts', "const hint = 'call mc_wait_for next';", 'the tool mc_wait_for'],
    ['core/kit/text.ts', "const tool = 'command_output';", 'the tool name "command_output"'],
    [COMPOSITION_ROOT, "export { summarize } from '../../plugins/entities/index.js';", 're-exports summarize'],
    [COMPOSITION_ROOT, 'const odd = builtinPlugins.filter((p) => p === statePlugin);', 'names the plugin statePlugin 2 times'],
  ])('a planted line in %s is found: %s', (file, line, what) => {
    const found = knowledgeIn(file, `${line}\n${tree.get(file)!}`).filter((f) => !TOLERATED.has(key(f.file, f.name)));
    expect(found.map((f) => f.what).join('\n')).toContain(what);
  });
});
