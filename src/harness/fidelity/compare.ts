import type { Schemas } from '../../api/types.js';
import { isIdentifierKey, isInstant, ITEMS, jsonType, keyOf, pointerOf, shown, type JsonType } from './normalize.js';

export type DifferenceKind = Schemas['FidelityDifference']['kind'];

/** One place where two answers differ, before the report names the request it came from. */
export interface Finding {
  kind: DifferenceKind;
  pointer: string;
  upstream: unknown;
  fake: unknown;
}

/** An answer as the comparison reads it: its status and its JSON body (undefined: none, or not JSON). */
export interface Answer {
  status: number;
  body: unknown;
}

/** The identifiers the upstream issued in this session, as the twin's: the map learned from create answers. */
export type Translate = (upstreamId: string) => string | undefined;

export interface Comparison {
  upstream: Answer;
  fake: Answer;
  /** Values are compared only for a resource the session created or changed (CONTRACT 14). */
  compareValues: boolean;
  translate: Translate;
  /** Pointers (concrete) where an answer holds a value outside the document's enum, from the document check. */
  enumViolations?: { upstream: readonly string[]; fake: readonly string[] };
}

const errorCodeOf = (body: unknown): { pointer: string; code: unknown } | undefined => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if ('code' in record) return { pointer: '/code', code: record.code };
  if ('error' in record) return { pointer: '/error', code: record.error };
  return undefined;
};

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value at a pointer written by this module (`*` in a list: its first item that has it). */
function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let values: unknown[] = [root];
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    values = values.flatMap((v) => (key === ITEMS && Array.isArray(v) ? v : Array.isArray(v) ? [v[Number(key)]] : isObject(v) && key in v ? [v[key]] : []));
  }
  return values[0];
}

/** The types seen at each pointer of a value, list items merged under `*` (a list's shape is the union of its items'). */
function shapeOf(value: unknown, pointer = '', shape = new Map<string, Set<JsonType>>()): Map<string, Set<JsonType>> {
  const types = shape.get(pointer) ?? new Set<JsonType>();
  types.add(jsonType(value));
  shape.set(pointer, types);
  if (Array.isArray(value)) for (const item of value) shapeOf(item, pointerOf(pointer, ITEMS), shape);
  else if (isObject(value)) for (const [key, field] of Object.entries(value)) shapeOf(field, pointerOf(pointer, key), shape);
  return shape;
}

/** A pointer inside a list neither of whose sides has items says nothing: the two worlds hold other records. */
const insideEmptyList = (pointer: string, upstream: Map<string, Set<JsonType>>, fake: Map<string, Set<JsonType>>): boolean => {
  let at = pointer.indexOf(`/${ITEMS}`);
  while (at >= 0) {
    const list = `${pointer.slice(0, at)}/${ITEMS}`;
    if (!upstream.has(list) || !fake.has(list)) return true;
    at = pointer.indexOf(`/${ITEMS}`, at + 1);
  }
  return false;
};

/** Field sets and JSON types at every pointer; `null` fits any type (the document says where it may stand). */
function compareShapes(upstream: unknown, fake: unknown): Finding[] {
  const ours = shapeOf(fake);
  const theirs = shapeOf(upstream);
  const findings: Finding[] = [];
  const parentMissing = (pointer: string, other: Map<string, Set<JsonType>>): boolean => {
    const parent = pointer.slice(0, pointer.lastIndexOf('/'));
    return parent !== pointer && pointer !== '' && !other.has(parent);
  };
  for (const [pointer, types] of theirs) {
    if (insideEmptyList(pointer, theirs, ours)) continue;
    const other = ours.get(pointer);
    if (!other) {
      // one finding for a missing object, not one per field under it
      if (!parentMissing(pointer, ours)) findings.push({ kind: 'missing_field', pointer, upstream: shown(keyOf(pointer), valueAt(upstream, pointer)), fake: null });
      continue;
    }
    const a = [...types].filter((t) => t !== 'null');
    const b = [...other].filter((t) => t !== 'null');
    if (a.length > 0 && b.length > 0 && !a.some((t) => b.includes(t))) {
      findings.push({ kind: 'type', pointer, upstream: shown(keyOf(pointer), valueAt(upstream, pointer)), fake: shown(keyOf(pointer), valueAt(fake, pointer)) });
    }
  }
  for (const pointer of ours.keys()) {
    if (theirs.has(pointer) || insideEmptyList(pointer, theirs, ours) || parentMissing(pointer, theirs)) continue;
    findings.push({ kind: 'extra_field', pointer, upstream: null, fake: shown(keyOf(pointer), valueAt(fake, pointer)) });
  }
  return findings;
}

/**
 * Values, outside lists only: instants never; identifiers only where the upstream's was issued in this session
 * (the fake's must then be its translation); everything else equal as JSON.
 */
function compareValues(upstream: unknown, fake: unknown, translate: Translate, pointer = ''): Finding[] {
  if (isObject(upstream) && isObject(fake)) {
    return Object.keys(upstream).flatMap((key) => (key in fake ? compareValues(upstream[key], fake[key], translate, pointerOf(pointer, key)) : []));
  }
  if (Array.isArray(upstream) || Array.isArray(fake) || isObject(upstream) || isObject(fake)) return [];
  const key = keyOf(pointer);
  if (isInstant(upstream) || isInstant(fake)) return [];
  if (key !== undefined && isIdentifierKey(key)) {
    const expected = typeof upstream === 'string' ? translate(upstream) : undefined;
    return expected === undefined || expected === fake ? [] : [{ kind: 'value', pointer, upstream: shown(key, upstream), fake: shown(key, fake) }];
  }
  return upstream === fake ? [] : [{ kind: 'value', pointer, upstream: shown(key, upstream), fake: shown(key, fake) }];
}

/** An enum violation at a concrete pointer, with both sides' values there. */
function enumFindings(upstream: unknown, fake: unknown, violations: Comparison['enumViolations']): Finding[] {
  if (!violations) return [];
  const pointers = [...new Set([...violations.upstream, ...violations.fake])];
  return pointers.map((pointer) => ({
    kind: 'enum_value' as const,
    pointer,
    upstream: shown(keyOf(pointer), valueAt(upstream, pointer)),
    fake: shown(keyOf(pointer), valueAt(fake, pointer)),
  }));
}

/**
 * Where the twin's answer differs from the upstream's (CONTRACT 14): the status; on an error, its code; on success,
 * the fields and their JSON types at every pointer (list items by shape), the values of a resource the session
 * created or changed, and every enum value within the document's enum on both sides. A pure function of the two
 * answers, the document's verdicts on them and the identifier map.
 */
export function compareAnswers({ upstream, fake, compareValues: withValues, translate, enumViolations }: Comparison): Finding[] {
  if (upstream.status !== fake.status) return [{ kind: 'status', pointer: '', upstream: upstream.status, fake: fake.status }];
  if (upstream.status >= 400) {
    const theirs = errorCodeOf(upstream.body);
    const ours = errorCodeOf(fake.body);
    if (theirs?.code === ours?.code) return [];
    return [{ kind: 'error_code', pointer: theirs?.pointer ?? ours?.pointer ?? '/code', upstream: theirs?.code ?? null, fake: ours?.code ?? null }];
  }
  const findings = [...compareShapes(upstream.body, fake.body), ...enumFindings(upstream.body, fake.body, enumViolations)];
  if (withValues) {
    // a field already reported missing, extra or of another type is not reported again as a value
    const seen = new Set(findings.map((f) => f.pointer));
    const enums = new Set([...(enumViolations?.upstream ?? []), ...(enumViolations?.fake ?? [])]);
    findings.push(...compareValues(upstream.body, fake.body, translate).filter((f) => !seen.has(f.pointer) && !enums.has(f.pointer)));
  }
  return findings;
}
