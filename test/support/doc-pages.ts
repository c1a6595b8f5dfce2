// The documentation as the tests read it: README.md and a page per feature in docs/. A runnable block marked
// `<!-- readme-test: <name> -->` or `<!-- readme-example: <file> -->` may live on any of them; the tests find it
// wherever it is, so a block that moves between pages is still run.
//
// Every code block of these pages also says how it runs, in a `<!-- snippet: <kind>… -->` line among the comment
// lines right above it (test/package/snippets.test.ts runs each as its kind says, from the packed package):
//   test            a whole vitest file: type-checked (strict) and run in a fresh project
//   module          a whole TypeScript module: type-checked there (`module, run by <test file>`: run by that test)
//   shell           a shell session against a fake on localhost:8080: run by bash against the packed CLI
//                   (`shell, after <name>`: in the same shell after the block marked `readme-test: <name>`;
//                   `shell, after the block above`: against the fakes the serve block above starts)
//   serve           commands that start the fake: each started from the packed CLI until it answers, then stopped
//   config <what>   a configuration file, loaded as the tool it is for loads it
//   run by <file>   run as written by that test file, which names the block's `readme-test` marker
//   excerpt: <why>  part of a file, not a whole one (`readme-example` names the file it is cut from, which runs)
//   not run: <why>  needs what CI here does not have (a Docker engine, a GitHub runner, a broker)
//   output          what a command printed (a ```text block needs no marker)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/** README.md and docs/*.md, as paths from the repository's root. */
export const DOC_PAGES: readonly string[] = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

export const readPage = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

/** The code block right under `<!-- readme-test: <marker> -->`, on whichever page holds it: exactly one must. */
export function markedSnippet(marker: string, language = 'sh'): string {
  const found = docBlocks().filter((block) => block.name === marker && block.language === language);
  if (found.length !== 1)
    throw new Error(
      `${found.length} \`\`\`${language} blocks marked ${marker} in ${DOC_PAGES.join(', ')}; one expected`,
    );
  return found[0]!.code;
}

/** The page's Markdown without its code blocks (their lines left empty), for what reads its prose. */
export function withoutBlocks(page: string, markdown: string = readPage(page)): string {
  const lines = markdown.split('\n');
  for (const block of docBlocks([page], () => markdown)) lines.fill('', block.line - 1, block.end);
  return lines.join('\n');
}

export interface DocBlock {
  page: string;
  /** The line of its opening fence, from 1. */
  line: number;
  /** The line of its closing fence. */
  end: number;
  language: string;
  /** Its text, the fence's indentation taken off each line. */
  code: string;
  /** The `<!-- … -->` lines right above its fence, their text. */
  markers: string[];
  /** Its `readme-test` name, if any. */
  name?: string;
  /** How it runs: the text after `snippet:` (`test`, `excerpt: <why>`…), if any. */
  snippet?: string;
}

const FENCE = /^( *)(`{3,})([^`\s]*)[^`]*$/;

/** Every fenced code block of the pages, in order, with the comment lines that mark it. */
export function docBlocks(pages: readonly string[] = DOC_PAGES, read: (page: string) => string = readPage): DocBlock[] {
  return pages.flatMap((page) => {
    const lines = read(page).split('\n');
    const blocks: DocBlock[] = [];
    for (let i = 0; i < lines.length; i++) {
      const open = FENCE.exec(lines[i]!);
      if (!open) continue;
      const [, indent, ticks, language] = open as unknown as [string, string, string, string];
      const close = lines.findIndex((l, j) => j > i && /^ *`{3,}\s*$/.test(l) && l.trim().length >= ticks.length);
      if (close === -1) throw new Error(`${page}:${i + 1}: a code block that is never closed`);
      const markers: string[] = [];
      for (let j = i - 1; j >= 0 && /^ *<!--.*-->\s*$/.test(lines[j]!); j--)
        markers.unshift(lines[j]!.trim().slice(4, -3).trim());
      const code = lines
        .slice(i + 1, close)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
        .join('\n');
      const name = markers
        .find((m) => m.startsWith('readme-test:'))
        ?.slice('readme-test:'.length)
        .trim();
      const snippet = markers
        .find((m) => m.startsWith('snippet:'))
        ?.slice('snippet:'.length)
        .trim();
      blocks.push({
        page,
        line: i + 1,
        end: close + 1,
        language,
        code: `${code}\n`,
        markers,
        ...(name !== undefined && { name }),
        ...(snippet !== undefined && { snippet }),
      });
      i = close;
    }
    return blocks;
  });
}
