import { describe, expect, it } from 'vitest';
import { parsingJson } from '../../src/shadow/json-slices.js';
import { runNow } from '../../src/util/slices.js';
import { slicedCountingTurns } from '../support/turns.js';

const parse = (text: string): unknown => runNow(parsingJson(text));

/** A value of every JSON kind, seeded (a small linear congruential generator: the same values on every run). */
function values(seed: number, count: number): unknown[] {
  let state = seed;
  const next = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const strings = ['', 'a', 'é', '\u2028', '"', '\\', '\n\t', 'x\u0000y', '😀', '\ud800', '__proto__', 'a"b\\c/d'];
  const value = (depth: number): unknown => {
    const kind = Math.floor(next() * (depth > 4 ? 5 : 7));
    if (kind === 0) return null;
    if (kind === 1) return next() < 0.5;
    if (kind === 2) return [0, -0, 1, -1.5, 1e21, 1e-7, 123456789.125, Number.MAX_SAFE_INTEGER][Math.floor(next() * 8)];
    if (kind === 3 || kind === 4) return strings[Math.floor(next() * strings.length)];
    if (kind === 5) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(next() * 4) }, () => [
        strings[Math.floor(next() * strings.length)],
        value(depth + 1),
      ]),
    );
  };
  return Array.from({ length: count }, () => value(0));
}

describe('JSON parsed in slices', () => {
  it('reads every text as JSON.parse does: the same value, key order, -0, escapes, __proto__ as an own member', () => {
    for (const v of values(7, 500)) {
      for (const text of [JSON.stringify(v), JSON.stringify(v, null, 2)]) {
        const ours = parse(text);
        expect(ours).toStrictEqual(JSON.parse(text));
        expect(JSON.stringify(ours)).toBe(JSON.stringify(JSON.parse(text)));
      }
    }
    const proto = parse('{"__proto__": {"polluted": 1}, "a": 1, "a": 2}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__', 'a']);
    expect(proto.a).toBe(2);
    expect(Object.is(parse('-0'), -0)).toBe(true);
    expect(parse(' "\\u0041\\n" ')).toBe('A\n');
  });

  it('refuses what JSON.parse refuses', () => {
    for (const text of [
      '',
      ' ',
      '{',
      '[1,]',
      '{"a":1,}',
      '{"a" 1}',
      '{a:1}',
      '01',
      '1.',
      '.5',
      '+1',
      'tru',
      'truex',
      '"a',
      '"\t"',
      '"\\x"',
      '[1 2]',
      '{} {}',
      'nul',
      'NaN',
      '[',
      '{"a":[}',
    ]) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(() => parse(text), text).toThrow(SyntaxError);
    }
  });

  it('gives the event loop turns over a large text, and returns its value whole', async () => {
    const big = {
      data: Array.from({ length: 7000 }, (_, i) => ({
        id: `id-${i}`,
        n: i,
        note: 'x'.repeat(100),
        deep: { list: [1, 'two', null] },
      })),
    };
    const { result: value, turns } = await slicedCountingTurns(parsingJson(JSON.stringify(big)));
    expect(turns).toBeGreaterThan(1);
    expect(value).toStrictEqual(big);
  });
});
