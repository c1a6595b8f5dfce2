/**
 * How deep a JSON text nests, for what reads JSON from outside: request bodies (http/body.ts) and STATE_DIR's tenant
 * files (persistence/state-dir.ts) are held to the same depth. Deeper JSON parses, but the first recursive walk of it
 * (JSON.stringify at the next write, a schema check) throws a RangeError.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/** The deepest nesting of a JSON text, counted without recursion (strings skipped, escapes honoured). */
export function jsonDepth(text: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]!;
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: skip the escaped character
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (OPEN.has(byte)) deepest = Math.max(deepest, ++depth);
    else if (CLOSE.has(byte)) depth--;
  }
  return deepest;
}
