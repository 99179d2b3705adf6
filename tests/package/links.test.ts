/**
 * Every relative link in the markdown the package ships (README, docs, examples, the sim's README)
 * points to a file the package ships, and every `#anchor` to a heading of that file: a reader of
 * the installed package never lands on a missing page.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/config-project.js';

/** What `npm pack` would put in the tarball (no scripts run). */
const packed: string[] = (
  JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8' })) as Array<{
    files: Array<{ path: string }>;
  }>
)[0]!.files.map((f) => f.path);

function shipped(file: string): boolean {
  return packed.includes(file) || packed.some((f) => f.startsWith(`${file}/`));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Relative links of a markdown file (code blocks left out), as [target, anchor]. */
function links(file: string): Array<{ target: string; anchor?: string }> {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/i.test(href))
    .map((href) => {
      const [target, anchor] = href.split('#');
      return { target: target ? path.posix.normalize(path.posix.join(path.posix.dirname(file), target)) : file, anchor };
    });
}

const markdown = packed.filter((f) => f.endsWith('.md'));

describe('links in the shipped markdown', () => {
  it('covers the README, the docs (protocol included) and the examples', () => {
    expect(markdown).toEqual(expect.arrayContaining(['README.md', 'docs/plugins.md', 'docs/protocol.md', 'docs/decisions.md', 'core/sim/README.md']));
  });

  it('covers every page in docs/, and the changelog and the contributor guide the README links to', () => {
    const pages = fs
      .readdirSync(path.join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`);
    expect(markdown).toEqual(expect.arrayContaining([...pages, 'CHANGELOG.md', 'CONTRIBUTING.md']));
  });

  for (const file of markdown) {
    it(`${file}: every relative link reaches a shipped file and heading`, () => {
      const broken: string[] = [];
      for (const { target, anchor } of links(file)) {
        if (!shipped(target)) broken.push(`${target} (not in the package)`);
        else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor)) broken.push(`${target}#${anchor} (no such heading)`);
      }
      expect(broken).toEqual([]);
    });
  }
});
