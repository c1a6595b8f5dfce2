// JSON Pointers (RFC 6901): the one spelling of a token, used wherever the fake names a place in a document or a body.

/** A reference token as a pointer writes it: `~` as `~0`, `/` as `~1`. */
const escapePointerToken = (token: string | number): string => String(token).replace(/~/g, '~0').replace(/\//g, '~1');

/** A reference token as it was: the reverse of escapePointerToken. */
const unescapePointerToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** The pointer of a member or item of the value at `parent` (`''` is the root). */
export const pointerOf = (parent: string, key: string | number): string => `${parent}/${escapePointerToken(key)}`;

/** The reference tokens of a pointer (`''` → none), each unescaped. */
export const tokensOf = (pointer: string): string[] =>
  pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointerToken);

/**
 * The value a pointer names in `root`, or undefined: an array's item by its index, an object's own member (never one
 * it inherits: `__proto__` names nothing).
 */
export function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const token of tokensOf(pointer)) {
    if (Array.isArray(value)) value = value[Number(token)];
    else if (value !== null && typeof value === 'object' && Object.hasOwn(value, token))
      value = (value as Record<string, unknown>)[token];
    else return undefined;
  }
  return value;
}
