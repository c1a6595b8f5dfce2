/**
 * The document path an unknown path is close to, for a 404's "did you mean" when the route step's near miss (another
 * case, a slash) found none: a segment misspelt (a few edits), a segment missing or one too many. Run only on a 404,
 * over the paths that have the request's method.
 */
import type { NearMiss } from './errors.js';

/** A document path close to a request's, the request's values in its parameters, and how the two differ. */
export type ClosePath = Required<NearMiss>;

interface Template {
  openApiRoute: string;
  methods: ReadonlySet<string>;
  segments: { text: string; parameter: boolean }[];
  trailingSlash: boolean;
}

/** Past these a path is nobody's misspelling, and comparing it would cost more than a 404 should. */
const MAX_PATH_LENGTH = 2048;
const MAX_SEGMENTS = 32;
/** A segment added or dropped weighs as much as the most edits a segment may be off by: a misspelling is closer. */
const SEGMENT_OFF_COST = 2;
/** A segment added or dropped is a guess only when this many of the document path's fixed segments are there. */
const STATICS_WITH_A_SEGMENT_OFF = 2;

const segmentsOf = (path: string): string[] => path.split('/').filter((segment) => segment !== '');

/** Edits a fixed segment may be off by: none for the shortest (`v1`), two for the longer (`accounts`). */
const allowanceOf = (text: string): number => Math.min(2, Math.floor(text.length / 3));

/** Levenshtein distance, or `limit + 1` as soon as it must exceed `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let smallest = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      smallest = Math.min(smallest, current[j]!);
    }
    if (smallest > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

interface Alignment {
  /** A segment added or dropped, plus the edits of the fixed segments: lower is closer. */
  cost: number;
  /** Fixed segments of the document path the request has (as they are or nearly): more is closer. */
  statics: number;
  /** Parameters given a word the document spells as a fixed segment (`documents` as an ISIN): fewer is closer. */
  misfits: number;
  spelling: string[];
  notes: string[];
}

const clipped = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** The request's segments against the template's, with one of either left out (or none), if they are close. */
function align(
  request: readonly string[],
  template: Template,
  words: ReadonlySet<string>,
  skipRequest?: number,
  skipTemplate?: number,
): Alignment | undefined {
  const segmentOff = skipRequest !== undefined || skipTemplate !== undefined;
  const result: Alignment = {
    cost: segmentOff ? SEGMENT_OFF_COST : 0,
    statics: 0,
    misfits: 0,
    spelling: [],
    notes: [],
  };
  let r = 0;
  for (let t = 0; t < template.segments.length; t++) {
    if (r === skipRequest) result.notes.push(`a segment too many: ${clipped(request[r++]!)}`);
    const segment = template.segments[t]!;
    if (t === skipTemplate) {
      result.spelling.push(segment.text);
      result.notes.push(`a segment missing: ${segment.text}`);
      continue;
    }
    const given = request[r++]!;
    result.spelling.push(segment.parameter ? given : segment.text);
    if (segment.parameter) {
      if (words.has(given.toLowerCase())) result.misfits += 1;
      continue;
    }
    const allowance = allowanceOf(segment.text);
    const edits = distance(given.toLowerCase(), segment.text.toLowerCase(), allowance);
    if (edits > allowance) return undefined;
    result.cost += edits;
    result.statics += 1;
    if (given !== segment.text) result.notes.push(`${segment.text}, not ${clipped(given)}`);
  }
  if (r === skipRequest) result.notes.push(`a segment too many: ${clipped(request[r]!)}`);
  if (segmentOff && result.statics < STATICS_WITH_A_SEGMENT_OFF) return undefined;
  return result;
}

/** The template's closest alignment with the request: every way of leaving one segment out when the counts differ by one. */
function closestAlignment(
  request: readonly string[],
  template: Template,
  words: ReadonlySet<string>,
): Alignment | undefined {
  const difference = request.length - template.segments.length;
  const tries: (Alignment | undefined)[] = [];
  if (difference === 0) tries.push(align(request, template, words));
  if (difference === 1) for (let i = 0; i < request.length; i++) tries.push(align(request, template, words, i));
  if (difference === -1)
    for (let i = 0; i < template.segments.length; i++) tries.push(align(request, template, words, undefined, i));
  return tries.reduce<Alignment | undefined>((best, a) => (a && (!best || closer(a, best)) ? a : best), undefined);
}

const closer = (a: Alignment, b: Alignment): boolean =>
  a.cost !== b.cost ? a.cost < b.cost : a.statics !== b.statics ? a.statics > b.statics : a.misfits < b.misfits;

/**
 * A finder over the document's paths (each with its methods): for a method and a path, the one document path with
 * that method closest to it, or undefined when none is close or two are equally close (a guess would mislead).
 */
export function closePathFinder(
  paths: readonly { openApiRoute: string; methods: Iterable<string> }[],
): (method: string, path: string) => ClosePath | undefined {
  const templates: Template[] = paths.map(({ openApiRoute, methods }) => ({
    openApiRoute,
    methods: new Set(methods),
    segments: segmentsOf(openApiRoute).map((text) => ({ text, parameter: /^\{[^}]+\}$/.test(text) })),
    trailingSlash: openApiRoute.length > 1 && openApiRoute.endsWith('/'),
  }));
  const words = new Set(
    templates.flatMap((t) => t.segments.filter((s) => !s.parameter).map((s) => s.text.toLowerCase())),
  );
  return (method, path) => {
    if (path.length > MAX_PATH_LENGTH) return undefined;
    const request = segmentsOf(path);
    if (request.length > MAX_SEGMENTS) return undefined;
    let best: { template: Template; alignment: Alignment } | undefined;
    let tied = false;
    for (const template of templates) {
      if (!template.methods.has(method)) continue;
      const alignment = closestAlignment(request, template, words);
      if (!alignment) continue;
      if (!best || closer(alignment, best.alignment)) [best, tied] = [{ template, alignment }, false];
      else if (!closer(best.alignment, alignment)) tied = true;
    }
    if (!best || tied) return undefined;
    const { template, alignment } = best;
    const notes = [...alignment.notes];
    if (path.includes('//')) notes.push('no doubled slashes');
    const slash = path.length > 1 && path.endsWith('/');
    if (slash !== template.trailingSlash)
      notes.push(template.trailingSlash ? 'with the trailing slash' : 'without the trailing slash');
    return {
      openApiRoute: template.openApiRoute,
      spelling: `/${alignment.spelling.join('/')}${template.trailingSlash ? '/' : ''}`,
      difference: notes.join('; '),
    };
  };
}
