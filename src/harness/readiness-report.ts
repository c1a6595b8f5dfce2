import type { JournalRecord } from './journal.js';
import type { Schemas } from '../api/types.js';

export type ReadinessFinding = Schemas['ReadinessFinding'];

const TOKEN_PATH = '/oauth2/token';
const LIST_OPERATIONS = new Set(['listAccounts', 'listWallets', 'listOrders', 'listShareClasses', 'listAssets']);
const REPEATS = 3;

const ids = (records: readonly JournalRecord[]): string[] => records.map((r) => r.entry.id);
const isToken = (r: JournalRecord): boolean => r.entry.path === TOKEN_PATH && r.entry.method === 'POST';

/** Most calls come with a fresh token, although the previous one was still valid. */
function tokenPerCall(records: readonly JournalRecord[], tokenTtlSeconds: number): ReadinessFinding[] {
  const grants = records.filter((r) => isToken(r) && r.entry.status === 200);
  const calls = records.filter((r) => !isToken(r));
  const early = grants.filter((grant, i) => i > 0 && grant.evidence.at < grants[i - 1]!.evidence.at + (tokenTtlSeconds - 60) * 1000);
  if (early.length < 2 || grants.length * 2 < calls.length) return [];
  return [{
    code: 'token_per_call',
    message: `${grants.length} tokens were fetched for ${calls.length} calls, ${early.length} of them while the previous token was still valid: reuse a token until shortly before it expires (expires_in).`,
    requests: ids(early),
  }];
}

/** A 429 or 503 never retried, or retried before Retry-After had passed. */
function throttling(records: readonly JournalRecord[]): ReadinessFinding[] {
  const neverRetried: JournalRecord[] = [];
  const tooSoon: JournalRecord[] = [];
  records.forEach((r, i) => {
    if (r.entry.status !== 429 && r.entry.status !== 503) return;
    const retry = records.slice(i + 1).find((next) => next.entry.method === r.entry.method && next.entry.path === r.entry.path);
    if (!retry) neverRetried.push(r);
    else if (retry.evidence.at - r.evidence.at < (r.evidence.retryAfter ?? 0) * 1000) tooSoon.push(r, retry);
  });
  const findings: ReadinessFinding[] = [];
  if (neverRetried.length > 0) {
    findings.push({
      code: 'no_retry_after_throttling',
      message: `${neverRetried.length} answer(s) 429/503 were never retried: retry throttled and unavailable calls with backoff.`,
      requests: ids(neverRetried),
    });
  }
  if (tooSoon.length > 0) {
    findings.push({
      code: 'retry_ignored_retry_after',
      message: `${tooSoon.length / 2} retr(ies) came sooner than the Retry-After header asked: wait at least that long.`,
      requests: ids(tooSoon),
    });
  }
  return findings;
}

/**
 * A full page of a list (as many items as `limit`) whose next page was never asked for. The API shows no total,
 * so only a page shorter than `limit` tells a client it has everything.
 */
function firstPageOnly(records: readonly JournalRecord[]): ReadinessFinding[] {
  const listReads = records.filter((r) => LIST_OPERATIONS.has(r.entry.operation_id ?? '') && r.entry.status === 200);
  const pageKey = (r: JournalRecord, skip: number): string => {
    const { skip: _s, limit, ...filters } = r.entry.query;
    return `${r.entry.path}|${limit ?? '100'}|${skip}|${JSON.stringify(Object.entries(filters).sort())}`;
  };
  const read = new Set(listReads.map((r) => pageKey(r, Number(r.entry.query.skip ?? 0))));
  const stopped = listReads.filter((r) => {
    const limit = Number(r.entry.query.limit ?? 100);
    return r.evidence.itemCount === limit && !read.has(pageKey(r, Number(r.entry.query.skip ?? 0) + limit));
  });
  if (stopped.length === 0) return [];
  return [{
    code: 'first_page_only',
    message: `${stopped.length} list read(s) got a full page and never asked for the next one: page with skip until a page is shorter than limit.`,
    requests: ids(stopped),
  }];
}

/** The same request answered with the same 4xx again and again. */
function repeatedClientErrors(records: readonly JournalRecord[]): ReadinessFinding[] {
  const groups = new Map<string, JournalRecord[]>();
  for (const r of records) {
    // 429 asks for a retry: repeating it is right, and judged by the throttling rules instead
    if (r.entry.status < 400 || r.entry.status >= 500 || r.entry.status === 429) continue;
    const key = `${r.entry.method} ${r.entry.path} ${JSON.stringify(r.entry.query)} ${r.evidence.bodyHash} ${r.entry.status}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()]
    .filter((group) => group.length >= REPEATS)
    .map((group) => ({
      code: 'repeated_client_error' as const,
      message: `${group[0]!.entry.method} ${group[0]!.entry.path} was sent ${group.length} times with the same body and answered ${group[0]!.entry.status} each time: a 4xx will not change on a retry; fix the request.`,
      requests: ids(group),
    }));
}

function cancelsOfNonCancellable(records: readonly JournalRecord[]): ReadinessFinding[] {
  const refused = records.filter((r) => r.entry.code === 'order_not_cancellable');
  if (refused.length === 0) return [];
  return [{
    code: 'cancel_not_cancellable',
    message: `${refused.length} cancel(s) of orders that can no longer be cancelled: only PLACED and AWAITING_PAYMENT orders can be; check the status first.`,
    requests: ids(refused),
  }];
}

/** What a client does, as its journal shows, that would hurt in production. Empty for a careful client. */
export function readinessFindings(records: readonly JournalRecord[], tokenTtlSeconds: number): ReadinessFinding[] {
  return [
    ...tokenPerCall(records, tokenTtlSeconds),
    ...throttling(records),
    ...firstPageOnly(records),
    ...repeatedClientErrors(records),
    ...cancelsOfNonCancellable(records),
  ];
}
