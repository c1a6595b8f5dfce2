import { oneAtATime, runSliced, SHARED_SLICE_BUDGET_MS, type Slices } from '../util/slices.js';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON refuses raw controls in a string, so it looks for them
const CONTROL = /[\u0000-\u001f]/;

/** Tokens read between two chances to give the event loop a turn. */
const STEP = 2048;

/**
 * `JSON.parse` written as slices (`util/slices.ts`): the same value, or a SyntaxError for the same texts, read a
 * token at a time with an explicit stack, so that parsing a 7 MB answer never holds the event loop for the whole of
 * it. Strings with escapes, and numbers, are read by the engine itself (`JSON.parse`, `Number`) a token at a time.
 */
export function* parsingJson(text: string): Slices<unknown> {
  const n = text.length;
  let i = 0;
  let tokens = 0;
  const containers: (unknown[] | Record<string, unknown>)[] = [];
  const names: string[] = [];
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} in JSON at position ${i}`);
  };
  const skipSpace = (): void => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    }
  };
  const readString = (): string => {
    const start = i;
    let quote = i;
    for (;;) {
      quote = text.indexOf('"', quote + 1);
      if (quote < 0) return fail('Unterminated string');
      let backslashes = 0;
      while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
      if (backslashes % 2 === 0) break;
    }
    i = quote + 1;
    const raw = text.slice(start + 1, quote);
    // escapes and control characters as the engine reads them
    return raw.includes('\\') || CONTROL.test(raw) ? (JSON.parse(text.slice(start, quote + 1)) as string) : raw;
  };
  const readName = (): void => {
    skipSpace();
    if (text.charCodeAt(i) !== 0x22) fail('Expected a property name');
    names.push(readString());
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) fail("Expected ':' after a property name");
    i++;
  };
  for (;;) {
    skipSpace();
    let value: unknown;
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      i++;
      skipSpace();
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(i) === close) {
        i++;
        value = c === 0x7b ? {} : [];
      } else {
        containers.push(c === 0x7b ? {} : []);
        if (c === 0x7b) readName();
        continue;
      }
    } else if (c === 0x22) value = readString();
    else if (text.startsWith('true', i)) [value, i] = [true, i + 4];
    else if (text.startsWith('false', i)) [value, i] = [false, i + 5];
    else if (text.startsWith('null', i)) [value, i] = [null, i + 4];
    else {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text)?.[0] ?? fail(i >= n ? 'Unexpected end' : `Unexpected token '${text[i]}'`);
      i += number.length;
      value = Number(number);
    }
    // the value goes into its container; each container it closes goes into the one around it
    for (;;) {
      if (++tokens % STEP === 0) yield;
      const container = containers[containers.length - 1];
      skipSpace();
      if (container === undefined) return i === n ? value : fail('Unexpected text after the JSON value');
      if (Array.isArray(container)) container.push(value);
      else setMember(container, names.pop()!, value);
      const next = text.charCodeAt(i);
      if (next === 0x2c) {
        i++;
        if (!Array.isArray(container)) readName();
        break;
      }
      if (next !== (Array.isArray(container) ? 0x5d : 0x7d))
        fail(i >= n ? 'Unexpected end' : `Expected ',' or a closing bracket`);
      i++;
      containers.pop();
      value = container;
    }
  }
}

/** A member as `JSON.parse` makes it: `__proto__` an own property like any other, a repeated name the last value. */
function setMember(object: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
  else object[name] = value;
}

/** Bytes past which a JSON body is parsed in slices (below, `JSON.parse` takes a few milliseconds at most). */
const LARGE_BODY_BYTES = 256 * 1024;

/**
 * The JSON parser of one owner: a small body at once, a large one joined, decoded and parsed in slices, one large
 * body at a time, so that several arriving together take turns rather than each take a slice of every turn.
 */
export function jsonBodies(): (chunks: readonly Buffer[], size: number) => Promise<unknown> {
  const inTurn = oneAtATime();
  return async (chunks, size) => {
    if (size <= LARGE_BODY_BYTES) return JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
    return inTurn(() => runSliced(parsingJson(Buffer.concat(chunks, size).toString('utf8')), SHARED_SLICE_BUDGET_MS));
  };
}
