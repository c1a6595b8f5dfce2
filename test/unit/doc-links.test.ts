import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docsOf, READINESS_RULES, type ReadinessCode } from '../../src/proof/readiness-report.js';
import { DOC_PAGES, readPage, withoutBlocks } from '../support/doc-pages.js';

// Every link between the README, the docs pages and the code resolves: the file exists, and a `#fragment` names a
// heading (by GitHub's slug rules) or an `<a id>` of that file. A section that moves takes its links along, or this fails.
// The README and the docs pages are shipped in the package, where only they are: their links to the repository's
// other files are absolute, to this version's tag on GitHub (test/package/pack-install.test.ts reads them packed).
const ROOT = join(import.meta.dirname, '../..');
const PAGES = [...DOC_PAGES, 'ARCHITECTURE.md', 'SATELLITES.md', 'examples/README.md', 'bench/README.md'];
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  repository: { url: string };
};
const REPOSITORY = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const [, OWNER_AND_NAME] = /^https:\/\/github\.com\/(.+)$/.exec(REPOSITORY)!;
/** A file of the repository at the package's version tag: its page on GitHub, and the file itself (for an image). */
const AT_TAG = [
  `${REPOSITORY}/blob/v${manifest.version}/`,
  `https://raw.githubusercontent.com/${OWNER_AND_NAME}/v${manifest.version}/`,
];
const OF_REPOSITORY = new RegExp(
  `^(?:${REPOSITORY}/(?:blob|tree|raw)|https://raw\\.githubusercontent\\.com/${OWNER_AND_NAME})/`,
);

const withoutCode = (page: string, markdown: string) =>
  withoutBlocks(page, markdown).replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ''));

/** A heading's anchor as GitHub writes it (github-slugger): lower case, punctuation gone, each space a hyphen. */
const slugOf = (heading: string): string =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const markdown = readFileSync(join(ROOT, file), 'utf8');
  const anchors = new Set([...markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)].map((match) => match[1]!));
  const seen = new Map<string, number>();
  for (const [, heading] of withoutBlocks(file, markdown).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = slugOf(heading!);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`); // GitHub numbers a repeated heading's anchor
  }
  return anchors;
}

/** Why `target` (relative to the repository's root, with an optional `#fragment`) leads nowhere, or undefined. */
function deadEnd(target: string): string | undefined {
  const [file, fragment] = target.split('#') as [string, string | undefined];
  if (!existsSync(join(ROOT, file))) return `no file ${file}`;
  if (fragment === undefined || !file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) return undefined;
  return anchorsOf(file).has(decodeURIComponent(fragment)) ? undefined : `no anchor #${fragment} in ${file}`;
}

const linksOf = (page: string) =>
  [...withoutCode(page, readPage(page)).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((link) => !/^[a-z][a-z+.-]*:/i.test(link) || OF_REPOSITORY.test(link))
    .map((link) => {
      const atTag = AT_TAG.find((prefix) => link.startsWith(prefix));
      if (atTag) return { link, target: link.slice(atTag.length) };
      if (OF_REPOSITORY.test(link)) return { link, target: link, off: `not at the package's tag v${manifest.version}` };
      return { link, target: link.startsWith('#') ? `${page}${link}` : normalize(join(dirname(page), link)) };
    });

describe("GitHub's anchors, as this test computes them", () => {
  it('drop punctuation and inline code marks, keep underscores and hyphens, and number a repeated heading', () => {
    expect(slugOf('One replica that survives restarts: `STATE_DIR`')).toBe(
      'one-replica-that-survives-restarts-state_dir',
    );
    expect(slugOf('Testing how your client copes: faults, the journal and the readiness report')).toBe(
      'testing-how-your-client-copes-faults-the-journal-and-the-readiness-report',
    );
    expect(slugOf('N replicas behind your [proxy](https://nginx.org)')).toBe('n-replicas-behind-your-proxy');
  });
});

describe('the documentation', () => {
  it('has a page for each feature beside the README', () => {
    expect(DOC_PAGES).toEqual(
      expect.arrayContaining([
        'README.md',
        ...[
          'configuration',
          'api',
          'control-plane',
          'test-suites',
          'readiness',
          'shadow-mode',
          'mcp',
          'containers',
          'scaling',
        ].map((name) => `docs/${name}.md`),
      ]),
    );
  });

  it('keeps the README short: a page that leads to the others', () => {
    expect(readPage('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it.each(PAGES)('%s links only to files and anchors that exist', (page) => {
    const dead = linksOf(page).flatMap(({ link, target, off }) => {
      const why = off ?? deadEnd(target);
      return why ? [`${link}: ${why}`] : [];
    });
    expect(dead).toEqual([]);
  });

  it.each(DOC_PAGES)("%s links to the repository's files it does not ship at the package's version tag", (page) => {
    const shipped = (target: string) => target === 'README.md' || /^docs\/[\w-]+\.md$/.test(target);
    const links = linksOf(page);
    expect(links.filter(({ link, target }) => !/^[a-z]+:/i.test(link) && !shipped(target.split('#')[0]!))).toEqual([]);
    // and the pages it ships beside it, relatively: they are in the package
    expect(links.filter(({ link, target }) => /^[a-z]+:/i.test(link) && shipped(target.split('#')[0]!))).toEqual([]);
  });

  it('every docs page is reachable from the README', () => {
    const linked = new Set(linksOf('README.md').map(({ target }) => target.split('#')[0]));
    expect(DOC_PAGES.filter((page) => !linked.has(page) && page !== 'README.md')).toEqual([]);
  });
});

describe('the links in the code', () => {
  it("each readiness finding's docs link names its rule's anchor on a page that exists", () => {
    for (const code of Object.keys(READINESS_RULES) as ReadinessCode[]) {
      expect(docsOf(code)).toMatch(new RegExp(`#${code}$`));
      expect(deadEnd(docsOf(code)), docsOf(code)).toBeUndefined();
    }
  });

  it('every README or docs page that src/ and console/ name exists, with its anchor', () => {
    const sources = (folder: string): string[] =>
      readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|tsx|yaml)$/.test(file) && !file.endsWith('schema.d.ts'))
        .map((file) => join(folder, file));
    const named = [...sources('src'), ...sources('console/src')].flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\b((?:README|docs\/[\w-]+)\.md(?:#[\w-]+)?)/g)].map(
        (match) => ({ file, target: match[1]! }),
      ),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(
      named.flatMap(({ file, target }) => (deadEnd(target) ? [`${file}: ${target}: ${deadEnd(target)}`] : [])),
    ).toEqual([]);
  });
});
