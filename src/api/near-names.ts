/**
 * The name a partner most likely meant when it sent one the operation does not have: a case change, `_` for `-`, one
 * edit (Damerau–Levenshtein distance 1), or a known alias (`status` → `order_status`, `page` → `skip`). Pure: names
 * in, the nearest out, or none when none is that near or two are equally near (a guess would mislead).
 */
import { operationAt, parametersOf, resolveRef, type ApiDocument } from './document.js';

/** Paging words of other APIs, folded (see `fold`), for the interface's `skip` and `limit`. */
const PAGING_ALIASES: ReadonlyMap<string, string> = new Map([
  ['page', 'skip'],
  ['offset', 'skip'],
  ['start', 'skip'],
  ['perpage', 'limit'],
  ['pagesize', 'limit'],
  ['size', 'limit'],
  ['count', 'limit'],
  ['take', 'limit'],
  ['top', 'limit'],
]);

/** A word named bare that a name of the operation ends with after `_` (`status` for `order_status`): this long at least. */
const MIN_SUFFIX_LENGTH = 4;

/** Lower case, `-` as `_`: what a case change or a `_`/`-` swap leaves alike. */
const lower = (name: string): string => name.toLowerCase().replaceAll('-', '_');
/** And without separators: `orderStatus`, `ORDER-STATUS` and `order_status` alike. */
const fold = (name: string): string => lower(name).replaceAll('_', '');

/** Damerau–Levenshtein distance (optimal string alignment) of at most 1: a substitution, a swap of neighbours, one more or one less. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [shorter, longer] = a.length < b.length ? [a, b] : [b, a];
  return shorter.slice(i) === longer.slice(i + 1);
}

/** How near `known` is to `sent`: 0 the same word (case, separators, an alias), 1 an edit away, undefined not near. */
function nearness(sent: string, known: string): 0 | 1 | undefined {
  if (fold(sent) === fold(known)) return 0;
  if (PAGING_ALIASES.get(fold(sent)) === known) return 0;
  const bare = lower(sent);
  if (bare.length >= MIN_SUFFIX_LENGTH && lower(known).endsWith(`_${bare}`)) return 0;
  if (withinOneEdit(lower(sent), lower(known)) || withinOneEdit(fold(sent), fold(known))) return 1;
  return undefined;
}

/**
 * The one name of `names` nearest to `sent`, which the operation does not have; undefined when `sent` is one of
 * `names`, none is near, or two are equally near.
 */
export function nearestName(sent: string, names: readonly string[]): string | undefined {
  if (names.includes(sent)) return undefined;
  let best: string | undefined;
  let bestRank = 2;
  let tied = false;
  for (const known of new Set(names)) {
    const rank = nearness(sent, known);
    if (rank === undefined || rank > bestRank) continue;
    if (rank < bestRank) [best, bestRank, tied] = [known, rank, false];
    else tied = true;
  }
  return tied ? undefined : best;
}

/** The names of an operation's query parameters, as the document has them. */
export const queryNamesOf = (document: ApiDocument, operation: { method: string; path: string }): string[] =>
  parametersOf(document, operation).flatMap((p) => (p.in === 'query' && typeof p.name === 'string' ? [p.name] : []));

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  $ref?: string;
};

/** No schema of the document nests deeper; past it a walk stops rather than follow a cycle. */
const MAX_WALK = 32;

/** The schemas a pointer's segments lead to from `schema`, through `$ref`s, properties, items and every branch. */
function schemasAt(document: ApiDocument, schema: Schema, segments: readonly string[], depth = 0): Schema[] {
  if (depth > MAX_WALK) return [];
  const resolved = resolveRef(document, schema);
  const branches = [...(resolved.allOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])];
  const fromBranches = branches.flatMap((branch) => schemasAt(document, branch, segments, depth + 1));
  if (segments.length === 0) return [resolved, ...fromBranches];
  const [segment, ...rest] = segments as [string, ...string[]];
  const next: Schema[] = [];
  if (resolved.properties && Object.hasOwn(resolved.properties, segment)) next.push(resolved.properties[segment]!);
  if (resolved.items && /^\d+$/.test(segment)) next.push(resolved.items);
  return [...next.flatMap((s) => schemasAt(document, s, rest, depth + 1)), ...fromBranches];
}

/**
 * The member names the operation's request body takes in the object at `pointer` (its segments; `[]` for the body
 * itself, `['address']` for a nested object): every media type's schema, every branch of a oneOf/anyOf/allOf.
 */
export function memberNamesAt(
  document: ApiDocument,
  operation: { method: string; path: string },
  pointer: readonly string[],
): string[] {
  const body = operationAt(document, operation)?.requestBody;
  const content = body ? resolveRef(document, body).content : undefined;
  const roots = Object.values(content ?? {}).flatMap((media) => (media.schema ? [media.schema as Schema] : []));
  const names = roots.flatMap((root) =>
    schemasAt(document, root, pointer).flatMap((s) => Object.keys(s.properties ?? {})),
  );
  return [...new Set(names)];
}
