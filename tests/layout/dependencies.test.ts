import { describe, expect, it } from 'vitest';
import { checkLayers, COMPOSITION_ROOT, describeViolation, importsOf, layerOf, readTree } from '../support/layers.js';
import { REPO } from '../support/config-project.js';

const tree = readTree(REPO);

/** The tree with one line added at the top of one file. */
function planted(file: string, line: string): Map<string, string> {
  const copy = new Map(tree);
  const source = copy.get(file);
  if (source === undefined) throw new Error(`no such file in the tree: ${file}`);
  copy.set(file, `${line}\n${source}`);
  return copy;
}

describe('dependencies run one way: front-ends -> daemon -> plugins -> public API -> host -> util', () => {
  it('hold in the tree as it is', () => {
    expect(tree.size).toBeGreaterThan(80);
    expect(checkLayers(tree).map(describeViolation)).toEqual([]);
  });

  it('every file under core/ and plugins/ belongs to a layer', () => {
    expect([...tree.keys()].filter((f) => layerOf(f) === null)).toEqual([]);
  });

  it.each([
    ['core/util/lines.ts', "import { Host } from '../host/host.js';", 'the util layer may import only util, not host'],
    ['core/host/host.ts', "import { LocalApiServer } from '../api/server.js';", 'the host layer may import only host, util, not api'],
    ['core/host/registry/registry.ts', "const d = await import('../../daemon/daemon.js');", 'the host layer may import only host, util, not daemon'],
    ['core/host/link/mod-link.ts', "import { Command } from 'commander';", "'commander' belongs to the frontend layer only"],
    ['core/index.ts', "export { startDaemon } from './daemon/daemon.js';", 'the public layer may import only public, host, util, not daemon'],
    ['core/api/server.ts', "import { statePlugin } from '../../plugins/state/index.js';", `only ${COMPOSITION_ROOT} knows the built-in plugins`],
    ['core/daemon/daemon.ts', "import { statePlugin } from '../../plugins/state/index.js';", `only ${COMPOSITION_ROOT} knows the built-in plugins`],
    ['core/sim/index.ts', "import { createLogger } from '../util/log.js';", 'the sim layer may import only sim, not util'],
    ['core/frontends/mcp/frontend.ts', "import { Host } from '../../host/host.js';", 'front-ends never construct a Host'],
    ['plugins/state/index.ts', "import { Host } from '../../core/host/host.js';", "a plugin reaches into core/host/host.ts: import it from 'mcbridge' or 'mcbridge/kit'"],
    ['plugins/state/index.ts', "import { sortedCounts } from '../entities/index.js';", 'a plugin reaches into plugins/entities/index.ts'],
    ['plugins/restore/index.ts', "import { fork } from '../fork/index.js';", "a plugin reaches into plugins/fork/index.ts: import it from 'mcbridge' or 'mcbridge/kit'"],
    ['plugins/fork/index.ts', "import { readJournal } from '../snapshot/journal.js';", 'import its declared dependency through plugins/snapshot/index.ts or kit.ts'],
    ['plugins/snapshot/index.ts', "import { runFork } from '../fork/run.js';", "a plugin reaches into plugins/fork/run.ts: import it from 'mcbridge' or 'mcbridge/kit'"],
    ['plugins/state/index.ts', "import { Command } from 'commander';", "a plugin may import only 'mcbridge', 'mcbridge/kit', zod and node:*"],
    ['core/daemon/daemon.ts', "import { z } from 'mcbridge';", 'core imports its own modules by relative path'],
  ])('a planted import in %s is named: %s', (file, line, rule) => {
    const found = checkLayers(planted(file, line)).map(describeViolation);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`${file}:1 imports`);
    expect(found[0]).toContain(rule);
  });

  it('lets a front-end name the Host type, which constructs nothing', () => {
    expect(checkLayers(planted('core/frontends/mcp/frontend.ts', "import type { Host } from '../../host/host.js';"))).toEqual([]);
  });

  it('reads static, re-exported, dynamic and type-position imports', () => {
    const refs = importsOf(
      'x.ts',
      [
        "import a from './a.js';",
        "import type { B } from './b.js';",
        "import { type C, type D } from './c.js';",
        "export * from './d.js';",
        "const e = await import('./e.js');",
        "let f: import('./f.js').F;",
      ].join('\n'),
    );
    expect(refs.map((r) => [r.specifier, r.typeOnly, r.line])).toEqual([
      ['./a.js', false, 1],
      ['./b.js', true, 2],
      ['./c.js', true, 3],
      ['./d.js', false, 4],
      ['./e.js', false, 5],
      ['./f.js', true, 6],
    ]);
  });
});
