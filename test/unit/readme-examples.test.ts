import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES, readPage } from '../support/doc-pages.js';

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
