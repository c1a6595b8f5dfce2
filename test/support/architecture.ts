import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The body rows of the first Markdown table after the line of `page` (ARCHITECTURE.md, the core's page, or
 * SATELLITES.md) that starts with `heading`, each row its cells trimmed: the page is the one statement of what the
 * tests that read it check.
 */
export function architectureTable(heading: string, page = 'ARCHITECTURE.md'): string[][] {
  const lines = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith(heading));
  if (at === -1) throw new Error(`${page} has no line starting with "${heading}"`);
  const start = lines.findIndex((line, i) => i > at && line.trim().startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.trim().startsWith('|'));
  return lines.slice(start + 2, end === -1 ? undefined : end).map((line) =>
    line
      .trim()
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

/** The names a cell writes as code: `a`, `b/` → ['a', 'b/']. */
export const codeIn = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The source folder whose files the import graph holds. */
export const SRC = resolve(import.meta.dirname, '../../src');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

/** Relative imports, type-only ones included: a type import is an arrow between files too. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')),
  );
}

/** Every source file of src/ and, for each, the files of src/ it imports. */
export function importGraph(): { files: string[]; graph: Map<string, string[]> } {
  const files = sourceFiles(SRC);
  return {
    files,
    graph: new Map(files.map((file) => [file, importsOf(file).filter((target) => target.startsWith(SRC))])),
  };
}
