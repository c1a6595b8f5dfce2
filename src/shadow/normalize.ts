import { tokensOf } from '../api/json-pointer.js';
import {
  isSecretName,
  longestForm,
  REDACTED,
  redactedJsonMembers,
  redactedValue,
  withoutSecretValues,
} from '../records/secrets.js';

/**
 * The normalization rules of shadow mode, written once: which values are instants, which are identifiers, what JSON
 * type a value has, and what a report shows of a value (its secrets as `secrets.ts` says). Hoverfly's diff mode fails
 * on timestamps because every comparison decides this for itself; here the comparison asks these functions.
 */

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** A date-time (`created`, `updated`, `next_redemption_date`…): two worlds made at other instants never agree. */
export const isInstant = (value: unknown): boolean => typeof value === 'string' && INSTANT.test(value);

/** A field naming a record (`id`, `account_id`, `feeder_fund_id`…): its value differs from world to world. */
export const isIdentifierKey = (key: string): boolean => key === 'id' || key.endsWith('_id');

export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export const jsonType = (value: unknown): JsonType =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : (typeof value as 'boolean' | 'number' | 'string' | 'object');

/** List items are compared by shape: every item's fields under one pointer segment, `*`. */
export const ITEMS = '*';

/** What a report shows of a value at most: its JSON's first characters. */
const SHOWN_CHARACTERS = 1024;

/**
 * What a report may show of the value at `pointer` (`secrets.ts` decides what is secret): nothing under a
 * secret-named field, no credential (`forms`: `secretForms`), and at most SHOWN_CHARACTERS of its JSON. Written as
 * far as it is shown, never whole: a finding costs the same at the top of a 7 MB answer as in a leaf.
 */
export function shown(pointer: string, value: unknown, forms: readonly string[] = []): unknown {
  if (value === undefined) return null;
  if (value !== null && tokensOf(pointer).some(isSecretName)) return REDACTED;
  // a credential across the cut is written whole before it is replaced, so no part of it remains
  const preview = jsonPreview(value, SHOWN_CHARACTERS + longestForm(forms));
  if (preview.complete && preview.text.length <= SHOWN_CHARACTERS) return redactedValue(value, forms);
  const text = redactedJsonMembers(withoutSecretValues(preview.text, forms));
  return `${text.slice(0, 1000)}… (more than ${SHOWN_CHARACTERS} characters)`;
}

/** The JSON text of a value, written until it passes `limit` characters (then `complete` is false). */
function jsonPreview(value: unknown, limit: number): { text: string; complete: boolean } {
  let text = '';
  const write = (v: unknown): boolean => {
    if (typeof v === 'string') text += JSON.stringify(v.length > limit ? v.slice(0, limit + 1) : v);
    else if (Array.isArray(v)) {
      text += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) text += ',';
        if (!write(v[i] ?? null)) return false;
      }
      text += ']';
    } else if (v !== null && typeof v === 'object') {
      text += '{';
      let first = true;
      for (const key in v) {
        text += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        if (!write((v as Record<string, unknown>)[key])) return false;
      }
      text += '}';
    } else text += JSON.stringify(v) ?? 'null';
    return text.length <= limit;
  };
  return { complete: write(value), text };
}
