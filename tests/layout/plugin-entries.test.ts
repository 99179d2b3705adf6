import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/config-project.js';
import { readTree } from '../support/layers.js';

// A plugin's entry (plugins/<name>/index.ts) is what a package would publish: its plugin, and
// what another plugin imports from it as a declared dependency. Tests reach a plugin's internals
// through the plugin's own modules, so no test helper becomes public surface.

/**
 * TOLERATED: the capabilities plugin's shape is re-exported for the MCP front-end (the KNOWN
 * list of no-plugin-knowledge.test.ts). Remove an entry once it no longer applies: the last test
 * fails on one that is stale.
 */
const TOLERATED: ReadonlyArray<readonly [entry: string, name: string]> = [
  ['plugins/capabilities/index.ts', 'describeSurface'],
  ['plugins/capabilities/index.ts', 'capabilitiesResult'],
];

/** What a module exports by name: `export const/function/class/type/interface`, `export { … }`, `export default`, `export *`. */
function exportedNames(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportAssignment(statement)) names.push('default');
    else if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (!clause) names.push('*');
      else if (ts.isNamedExports(clause)) names.push(...clause.elements.map((e) => e.name.text));
      else names.push(clause.name.text);
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) names.push('default');
      else if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
      } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) names.push((statement.name as ts.Identifier).text);
    }
  }
  return names;
}

/** `plugins/<name>/index.ts` of the plugin an import in `file` names: relative into it, or a package whose name ends in its name. */
function pluginEntryOf(file: string, specifier: string): string | null {
  if (specifier.startsWith('.')) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    const m = /^plugins\/([^/]+)\/index\.js$/.exec(target);
    return m ? `plugins/${m[1]}/index.ts` : null;
  }
  const m = /[/-]([a-z0-9-]+)$/.exec(specifier);
  return m ? `plugins/${m[1]}/index.ts` : null;
}

/** Names that files of other plugins import from each plugin's entry: that plugin's declared API. */
function declaredApis(tree: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const apis = new Map<string, Set<string>>();
  for (const [file, text] of tree) {
    if (!file.startsWith('plugins/')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const entry = pluginEntryOf(file, statement.moduleSpecifier.text);
      if (!entry || !tree.has(entry) || file.startsWith(path.posix.dirname(entry) + '/')) continue;
      const bindings = statement.importClause?.namedBindings;
      const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => (e.propertyName ?? e.name).text) : [];
      if (!apis.has(entry)) apis.set(entry, new Set());
      for (const name of names) apis.get(entry)!.add(name);
    }
  }
  return apis;
}

const tree = readTree(REPO);
const entries = [...tree.keys()].filter((f) => /^plugins\/[^/]+\/index\.ts$/.test(f));
const tolerated = new Set(TOLERATED.map(([entry, name]) => `${entry} ${name}`));

/** What an entry exports beyond its plugin (`default`, `<x>Plugin`, a `create<X>Plugin` factory) and its declared API. */
function extraExports(entry: string, text: string, apis: Map<string, Set<string>>): string[] {
  return exportedNames(entry, text)
    .filter((name) => name !== 'default' && !/^(create[A-Z]\w*)?[a-zA-Z]*Plugin$/.test(name) && !apis.get(entry)?.has(name))
    .map((name) => `${entry} ${name}`);
}

describe('a plugin entry exports its plugin and its declared API only', () => {
  const apis = declaredApis(tree);
  const extras = entries.flatMap((entry) => extraExports(entry, tree.get(entry)!, apis));

  it('holds for every built-in plugin', () => {
    expect(entries.length).toBeGreaterThan(10);
    expect(
      extras.filter((e) => !tolerated.has(e)),
      'move these into a module of the plugin, and import them from there in tests',
    ).toEqual([]);
  });

  it('tolerates only exports that are still there and still extra', () => {
    expect([...tolerated].filter((e) => !extras.includes(e))).toEqual([]);
  });

  it('finds a planted helper, and allows what another plugin imports from the entry', () => {
    const planted = `export function helperForTests() {}\nexport { x as y } from './x.js';\n${tree.get('plugins/state/index.ts')!}`;
    expect(extraExports('plugins/state/index.ts', planted, new Map())).toEqual(['plugins/state/index.ts helperForTests', 'plugins/state/index.ts y']);
    const withUser = new Map(tree).set('plugins/fork/uses-state.ts', "import { helperForTests } from '../state/index.js';\n");
    expect(extraExports('plugins/state/index.ts', planted, declaredApis(withUser))).toEqual(['plugins/state/index.ts y']);
  });
});
