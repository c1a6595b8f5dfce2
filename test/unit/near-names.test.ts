import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadApiDocument, operationsById } from '../../src/api/document.js';
import { memberNamesAt, nearestName, queryNamesOf, withinOneEdit } from '../../src/api/near-names.js';
import { propertyRuns } from '../support/runs.js';

const ORDER_FILTERS = [
  'side',
  'market',
  'order_status',
  'account_type',
  'account_id',
  'currency',
  'isin',
  'skip',
  'limit',
];

/** Optimal string alignment distance, written the textbook way: what withinOneEdit must agree with at 1. */
function osaDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

describe('withinOneEdit', () => {
  it('is a Damerau–Levenshtein distance of at most 1: a substitution, a swap of neighbours, one more or one less', () => {
    expect(withinOneEdit('first_name', 'first_name')).toBe(true);
    expect(withinOneEdit('first_name', 'frist_name')).toBe(true);
    expect(withinOneEdit('first_name', 'first_nam')).toBe(true);
    expect(withinOneEdit('first_name', 'first_namee')).toBe(true);
    expect(withinOneEdit('first_name', 'firsx_name')).toBe(true);
    expect(withinOneEdit('first_name', 'fisrt_nmae')).toBe(false);
    expect(withinOneEdit('first_name', 'first')).toBe(false);
    expect(withinOneEdit('ab', 'ba')).toBe(true);
    expect(withinOneEdit('abc', 'ca')).toBe(false);
  });

  it('agrees with the textbook distance on any two short words of a small alphabet', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '_'), maxLength: 6 });
    fc.assert(
      fc.property(word, word, (a, b) => withinOneEdit(a, b) === osaDistance(a, b) <= 1),
      { numRuns: propertyRuns(5000) },
    );
  });
});

describe('nearestName', () => {
  it.each([
    ['First_name', 'first_name'],
    ['FIRST_NAME', 'first_name'],
    ['first-name', 'first_name'],
    ['firstName', 'first_name'],
    ['frist_name', 'first_name'],
    ['first_nam', 'first_name'],
    ['lastname', 'last_name'],
  ])('%s → %s (case, _ for -, one edit)', (sent, near) => {
    expect(nearestName(sent, ['first_name', 'last_name', 'business_name', 'type'])).toBe(near);
  });

  it.each([
    ['status', 'order_status'],
    ['Status', 'order_status'],
    ['type', 'account_type'],
    ['page', 'skip'],
    ['offset', 'skip'],
    ['per_page', 'limit'],
    ['perPage', 'limit'],
    ['page_size', 'limit'],
  ])('%s → %s on the orders list (an alias, its target the list’s own name)', (sent, near) => {
    expect(nearestName(sent, ORDER_FILTERS)).toBe(near);
  });

  it('names nothing the operation does not have: an alias whose target it lacks, a far name, a known name', () => {
    expect(nearestName('page', ['isin', 'currency'])).toBeUndefined();
    expect(nearestName('status', ['isin'])).toBeUndefined();
    expect(nearestName('colour', ORDER_FILTERS)).toBeUndefined();
    expect(nearestName('order_status', ORDER_FILTERS)).toBeUndefined();
    expect(nearestName('', ORDER_FILTERS)).toBeUndefined();
    expect(nearestName('constructor', ORDER_FILTERS)).toBeUndefined();
    expect(nearestName('__proto__', ORDER_FILTERS)).toBeUndefined();
  });

  it('guesses none between two names as near (a guess would mislead), but prefers the same word to an edit', () => {
    expect(nearestName('status', ['order_status', 'account_status'])).toBeUndefined();
    expect(nearestName('nam', ['name', 'nap'])).toBeUndefined();
    expect(nearestName('Name', ['name', 'nam'])).toBe('name');
    expect(nearestName('ids', ['id', 'isin'])).toBe('id');
  });

  it('answers a long name at once: no name of the document is near it', () => {
    const started = performance.now();
    for (let i = 0; i < 50; i++) expect(nearestName('x'.repeat(100_000), ORDER_FILTERS)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('finds, for any name of a list and any one edit of it, that name: no other is as near', () => {
    const fold = (word: string) => word.toLowerCase().replace(/[-_]/g, '');
    const paging = ['page', 'offset', 'start', 'perpage', 'pagesize', 'size', 'count', 'take', 'top'];
    fc.assert(
      fc.property(
        fc.constantFrom(...ORDER_FILTERS),
        fc.nat(),
        fc.constantFrom('a', 'z', '_', '-', 'S', 'I'),
        fc.constantFrom('substitute', 'insert', 'delete', 'swap'),
        (name, at, letter, edit) => {
          const i = at % name.length;
          const sent =
            edit === 'substitute'
              ? name.slice(0, i) + letter + name.slice(i + 1)
              : edit === 'insert'
                ? name.slice(0, i) + letter + name.slice(i)
                : edit === 'delete'
                  ? name.slice(0, i) + name.slice(i + 1)
                  : name.slice(0, i) + name.slice(i + 1, i + 2) + name.slice(i, i + 1) + name.slice(i + 2);
          // an edit that lands on another word the list knows (an alias: `side` → `size`) is that word's
          fc.pre(!paging.includes(fold(sent)));
          fc.pre(ORDER_FILTERS.every((other) => other === name || osaDistance(sent.toLowerCase(), other) > 1));
          expect(nearestName(sent, ORDER_FILTERS)).toBe(sent === name ? undefined : name);
        },
      ),
      { numRuns: propertyRuns(2000) },
    );
  });
});

describe('the names the document gives an operation', () => {
  const { document } = loadApiDocument();
  const operation = (id: string) => operationsById(document).get(id)!;

  it('its query parameters', () => {
    expect(queryNamesOf(document, operation('listOrders'))).toEqual(ORDER_FILTERS);
  });

  it('its body’s members at a pointer: the body itself, an item of a nested array, nothing past the schema', () => {
    expect(memberNamesAt(document, operation('createAccount'), [])).toEqual(
      expect.arrayContaining(['type', 'first_name', 'wallets', 'payment_methods']),
    );
    expect(memberNamesAt(document, operation('createAccount'), ['payment_methods', '0']).sort()).toEqual(
      ['account_holder_name', 'iban', 'is_primary', 'type'].sort(),
    );
    expect(memberNamesAt(document, operation('createAccount'), ['payment_methods', 'x'])).toEqual([]);
    expect(memberNamesAt(document, operation('createAccount'), ['first_name', 'x'])).toEqual([]);
    expect(memberNamesAt(document, operation('listOrders'), [])).toEqual([]);
  });
});
