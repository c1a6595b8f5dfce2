import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadApiDocument, operationAt, operationsOf } from '../../src/api/document.js';
import { architectureTable, codeIn } from '../support/architecture.js';

// Where an operation's handler lives, from the document alone: the API's in the file of its tag, the control plane's
// in the file of what it acts on, its path's first segment after /__control, as ARCHITECTURE.md's table names it.
const SRC = new URL('../../src/', import.meta.url);
const { document } = loadApiDocument();

/** What a control call acts on (the first segment of its path) → the file that serves it. */
const CONTROL_FILES: Record<string, string> = Object.fromEntries(
  architectureTable('- **A control call**').flatMap(([segments = '', file = '']) =>
    codeIn(segments).map((segment) => [segment, codeIn(file)[0]!]),
  ),
);

function fileOf(operation: { method: string; path: string }): string {
  const control = /^\/__control\/([^/]+)/.exec(operation.path);
  if (control) return CONTROL_FILES[control[1]!] ?? `control/<none for "${control[1]}">`;
  const { tags = [] } = operationAt(document, operation) as { tags?: string[] };
  return `http/handlers/${tags[0]}.ts`;
}

const HANDLER_FILES = [
  ...readdirSync(new URL('http/handlers/', SRC)).map((name) => `http/handlers/${name}`),
  ...new Set(Object.values(CONTROL_FILES)),
];
const text = new Map(HANDLER_FILES.map((file) => [file, readFileSync(new URL(file, SRC), 'utf8')]));
/** A handler map's member: `operationId:` at the start of a line. */
const serves = (file: string, operationId: string): boolean =>
  new RegExp(`^\\s+${operationId}:`, 'm').test(text.get(file) ?? '');

describe('handler files', () => {
  it('serve each operation from the file of its tag (/v1, auth, documents) or of what it acts on (/__control), and from no other', () => {
    const misplaced = operationsOf(document).flatMap((operation) => {
      const expected = fileOf(operation);
      const found = HANDLER_FILES.filter((file) => serves(file, operation.operationId));
      return found.length === 1 && found[0] === expected
        ? []
        : [`${operation.operationId}: expected in ${expected}, found in ${found.join(', ') || 'none'}`];
    });
    expect(misplaced).toEqual([]);
  });

  it('hold one file per tag of the API', () => {
    const tags = new Set(
      operationsOf(document)
        .filter((op) => !op.path.startsWith('/__control'))
        .map((op) => fileOf(op)),
    );
    expect([...tags].sort()).toEqual(
      readdirSync(new URL('http/handlers/', SRC))
        .map((name) => `http/handlers/${name}`)
        .sort(),
    );
  });
});
