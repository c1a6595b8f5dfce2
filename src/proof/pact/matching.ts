import { resolveRef, type ApiDocument } from '../../api/document.js';

/**
 * Pact matching rules for the values an exported exchange carried: identifiers and instants by regex (another fake,
 * or the platform, issues others), an answer's other values by type, and what the contract is about by equality.
 */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
/** Any bearer token: the file holds none, the verifier is given a real one. */
export const BEARER_PATTERN = '^Bearer [A-Za-z0-9\\-_.~+/]+=*$';

export type Matcher = { match: 'type'; min?: number } | { match: 'regex'; regex: string } | { match: 'equality' };
export interface RuleList {
  combine: 'AND';
  matchers: Matcher[];
}
export type Rules = Record<string, RuleList>;

export const rule = (...matchers: Matcher[]): RuleList => ({ combine: 'AND', matchers });

const patternOf = (text: string): string | undefined =>
  new RegExp(UUID_PATTERN).test(text)
    ? UUID_PATTERN
    : new RegExp(INSTANT_PATTERN).test(text)
      ? INSTANT_PATTERN
      : new RegExp(DATE_PATTERN).test(text)
        ? DATE_PATTERN
        : undefined;

/** A member's JSONPath as Pact writes it: `$.data[*].id`, `$['odd-name']`. */
const memberPath = (parent: string, key: string): string =>
  /^[A-Za-z_]\w*$/.test(key) ? `${parent}.${key}` : `${parent}['${key.replace(/['\\]/g, '')}']`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Rules for a body: a regex for each identifier and instant; with `byType`, everything else by type from the root
 * (Pact cascades it), each array of any length and its items like the first (lists differ between worlds), and
 * `equal` paths (such as `$.code`) by equality.
 */
export function bodyRules(
  body: unknown,
  { byType, equal = [] }: { byType: boolean; equal?: readonly string[] },
): Rules {
  const rules: Rules = {};
  if (byType) rules.$ = rule({ match: 'type' });
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      const regex = patternOf(value);
      if (regex) rules[path] = rule({ match: 'regex', regex });
    } else if (Array.isArray(value)) {
      if (byType) rules[path] = rule({ match: 'type', min: 0 });
      if (value.length > 0) walk(value[0], byType ? `${path}[*]` : `${path}[0]`);
      if (!byType) for (let i = 1; i < value.length; i++) walk(value[i], `${path}[${i}]`);
    } else if (isObject(value)) {
      for (const [key, member] of Object.entries(value)) walk(member, memberPath(path, key));
    }
  };
  walk(body, '$');
  for (const path of equal) rules[path] = rule({ match: 'equality' });
  return rules;
}

type SchemaObject = {
  $ref?: string;
  type?: string;
  properties?: Record<string, SchemaObject>;
  items?: SchemaObject;
  required?: string[];
  nullable?: boolean;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
};

/**
 * An answer as a contract's example: the items of a list (and, with `worldDecided`, the whole answer) cut to the
 * fields the document promises, null-able ones left out (a fresh world's records fill the optional ones otherwise),
 * and one item per list, which the type rules compare every item with.
 */
export function contractExample(
  document: ApiDocument,
  value: unknown,
  schema: SchemaObject | undefined,
  worldDecided: boolean,
): unknown {
  const resolved = schema ? resolveRef(document, schema) : undefined;
  if (Array.isArray(value)) {
    return value.length === 0 ? [] : [contractExample(document, value[0], resolved?.items, true)];
  }
  if (!isObject(value)) return value;
  const properties = resolved?.properties;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const memberSchema = properties?.[key] ? resolveRef(document, properties[key]) : undefined;
    if (worldDecided && properties) {
      if (!resolved?.required?.includes(key) || memberSchema?.nullable || member === null) continue;
    }
    out[key] = contractExample(document, member, memberSchema, worldDecided);
  }
  return out;
}
