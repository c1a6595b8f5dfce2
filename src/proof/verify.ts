import { DomainError } from '../api/errors.js';
import type { Schemas } from '../api/types.js';
import { bodyValue } from '../records/journal-body.js';
import type { JournalRecord } from '../records/journal.js';
import { compilePathPattern } from '../records/path-pattern.js';
import type { Slices } from '../util/slices.js';

export type RequestPattern = Schemas['RequestPattern'];
export type RequestCount = Schemas['RequestCount'];
type VerificationResult = Schemas['VerificationResult'];
type NearMiss = Schemas['NearMiss'];
type Difference = Schemas['Difference'];
export type VerificationFailure = Schemas['VerificationFailure'];

const MAX_NEAR_MISSES = 5;

/**
 * What one pattern may cost: matching a record costs at most its size, so verify is linear in the journal and
 * never holds the server up (bench/verify-cost.mjs measures it at these limits).
 */
const PATTERN_LIMITS = {
  /** Parameters of `query`. */
  queryParameters: 100,
  /** Members and array items of `body`, at every depth. */
  bodyMembers: 1000,
  /** Levels of `body`. */
  bodyDepth: 16,
  /** The pattern as JSON, in bytes. */
  bytes: 16 * 1024,
  /** Characters of `path`. */
  pathLength: 2048,
} as const;

const tooLarge = (path: string, message: string): DomainError =>
  new DomainError(
    422,
    'pattern_too_large',
    `The pattern ${message}: verify takes smaller patterns, so that it never holds the server up.`,
    [{ location: 'body', path, message }],
  );

/** Refuses a pattern past PATTERN_LIMITS, naming the limit; it stops counting at the limit (a huge one costs no more). */
function checkPatternCost(pattern: RequestPattern, at = '/request'): void {
  const { queryParameters, bodyMembers, bodyDepth, bytes, pathLength } = PATTERN_LIMITS;
  if (pattern.path !== undefined && String(pattern.path).length > pathLength)
    throw tooLarge(`${at}/path`, `path has more than ${pathLength} characters`);
  let parameters = 0;
  for (const _ in pattern.query ?? {}) {
    if (++parameters > queryParameters)
      throw tooLarge(`${at}/query`, `query has more than ${queryParameters} parameters`);
  }
  let members = 0;
  const stack: { value: unknown; depth: number }[] = [{ value: pattern.body, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > bodyDepth) throw tooLarge(`${at}/body`, `body is more than ${bodyDepth} levels deep`);
    for (const key in value) {
      if (++members > bodyMembers)
        throw tooLarge(`${at}/body`, `body has more than ${bodyMembers} members and array items`);
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  const size = Buffer.byteLength(JSON.stringify(pattern) ?? '');
  if (size > bytes) throw tooLarge(at, `is ${size} bytes as JSON, more than ${bytes}`);
}

/** The difference of one value from what a pattern asked: subsets for objects, element by element for arrays. */
function bodyDifferences(expected: unknown, actual: unknown, field: string): Difference[] {
  if (expected !== null && typeof expected === 'object') {
    if (Array.isArray(expected)) {
      if (!Array.isArray(actual) || actual.length !== expected.length)
        return [{ field, expected, actual: actual ?? null }];
      return expected.flatMap((item, i) => bodyDifferences(item, actual[i], `${field}[${i}]`));
    }
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [{ field, expected, actual: actual ?? null }];
    return Object.entries(expected).flatMap(([key, value]) =>
      bodyDifferences(value, (actual as Record<string, unknown>)[key], `${field}.${key}`),
    );
  }
  // a form body holds text: `amount: 10` matches `amount=10`
  const same =
    expected === actual || (typeof actual === 'string' && typeof expected !== 'string' && String(expected) === actual);
  return same ? [] : [{ field, expected, actual: actual ?? null }];
}

/** A pattern compiled once: how one journal record differs from it (no difference: it matches). */
function compileRequestPattern(
  pattern: RequestPattern,
  operationIds: ReadonlySet<string>,
): (record: JournalRecord) => Difference[] {
  checkPatternCost(pattern);
  if (pattern.operation !== undefined && !operationIds.has(pattern.operation)) {
    throw new DomainError(
      422,
      'validation_error',
      `The pattern names the operation "${pattern.operation}", which the document does not have.`,
      [
        {
          location: 'body',
          path: '/request/operation',
          message: `is not an operationId of the document (such as listOrders, cancelOrder, createAccount)`,
        },
      ],
    );
  }
  const method = pattern.method?.toUpperCase();
  const matchesPath = pattern.path === undefined ? undefined : compilePathPattern(pattern.path);
  const query = Object.entries(pattern.query ?? {}).map(([name, value]) => [name, String(value)] as const);
  return (record) => {
    const { entry } = record;
    const differences: Difference[] = [];
    if (method !== undefined && entry.method !== method)
      differences.push({ field: 'method', expected: method, actual: entry.method });
    if (matchesPath && !matchesPath(entry.path))
      differences.push({ field: 'path', expected: pattern.path, actual: entry.path });
    if (pattern.operation !== undefined && entry.operation_id !== pattern.operation) {
      differences.push({ field: 'operation', expected: pattern.operation, actual: entry.operation_id ?? null });
    }
    for (const [name, value] of query) {
      // a name as sent, whatever it is (`constructor`): never a member the query's object merely inherits
      const sent = Object.hasOwn(entry.query, name) ? entry.query[name] : undefined;
      if (sent !== value) differences.push({ field: `query.${name}`, expected: value, actual: sent ?? null });
    }
    if (pattern.status !== undefined && entry.status !== pattern.status)
      differences.push({ field: 'status', expected: pattern.status, actual: entry.status });
    if (pattern.body !== undefined)
      differences.push(...bodyDifferences(pattern.body, bodyValue(record.requestBody), 'body'));
    return differences;
  };
}

const countHolds = (count: RequestCount, matched: number): boolean =>
  (count.exactly === undefined || matched === count.exactly) &&
  (count.at_least === undefined || matched >= count.at_least) &&
  (count.at_most === undefined || matched <= count.at_most);

const describeCount = (count: RequestCount): string =>
  count.exactly !== undefined
    ? `exactly ${count.exactly}`
    : count.at_most !== undefined
      ? `at most ${count.at_most}`
      : `at least ${count.at_least ?? 1}`;

/** One pattern field per line, as a person reads it: `operation listOrders`, `query.order_status PLACED`. */
function describePattern(pattern: RequestPattern): string {
  const parts: string[] = [];
  if (pattern.method !== undefined) parts.push(pattern.method.toUpperCase());
  if (pattern.path !== undefined) parts.push(pattern.path);
  if (pattern.operation !== undefined) parts.push(`operation ${pattern.operation}`);
  for (const [name, value] of Object.entries(pattern.query ?? {})) parts.push(`query ${name}=${String(value)}`);
  if (pattern.body !== undefined) parts.push(`body ⊇ ${JSON.stringify(pattern.body)}`);
  if (pattern.status !== undefined) parts.push(`status ${pattern.status}`);
  return parts.length > 0 ? parts.join(', ') : 'any request';
}

/** The outcome of a verification: the matches when the count holds, else why not and the near misses. */
export type VerificationOutcome =
  | { holds: true; result: VerificationResult }
  | { holds: false; detail: string; failure: Pick<VerificationFailure, 'matched' | 'requests' | 'near_misses'> };

const countOf = (count: RequestCount | undefined): RequestCount => {
  if (count === undefined) return { at_least: 1 };
  const given = Object.entries(count).filter(([, value]) => value !== undefined);
  if (given.length !== 1 || !given.every(([, value]) => Number.isInteger(value) && value >= 0)) {
    throw new DomainError(
      422,
      'validation_error',
      'A count is exactly one of exactly, at_least and at_most, a whole number of 0 or more.',
      [{ location: 'body', path: '/count', message: 'must have exactly one of exactly, at_least, at_most' }],
    );
  }
  return count;
};

/**
 * WireMock's verify: the records matching a pattern, and whether their count holds. When it does not, the records
 * closest to the pattern (fewest differing fields, then newest) are its near misses.
 */
export function* verifySteps(
  records: readonly JournalRecord[],
  verification: Schemas['Verification'],
  operationIds: ReadonlySet<string>,
): Slices<VerificationOutcome> {
  const differencesOf = compileRequestPattern(verification.request, operationIds);
  const count = countOf(verification.count);
  const matched: JournalRecord[] = [];
  // the nearest misses so far, nearest first (fewest differences, then newest): never more than MAX_NEAR_MISSES kept
  const misses: { record: JournalRecord; differences: Difference[] }[] = [];
  for (const record of records) {
    yield;
    const differences = differencesOf(record);
    if (differences.length === 0) {
      matched.push(record);
      continue;
    }
    // a later record with as few differences is nearer (newer): it goes before those of its count
    let at = misses.length;
    while (at > 0 && misses[at - 1]!.differences.length >= differences.length) at--;
    if (at < MAX_NEAR_MISSES) {
      misses.splice(at, 0, { record, differences });
      if (misses.length > MAX_NEAR_MISSES) misses.pop();
    }
  }
  const requests = matched.map((r) => r.entry.id);
  if (countHolds(count, matched.length)) return { holds: true, result: { matched: matched.length, requests } };

  const nearMisses: NearMiss[] = misses.map(({ record, differences }) => ({
    request: record.entry,
    body: bodyValue(record.requestBody) ?? null,
    differences,
  }));
  const nearest = nearMisses[0];
  const detail =
    `Expected ${describeCount(count)} request(s) matching ${describePattern(verification.request)}; ${matched.length} matched` +
    (nearest && matched.length === 0
      ? `. Nearest: request ${nearest.request.id}, ${nearest.differences.map((d) => `${d.field} ${JSON.stringify(d.actual)}`).join(', ')}.`
      : '.');
  return { holds: false, detail, failure: { matched: matched.length, requests, near_misses: nearMisses } };
}

const clipped = (value: unknown, max = 200): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length <= max ? text : `${text.slice(0, max)}…`;
};

/** A failed verification for a person: the expectation, then each near miss with what it sent instead. */
export function describeVerificationFailure(detail: string, failure: Pick<VerificationFailure, 'near_misses'>): string {
  const lines = [detail.replace(/\. Nearest: .*$/, '.')];
  if (failure.near_misses.length === 0) lines.push('No request of this client was journaled at all.');
  else lines.push('Near misses, closest first:');
  for (const miss of failure.near_misses) {
    const { id, method, path, query, status, operation_id } = miss.request;
    const search = new URLSearchParams(query).toString();
    lines.push(
      `  request ${id}: ${method} ${path}${search ? `?${search}` : ''} → ${status === 0 ? 'dropped' : status}${operation_id ? ` (${operation_id})` : ''}`,
    );
    for (const d of miss.differences)
      lines.push(`      ${d.field}: expected ${clipped(d.expected)}, got ${clipped(d.actual)}`);
    if (miss.body !== null && miss.differences.some((d) => d.field.startsWith('body')))
      lines.push(`      body sent: ${clipped(miss.body, 400)}`);
  }
  return lines.join('\n');
}
