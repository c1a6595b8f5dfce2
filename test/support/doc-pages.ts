// The documentation as the tests read it: README.md and a page per feature in docs/. A runnable block marked
// `<!-- readme-test: <name> -->` or `<!-- readme-example: <file> -->` may live on any of them; the tests find it
// wherever it is, so a block that moves between pages is still run.
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
  const block = new RegExp(`<!-- readme-test: ${marker} -->\\n\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  const found = DOC_PAGES.flatMap((page) => [...readPage(page).matchAll(block)].map((match) => match[1]!));
  if (found.length !== 1)
    throw new Error(
      `${found.length} \`\`\`${language} blocks marked ${marker} in ${DOC_PAGES.join(', ')}; one expected`,
    );
  return found[0]!;
}
