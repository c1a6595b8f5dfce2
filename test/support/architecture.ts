import { readFileSync } from 'node:fs';

const LINES = readFileSync(new URL('../../ARCHITECTURE.md', import.meta.url), 'utf8').split('\n');

/**
 * The body rows of the first Markdown table after the line of ARCHITECTURE.md that starts with `heading`, each row
 * its cells trimmed: the page is the one statement of what the tests that read it check.
 */
export function architectureTable(heading: string): string[][] {
  const at = LINES.findIndex((line) => line.startsWith(heading));
  if (at === -1) throw new Error(`ARCHITECTURE.md has no line starting with "${heading}"`);
  const start = LINES.findIndex((line, i) => i > at && line.trim().startsWith('|'));
  const end = LINES.findIndex((line, i) => i > start && !line.trim().startsWith('|'));
  return LINES.slice(start + 2, end === -1 ? undefined : end).map((line) =>
    line
      .trim()
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

/** The names a cell writes as code: `a`, `b/` → ['a', 'b/']. */
export const codeIn = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
