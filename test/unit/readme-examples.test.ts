import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES, docBlocks, readPage } from '../support/doc-pages.js';
import { howItRuns, packagesImported } from '../support/snippets.js';

const ROOT = join(import.meta.dirname, '../..');

// A code block of the README or a docs page marked `<!-- readme-example: <file> -->` is cut from that file, which the
// examples project runs: the page shows what runs, line for line (indentation aside).
const examples = DOC_PAGES.flatMap((page) =>
  [...readPage(page).matchAll(/<!-- readme-example: (\S+) -->\n```ts\n([\s\S]*?)```/g)].map(([, file, code]) => ({
    page,
    file: file!,
    code: code!,
  })),
);
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

describe('README and docs examples', () => {
  it('exist', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)('the block of $page from $file is in that file, line for line', ({ file, code }) => {
    const source = lines(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')).join('\n');
    for (const test of code.split(/\n(?=it\()/)) expect(source).toContain(lines(test).join('\n'));
  });
});

// Every code block of the shipped pages says how it runs (test/support/doc-pages.ts lists the kinds), and
// test/package/snippets.test.ts runs it so from the packed package. This part needs no package: it holds each page
// to saying it.
describe('every code block of the README and the docs', () => {
  const blocks = docBlocks();
  const where = (block: { page: string; line: number }) => `${block.page}:${block.line}`;

  it('says how it runs, in a kind its language can run as', () => {
    const unsaid = blocks.flatMap((block) => {
      try {
        howItRuns(block);
        return [];
      } catch (error) {
        return [`${where(block)}: ${(error as Error).message}`];
      }
    });
    expect(unsaid).toEqual([]);
    const count = (kind: string) => blocks.filter((block) => howItRuns(block).kind === kind).length;
    const kinds = ['test', 'module', 'shell', 'serve', 'config', 'run by', 'excerpt', 'not run', 'output'];
    process.stdout.write(
      `${blocks.length} code blocks: ${kinds.map((kind) => `${count(kind)} ${kind}`).join(', ')}\n` +
        blocks
          .filter((block) => ['excerpt', 'not run'].includes(howItRuns(block).kind))
          .map((block) => `  ${where(block)} ${howItRuns(block).kind}: ${howItRuns(block).reason}\n`)
          .join(''),
    );
    // what runs from the package outnumbers what does not; a new block that cannot run is a choice to look at
    expect(count('test') + count('module') + count('shell') + count('serve') + count('config')).toBeGreaterThan(
      count('excerpt') + count('not run'),
    );
  });

  it('names, when another test runs it, a test file that exists and reads it by its marker', () => {
    const wrong = blocks.flatMap((block) => {
      const { runBy } = howItRuns(block);
      if (runBy === undefined) return [];
      if (!existsSync(join(ROOT, runBy))) return [`${where(block)}: no file ${runBy}`];
      if (block.name !== undefined && !readFileSync(join(ROOT, runBy), 'utf8').includes(`'${block.name}'`))
        return [`${where(block)}: ${runBy} does not read the block marked ${block.name}`];
      return [];
    });
    expect(wrong).toEqual([]);
  });

  it('that imports a package other than this one, vitest and Node, says on its page to install it', () => {
    const unsaid = blocks.flatMap((block) => {
      if (!['test', 'module'].includes(howItRuns(block).kind)) return [];
      const page = readPage(block.page);
      return packagesImported(block.code)
        .filter((name) => !new RegExp(`install[^\\n]{0,80}\\b${name.replace(/[/.]/g, '\\$&')}\\b`, 'i').test(page))
        .map((name) => `${where(block)} imports ${name}`);
    });
    expect(unsaid).toEqual([]);
  });

  it('shows the line that registers the matchers wherever it uses them', () => {
    const missing = blocks.filter(
      (block) =>
        howItRuns(block).kind === 'test' &&
        /toHaveReceived|toHaveNoReadinessFindings/.test(block.code) &&
        !block.code.includes("import 'investment-api-fake/vitest';"),
    );
    expect(missing.map(where)).toEqual([]);
  });
});
