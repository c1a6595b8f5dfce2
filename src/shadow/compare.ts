import { pointerOf, valueAt } from '../api/json-pointer.js';
import type { Schemas } from '../api/types.js';
import { secretForms } from '../records/secrets.js';
import { runNow, type Slices } from '../util/slices.js';
import { isIdentifierKey, isInstant, ITEMS, jsonType, shown, type JsonType } from './normalize.js';

type DifferenceKind = Schemas['FidelityDifference']['kind'];
export type ProblemSide = Schemas['FidelityProblem'];

/** One place where two answers differ, before the report names the request it came from. */
export interface Finding {
  kind: DifferenceKind;
  pointer: string;
  upstream: unknown;
  fake: unknown;
  /** A `status` or `error_code` difference: each side's answer as a problem (null: it succeeded). */
  problems?: { upstream: ProblemSide; fake: ProblemSide };
  /** A `type` difference: the JSON types seen at the pointer on each side, null aside (list items: every item's). */
  types?: { upstream: JsonType[]; fake: JsonType[] };
  /** An `enum_value` difference: the sides whose value the document's enum does not hold. */
  outside?: ('upstream' | 'fake')[];
}

/** An answer as the comparison reads it: its status and its JSON body (undefined: none, or not JSON). */
export interface Answer {
  status: number;
  body: unknown;
}

/** The identifiers the upstream issued in this session, as the twin's: the map learned from create answers. */
type Translate = (upstreamId: string) => string | undefined;

export interface Comparison {
  upstream: Answer;
  fake: Answer;
  /** Values are compared only for a resource the session created or changed (CONTRACT 14). */
  compareValues: boolean;
  translate: Translate;
  /** Pointers (concrete) where an answer holds a value outside the document's enum, from the document check. */
  enumViolations?: { upstream: readonly string[]; fake: readonly string[] };
  /** The client's credentials (its secret, its tokens): never shown in a finding, wherever they stand. */
  secrets?: readonly string[];
}

const errorCodeOf = (body: unknown): { pointer: string; code: unknown } | undefined => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if ('code' in record) return { pointer: '/code', code: record.code };
  if ('error' in record) return { pointer: '/error', code: record.error };
  return undefined;
};

/** An answer as a problem: its status, its `code` and `detail` (OAuth: `error`, `error_description`); null for a success. */
const problemOf = ({ status, body }: Answer, forms: readonly string[]): ProblemSide => {
  if (status < 400) return null;
  const record =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const text = (pointer: string, value: unknown): string | null => {
    if (value === undefined || value === null) return null;
    const seen = shown(pointer, value, forms);
    return typeof seen === 'string' ? seen : JSON.stringify(seen);
  };
  const oauth = !('code' in record) && 'error' in record;
  return {
    status,
    code: oauth ? text('/error', record.error) : text('/code', record.code),
    detail: oauth ? text('/error_description', record.error_description) : text('/detail', record.detail),
  };
};

const problemsOf = (upstream: Answer, fake: Answer, forms: readonly string[]): Finding['problems'] => ({
  upstream: problemOf(upstream, forms),
  fake: problemOf(fake, forms),
});

const typesOf = (bits: number): JsonType[] =>
  (Object.keys(TYPE_BIT) as JsonType[]).filter((type) => type !== 'null' && (bits & TYPE_BIT[type]) !== 0);

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Deeper than this, a value counts by its own type alone (JSON nested further says nothing a report could show). */
const MAX_DEPTH = 64;

/** Nodes walked between two chances to give the event loop a turn (`util/slices.ts`). */
const STEP = 256;

/** A segment longer than this is cut in a finding's pointer: a pointer is a place to look, not a copy of the key. */
const SEGMENT_SHOWN = 256;

const TYPE_BIT: Record<JsonType, number> = { null: 1, boolean: 2, number: 4, string: 8, array: 16, object: 32 };
const NULL_BIT = TYPE_BIT.null;

/**
 * One pointer of an answer's shape: the JSON types seen there, the first value seen (in the answer's order), its
 * fields, and its list items merged (a list's shape is the union of its items'). A tree of the pointers, so that
 * walking an answer builds no pointer text and finds each place in one step, whatever its depth or its keys' length.
 */
interface ShapeNode {
  types: number;
  first: unknown;
  fields: Map<string, ShapeNode> | undefined;
  items: ShapeNode | undefined;
}

const shapeNode = (value: unknown): ShapeNode => ({ types: 0, first: value, fields: undefined, items: undefined });

/** The shape of a value, walked in the answer's order without recursion; one step of the caller's slices per STEP nodes. */
function* shapeOf(root: unknown): Slices<ShapeNode> {
  const top = shapeNode(root);
  // what is left to walk, in four stacks: the value, the node holding it, its key there (undefined: a list item), its depth
  const values: unknown[] = [root];
  const parents: (ShapeNode | undefined)[] = [undefined];
  const keys: (string | undefined)[] = [undefined];
  const depths: number[] = [0];
  let walked = 0;
  while (values.length > 0) {
    const value = values.pop();
    const parent = parents.pop();
    const key = keys.pop();
    const depth = depths.pop()!;
    let node = top;
    if (parent !== undefined) {
      if (key === undefined) node = parent.items ??= shapeNode(value);
      else {
        parent.fields ??= new Map();
        const known = parent.fields.get(key);
        if (known) node = known;
        else parent.fields.set(key, (node = shapeNode(value)));
      }
    }
    node.types |= TYPE_BIT[jsonType(value)];
    if (++walked % STEP === 0) yield;
    if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') continue;
    // pushed last first: popped in the answer's order
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        values.push(value[i]);
        parents.push(node);
        keys.push(undefined);
        depths.push(depth + 1);
      }
    } else {
      const names = Object.keys(value);
      for (let i = names.length - 1; i >= 0; i--) {
        values.push((value as Record<string, unknown>)[names[i]!]);
        parents.push(node);
        keys.push(names[i]);
        depths.push(depth + 1);
      }
    }
  }
  return top;
}

const segment = (key: string): string => (key.length > SEGMENT_SHOWN ? `${key.slice(0, SEGMENT_SHOWN)}…` : key);

/**
 * Field sets and JSON types at every pointer; `null` fits any type (the document says where it may stand). Items of
 * a list neither of whose sides has items say nothing: the two worlds hold other records. A field missing (or extra)
 * is one finding, not one per field under it. The upstream's pointers first, in its order, then the fake's extras.
 */
function* compareShapes(
  upstream: ShapeNode,
  fake: ShapeNode,
  forms: readonly string[],
  findings: Finding[],
): Slices<void> {
  for (const [from, to, side] of [
    [upstream, fake, 'upstream'],
    [fake, upstream, 'fake'],
  ] as const) {
    const pairs: [ShapeNode, ShapeNode | undefined, string][] = [[from, to, '']];
    let walked = 0;
    while (pairs.length > 0) {
      const [mine, other, pointer] = pairs.pop()!;
      if (++walked % STEP === 0) yield;
      if (!other) {
        if (side === 'upstream')
          findings.push({ kind: 'missing_field', pointer, upstream: shown(pointer, mine.first, forms), fake: null });
        else findings.push({ kind: 'extra_field', pointer, upstream: null, fake: shown(pointer, mine.first, forms) });
        continue;
      }
      if (side === 'upstream') {
        const [a, b] = [mine.types & ~NULL_BIT, other.types & ~NULL_BIT];
        if (a !== 0 && b !== 0 && (a & b) === 0) {
          findings.push({
            kind: 'type',
            pointer,
            upstream: shown(pointer, mine.first, forms),
            fake: shown(pointer, other.first, forms),
            types: { upstream: typesOf(a), fake: typesOf(b) },
          });
        }
      }
      const below: [ShapeNode, ShapeNode | undefined, string][] = [];
      if (mine.items && other.items) below.push([mine.items, other.items, pointerOf(pointer, ITEMS)]);
      for (const [key, field] of mine.fields ?? [])
        below.push([field, other.fields?.get(key), pointerOf(pointer, segment(key))]);
      for (let i = below.length - 1; i >= 0; i--) pairs.push(below[i]!);
    }
  }
}

/**
 * Values, outside lists only: instants never; identifiers only where the upstream's was issued in this session
 * (the fake's must then be its translation); everything else equal as JSON.
 */
function* compareValues(
  upstream: unknown,
  fake: unknown,
  translate: Translate,
  forms: readonly string[],
  findings: Finding[],
): Slices<void> {
  const pairs: [unknown, unknown, string, string | undefined, number][] = [[upstream, fake, '', undefined, 0]];
  let walked = 0;
  while (pairs.length > 0) {
    const [theirs, ours, pointer, key, depth] = pairs.pop()!;
    if (++walked % STEP === 0) yield;
    if (isObject(theirs) && isObject(ours)) {
      if (depth >= MAX_DEPTH) continue;
      const names = Object.keys(theirs);
      for (let i = names.length - 1; i >= 0; i--) {
        const name = names[i]!;
        if (Object.hasOwn(ours, name))
          pairs.push([theirs[name], ours[name], pointerOf(pointer, segment(name)), name, depth + 1]);
      }
      continue;
    }
    if (Array.isArray(theirs) || Array.isArray(ours) || isObject(theirs) || isObject(ours)) continue;
    if (isInstant(theirs) || isInstant(ours)) continue;
    if (key !== undefined && isIdentifierKey(key)) {
      const expected = typeof theirs === 'string' ? translate(theirs) : undefined;
      if (expected !== undefined && expected !== ours)
        findings.push({
          kind: 'value',
          pointer,
          upstream: shown(pointer, theirs, forms),
          fake: shown(pointer, ours, forms),
        });
      continue;
    }
    if (theirs !== ours)
      findings.push({
        kind: 'value',
        pointer,
        upstream: shown(pointer, theirs, forms),
        fake: shown(pointer, ours, forms),
      });
  }
}

/** An enum violation at a concrete pointer, with both sides' values there. */
function* enumFindings(
  upstream: unknown,
  fake: unknown,
  violations: Comparison['enumViolations'],
  forms: readonly string[],
  findings: Finding[],
): Slices<void> {
  if (!violations) return;
  const pointers = new Set([...violations.upstream, ...violations.fake]);
  const [upstreamOut, fakeOut] = [new Set(violations.upstream), new Set(violations.fake)];
  let walked = 0;
  for (const pointer of pointers) {
    if (++walked % STEP === 0) yield;
    const outside = (['upstream', 'fake'] as const).filter((side) =>
      (side === 'upstream' ? upstreamOut : fakeOut).has(pointer),
    );
    findings.push({
      kind: 'enum_value',
      pointer,
      upstream: shown(pointer, valueAt(upstream, pointer), forms),
      fake: shown(pointer, valueAt(fake, pointer), forms),
      outside,
    });
  }
}

/**
 * Where the twin's answer differs from the upstream's (CONTRACT 14): the status; on an error, its code; on success,
 * the fields and their JSON types at every pointer (list items by shape), the values of a resource the session
 * created or changed, and every enum value within the document's enum on both sides. A pure function of the two
 * answers, the document's verdicts on them and the identifier map, in time linear in the answers' size, written as
 * slices (`util/slices.ts`): the control plane's caller gives the event loop a turn between them.
 */
export function* comparing({
  upstream,
  fake,
  compareValues: withValues,
  translate,
  enumViolations,
  secrets = [],
}: Comparison): Slices<Finding[]> {
  const forms = secretForms(secrets);
  if (upstream.status !== fake.status)
    return [
      {
        kind: 'status',
        pointer: '',
        upstream: upstream.status,
        fake: fake.status,
        problems: problemsOf(upstream, fake, forms),
      },
    ];
  if (upstream.status >= 400) {
    const theirs = errorCodeOf(upstream.body);
    const ours = errorCodeOf(fake.body);
    if (theirs?.code === ours?.code) return [];
    const pointer = theirs?.pointer ?? ours?.pointer ?? '/code';
    return [
      {
        kind: 'error_code',
        pointer,
        upstream: shown(pointer, theirs?.code ?? null, forms),
        fake: shown(pointer, ours?.code ?? null, forms),
        problems: problemsOf(upstream, fake, forms),
      },
    ];
  }
  const findings: Finding[] = [];
  yield* compareShapes(yield* shapeOf(upstream.body), yield* shapeOf(fake.body), forms, findings);
  yield* enumFindings(upstream.body, fake.body, enumViolations, forms, findings);
  if (withValues) {
    // a field already reported missing, extra or of another type is not reported again as a value
    const seen = new Set(findings.map((f) => f.pointer));
    const values: Finding[] = [];
    yield* compareValues(upstream.body, fake.body, translate, forms, values);
    for (const value of values) if (!seen.has(value.pointer)) findings.push(value);
  }
  return findings;
}

/** `comparing` at once, in the caller's own time. */
export const compareAnswers = (comparison: Comparison): Finding[] => runNow(comparing(comparison));
