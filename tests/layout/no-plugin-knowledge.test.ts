import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../../core/daemon/builtins.js';
import { EVENT_CATEGORIES } from '../../../core/host/events/categories.js';
import { DEFAULT_CAPS } from '../../../core/host/link/caps.js';
import { PROTOCOL_VERBS } from '../../../core/host/link/verbs.js';

// DESIGN.md: "the host knows no plugin's verbs or tool names". Every string literal (and
// object key) in core/host is checked against what the built-in plugins declare.
const HOST_DIR = fileURLToPath(new URL('../../../core/host/', import.meta.url));

const pluginVerbs = new Set(builtinPlugins.flatMap((p) => Object.keys(p.verbs ?? {})).filter((v) => !(v in PROTOCOL_VERBS)));
const toolNames = new Set(builtinPlugins.flatMap((p) => (p.tools ?? []).map((t) => t.name)));

/**
 * Protocol words that happen to be spelled like a built-in tool: the replies to the protocol's
 * own verbs anywhere, CAPS tokens (mod-protocol.md §1.5) where they are defined, event types
 * (§3) where they are categorised.
 */
const protocolReplies = new Set(Object.values(PROTOCOL_VERBS).flatMap((spec) => spec.replies));
const PROTOCOL_WORDS: Record<string, ReadonlySet<string>> = {
  'link/caps.ts': new Set([...DEFAULT_CAPS.server, ...DEFAULT_CAPS.client]),
  'events/categories.ts': new Set(EVENT_CATEGORIES),
};

/** `emitter.on('state', …)`, `socket.once('connect', …)`: an event name, not a tool. */
function isEmitterEventName(node: ts.Node): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments[0] !== node) return false;
  const callee = call.expression;
  return ts.isPropertyAccessExpression(callee) && ['on', 'once', 'off', 'emit'].includes(callee.name.text);
}

interface Literal {
  text: string;
  node: ts.Node;
  /** An object key written as an identifier (`{ STATE: … }`): checked for verbs only. */
  key?: boolean;
}

function literalsOf(file: string): Literal[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Literal[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      found.push({ text: (node as ts.LiteralLikeNode).text, node });
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
      found.push({ text: node.name.text, node, key: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What in one file's literals and keys names a plugin's verb or a built-in tool, as "file: reason". */
function pluginKnowledgeIn(relative: string, literals: Literal[]): string[] {
  const allowed = PROTOCOL_WORDS[relative] ?? new Set<string>();
  const problems: string[] = [];
  for (const { text, node, key } of literals) {
    for (const word of text.match(/\b[A-Z][A-Z0-9_]*\b/g) ?? []) {
      if (pluginVerbs.has(word)) problems.push(`${relative}: the verb ${word} in ${JSON.stringify(text)}`);
    }
    if (!key && toolNames.has(text) && !protocolReplies.has(text) && !allowed.has(text) && !isEmitterEventName(node)) {
      problems.push(`${relative}: the tool name ${JSON.stringify(text)}`);
    }
  }
  return problems;
}

describe('the sealed host', () => {
  it('names no verb of a plugin and no built-in tool in its code (only the protocol\'s CAPS and PING)', () => {
    expect(pluginVerbs.size).toBeGreaterThan(5);
    const files = readdirSync(HOST_DIR, { recursive: true }).map(String).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('link/mod-link.ts');
    const problems = files.flatMap((f) => pluginKnowledgeIn(f.split(path.sep).join('/'), literalsOf(path.join(HOST_DIR, f))));
    expect(problems, 'move these into the plugin that sends the verb or defines the tool').toEqual([]);
  });
});
