/**
 * The normalization rules of shadow mode, written once: which values are instants, which are identifiers, which are
 * secrets, what JSON type a value has, and how a JSON pointer is written. Hoverfly's diff mode fails on timestamps
 * because every comparison decides this for itself; here the comparison asks these functions.
 */

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** A date-time (`created`, `updated`, `next_redemption_date`…): two worlds made at other instants never agree on it. */
export const isInstant = (value: unknown): boolean => typeof value === 'string' && INSTANT.test(value);

/** A field naming a record (`id`, `account_id`, `feeder_fund_id`…): its value differs from world to world. */
export const isIdentifierKey = (key: string): boolean => key === 'id' || key.endsWith('_id');

const SECRET = /^(access_token|refresh_token|id_token|client_secret|password|authorization|token)$/i;

/** Values never stored or shown: a report keeps `[redacted]` in their place. */
export const isSecretKey = (key: string): boolean => SECRET.test(key);

export const REDACTED = '[redacted]';

export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export const jsonType = (value: unknown): JsonType =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as 'boolean' | 'number' | 'string' | 'object');

/** RFC 6901: `~` and `/` escaped in a segment. */
export const pointerOf = (parent: string, key: string | number): string => `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** List items are compared by shape: every item's fields under one pointer segment, `*`. */
export const ITEMS = '*';

/** What a report may show of a value at `key`: a secret's value never, and nothing bigger than 1 KiB of JSON. */
export function shown(key: string | undefined, value: unknown): unknown {
  if (value === undefined) return null;
  if (key !== undefined && isSecretKey(key) && value !== null) return REDACTED;
  const text = JSON.stringify(value);
  if (text !== undefined && text.length > 1024) return `${text.slice(0, 1000)}… (${text.length} characters)`;
  return redactedDeep(value);
}

function redactedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactedDeep);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSecretKey(k) && v !== null ? REDACTED : redactedDeep(v)]));
}

/** The last segment of a pointer, unescaped: the field's name. */
export const keyOf = (pointer: string): string | undefined => {
  const last = pointer.slice(pointer.lastIndexOf('/') + 1);
  return pointer === '' ? undefined : last.replace(/~1/g, '/').replace(/~0/g, '~');
};

