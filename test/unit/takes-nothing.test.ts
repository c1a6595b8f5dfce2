import { describe, expect, it } from 'vitest';
import { loadApiDocument, operationsOf } from '../../src/api/document.js';
import { takesNothing } from '../../src/http/validator.js';

describe('operations that give the validator nothing to check', () => {
  const { document } = loadApiDocument();
  const operations = operationsOf(document);
  const nothing = operations.filter((op) => takesNothing(document, op)).map((op) => op.operationId);

  it('are those without parameters, body or OAuth scopes: the health check among them, no partner operation', () => {
    expect(nothing).toContain('getHealth');
    for (const op of operations.filter((o) => nothing.includes(o.operationId))) {
      const item = document.paths[op.path] as Record<
        string,
        { parameters?: unknown[]; requestBody?: unknown; security?: unknown[] }
      > & { parameters?: unknown[] };
      expect(item.parameters ?? []).toEqual([]);
      expect(item[op.method]!.parameters ?? []).toEqual([]);
      expect(item[op.method]!.requestBody).toBeUndefined();
    }
    expect(nothing).not.toContain('listOrders');
    expect(nothing).not.toContain('createAccount');
  });
});
