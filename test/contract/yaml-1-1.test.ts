import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

// Tools that read the document with a YAML 1.1 parser must read the same document as the fake does with YAML 1.2
// (`yaml`). Dredd reads an OpenAPI 3 document with yaml-js (a port of PyYAML: @apielements/openapi3-parser), which
// refuses a flow item holding a colon (`[read:accounts, …]`), and its other parts with js-yaml 3; in both an unquoted
// yes/no/on/off, a sexagesimal `1:30`, a leading-zero octal or a date is another type than in YAML 1.2.
const require = createRequire(import.meta.url);
const PARSERS = {
  'js-yaml 3': (text: string) => (require('js-yaml3') as { safeLoad(text: string): unknown }).safeLoad(text),
  'yaml-js (PyYAML)': (text: string) => (require('yaml-js') as { load(text: string): unknown }).load(text),
};
const FILE = new URL('../../src/api/openapi.yaml', import.meta.url);
const text = readFileSync(FILE, 'utf8');

/** Where two parsed values first differ, as a JSON pointer with both values. */
function firstDifference(a: unknown, b: unknown, at = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && !(a instanceof Date) && !(b instanceof Date)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
      );
      if (found) return found;
    }
  }
  return `${at || '/'}: YAML 1.1 reads ${JSON.stringify(a)} (${a instanceof Date ? 'a date' : typeof a}), YAML 1.2 ${JSON.stringify(b)}`;
}

describe.each(Object.entries(PARSERS))('the OpenAPI document, read by a YAML 1.1 parser: %s', (_name, load) => {
  it('parses', () => {
    expect(() => load(text)).not.toThrow();
  });

  it('is the same document as YAML 1.2 reads', () => {
    expect(firstDifference(load(text), parse(text))).toBeUndefined();
  });

  it('would tell a difference (the comparison can fail)', () => {
    const differs = (yaml11: string): boolean => {
      try {
        return firstDifference(load(yaml11), parse(yaml11)) !== undefined;
      } catch {
        return true;
      }
    };
    expect(differs('a: 1:30'), 'a sexagesimal number').toBe(true);
    expect(differs('a: 2024-03-12'), 'a date').toBe(true);
    expect(differs("a: ['read:accounts']"), 'a quoted flow item').toBe(false);
  });
});
