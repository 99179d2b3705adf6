/**
 * The dependency rules of docs/decisions.md, as data, and a checker that reads every import
 * of a source tree (static, re-export and dynamic) with the TypeScript parser.
 * Front-ends -> daemon -> plugins -> public API -> host -> util; the sim stands alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type Layer = 'util' | 'host' | 'public' | 'plugin' | 'api' | 'daemon' | 'frontend' | 'sim' | 'testing';

/** Which layer a repository path belongs to; null for files outside the rules (tests, examples). */
export function layerOf(file: string): Layer | null {
  if (file.startsWith('plugins/')) return 'plugin';
  if (file === 'core/index.ts' || file.startsWith('core/kit/') || file.startsWith('core/authoring/')) return 'public';
  const room = /^core\/([^/]+)\//.exec(file)?.[1];
  const rooms: Record<string, Layer> = {
    util: 'util',
    host: 'host',
    api: 'api',
    daemon: 'daemon',
    frontends: 'frontend',
    sim: 'sim',
    testing: 'testing',
  };
  return room ? (rooms[room] ?? null) : null;
}

/** The layers whose files each layer may import (relative imports inside core). */
const MAY_IMPORT: Record<Exclude<Layer, 'plugin'>, readonly Layer[]> = {
  util: ['util'],
  host: ['host', 'util'],
  public: ['public', 'host', 'util'],
  api: ['api', 'public', 'host', 'util'],
  daemon: ['daemon', 'api', 'public', 'host', 'util', 'sim'],
  frontend: ['frontend', 'daemon', 'api', 'public', 'host', 'util', 'sim'],
  sim: ['sim'],
  testing: ['testing', 'daemon', 'api', 'public', 'host', 'util', 'sim'],
};

/** Packages a plugin may import: what a third party's plugin can count on. */
const PLUGIN_PACKAGES = new Set(['mcbridge', 'mcbridge/kit', 'zod']);

/** Third-party packages and the only layers that may load them (so the kernel stays small). */
const PACKAGE_HOMES: Record<string, readonly Layer[]> = {
  '@modelcontextprotocol/sdk': ['frontend'],
  commander: ['frontend'],
  cosmiconfig: ['daemon'],
  jiti: ['daemon'],
};

/**
 * The plugins a built-in plugin depends on, as a published one would list them in its package.json
 * `dependencies` (docs/plugins.md, "Depending on another plugin"). It may import their entries
 * only: `index.ts` (the package's `.`) and `kit.ts` (its `./kit`), never their internals.
 */
export const PLUGIN_DEPENDENCIES: Record<string, readonly string[]> = {
  fork: ['snapshot'],
  server: ['fork'],
  restore: ['snapshot'],
};
const PLUGIN_ENTRIES = ['index.ts', 'kit.ts'];

/** The only file that knows the built-in plugin list. */
export const COMPOSITION_ROOT = 'core/daemon/builtins.ts';

export interface ImportRef {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

export interface Violation {
  file: string;
  line: number;
  specifier: string;
  rule: string;
}

/** Every module specifier a file names: imports, re-exports, `import()` and `import('x').T` types. */
export function importsOf(file: string, source: string): ImportRef[] {
  const key = `${file}\0${source}`;
  let refs = parsed.get(key);
  if (!refs) parsed.set(key, (refs = parseImports(file, source)));
  return refs;
}

// Parsing is the slow part; a planted-import check re-reads the same untouched files.
const parsed = new Map<string, ImportRef[]>();

function parseImports(file: string, source: string): ImportRef[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const out: ImportRef[] = [];
  const add = (node: ts.Node, spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (spec && ts.isStringLiteralLike(spec)) {
      out.push({ specifier: spec.text, typeOnly, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node, node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The rule an import breaks, or null. `file` and the result are repository paths. */
function check(file: string, layer: Layer, ref: ImportRef, files: ReadonlySet<string>): string | null {
  const spec = ref.specifier;
  if (spec.startsWith('node:')) return null;
  if (!spec.startsWith('.')) {
    if (layer === 'plugin') {
      return PLUGIN_PACKAGES.has(spec) ? null : `a plugin may import only 'mcbridge', 'mcbridge/kit', zod and node:*`;
    }
    if (packageOf(spec) === 'mcbridge') return `core imports its own modules by relative path, not through the package name`;
    const homes = PACKAGE_HOMES[packageOf(spec)];
    return homes && !homes.includes(layer) ? `'${packageOf(spec)}' belongs to the ${homes.join('/')} layer only` : null;
  }
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts');
  if (!files.has(target) && !files.has(target.replace(/\.ts$/, '/index.ts'))) return `it points at no source file (${target})`;
  const to = layerOf(target);
  if (layer === 'plugin') {
    const home = file.split('/').slice(0, 2).join('/');
    if (target.startsWith(home + '/')) return null;
    const [, other, entry] = target.split('/');
    const declared = PLUGIN_DEPENDENCIES[file.split('/')[1]!]?.includes(other!) === true;
    if (declared && target.split('/').length === 3 && PLUGIN_ENTRIES.includes(entry!)) return null;
    return declared
      ? `a plugin reaches into ${target}: import its declared dependency through plugins/${other}/index.ts or kit.ts`
      : `a plugin reaches into ${target}: import it from 'mcbridge' or 'mcbridge/kit'`;
  }
  if (to === 'plugin') {
    return file === COMPOSITION_ROOT ? null : `only ${COMPOSITION_ROOT} knows the built-in plugins`;
  }
  if (to === null) return `core imports ${target}, outside core and plugins`;
  if (!MAY_IMPORT[layer].includes(to)) return `the ${layer} layer may import only ${MAY_IMPORT[layer].join(', ')}, not ${to}`;
  if (layer === 'frontend' && target === 'core/host/host.ts' && !ref.typeOnly) {
    return 'front-ends never construct a Host: ask the daemon (or its API) instead';
  }
  return null;
}

/** Check a tree given as repository path -> source text. */
export function checkLayers(sources: ReadonlyMap<string, string>): Violation[] {
  const files = new Set(sources.keys());
  const out: Violation[] = [];
  for (const [file, source] of sources) {
    const layer = layerOf(file);
    if (layer === null) continue;
    for (const ref of importsOf(file, source)) {
      const rule = check(file, layer, ref, files);
      if (rule) out.push({ file, line: ref.line, specifier: ref.specifier, rule });
    }
  }
  return out;
}

/** Every .ts file under core/ and plugins/ of a repository. */
export function readTree(repo: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(repo, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts')) out.set(rel, fs.readFileSync(path.join(repo, rel), 'utf8'));
    }
  };
  walk('core');
  walk('plugins');
  return out;
}

export function describeViolation(v: Violation): string {
  return `${v.file}:${v.line} imports '${v.specifier}': ${v.rule}`;
}
