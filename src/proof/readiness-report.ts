import type { JournalRecord } from '../records/journal.js';
import { bodyValue } from '../records/journal-body.js';
import type { PagedLists } from '../api/document.js';
import type { Schemas } from '../api/types.js';

/** Every finding names its severity, a hint and its docs section: a rule cannot leave one out (the type requires them). */
export type ReadinessFinding = Schemas['ReadinessFinding'];
export type ReadinessCode = ReadinessFinding['code'];
type Severity = ReadinessFinding['severity'];
export type ReadinessReport = Schemas['ReadinessReport'];

export interface ReadinessRule {
  /** A test case's name in the JUnit form. */
  title: string;
  severity: Severity;
}

/**
 * Every rule of the document's enum, with its severity and title: a code added to the enum without a line here is
 * a compile error, so the JUnit form (one case per rule) and docs/readiness.md (one anchor per code) never miss one.
 */
export const READINESS_RULES: { readonly [C in ReadinessCode]: ReadinessRule } = {
  token_per_call: { title: 'reuses its access token until it expires', severity: 'warning' },
  no_retry_after_throttling: { title: 'retries 429 and 503 answers', severity: 'error' },
  retry_ignored_retry_after: { title: 'waits as long as Retry-After asks', severity: 'error' },
  first_page_only: { title: 'reads lists past their first page', severity: 'error' },
  repeated_client_error: { title: 'does not resend a request that got a 4xx unchanged', severity: 'error' },
  cancel_not_cancellable: { title: 'cancels only orders that can be cancelled', severity: 'warning' },
  stale_document_link: { title: 'uses document links while they are valid', severity: 'error' },
  over_polling: { title: 'polls a list at most every 5 seconds', severity: 'warning' },
  wrong_path: { title: 'calls the documented paths', severity: 'error' },
  unused_scopes: { title: 'asks only for the scopes it uses', severity: 'warning' },
  token_auth_method_mismatch: {
    title: 'authenticates at the token endpoint the way its client is registered',
    severity: 'error',
  },
  duplicate_after_lost_answer: {
    title: 'looks for what a create made before retrying it after a lost answer',
    severity: 'error',
  },
};

/** The docs section of a rule: each code has an anchor of its own name in docs/readiness.md (checked by a test). */
export const docsOf = (code: ReadinessCode): string => `docs/readiness.md#${code}`;

/** A finding of a rule, with the rule's severity and docs. */
const finding = (
  code: ReadinessCode,
  message: string,
  hint: string,
  requests: readonly JournalRecord[],
): ReadinessFinding => ({
  code,
  severity: READINESS_RULES[code].severity,
  message,
  hint,
  docs: docsOf(code),
  requests: requests.map((r) => r.entry.id),
});

/** What the rules know besides the journal. */
export interface ReadinessContext {
  tokenTtlSeconds: number;
  /** The OAuth scopes each operation needs, from the document. */
  operationScopes: ReadonlyMap<string, readonly string[]>;
  /** The document's paged lists: reads of their first page only, polls of them, fetches of documents' links. */
  lists: PagedLists;
  /** The API's scopes (the domain's one list, `domain/scopes.ts`): what a token request may ask for beyond `openid offline`. */
  apiScopes: readonly string[];
  /**
   * Whether a reset of the tenant lies between two records (its world, clock and faults began again there): the
   * rules about one world or one stretch of its clock never look across one. None when absent.
   */
  resetBetween?: (earlier: JournalRecord, later: JournalRecord) => boolean;
}

const TOKEN_PATH = '/oauth2/token';
const REPEATS = 3;
const LINK_LIFETIME_MS = 15 * 60 * 1000;
const POLL_INTERVAL_MS = 5000;
const POLLING_SPAN_MS = 60_000;

const isToken = (r: JournalRecord): boolean => r.entry.path === TOKEN_PATH && r.entry.method === 'POST';
const queryText = (r: JournalRecord): string => new URLSearchParams(Object.entries(r.entry.query).sort()).toString();
const withQuery = (r: JournalRecord): string =>
  `${r.entry.path}${Object.keys(r.entry.query).length > 0 ? `?${queryText(r)}` : ''}`;

function groupBy<K>(records: readonly JournalRecord[], key: (r: JournalRecord) => K): JournalRecord[][] {
  const groups = new Map<K, JournalRecord[]>();
  for (const r of records) {
    const k = key(r);
    const group = groups.get(k);
    if (group) group.push(r);
    else groups.set(k, [r]);
  }
  return [...groups.values()];
}

/** Most calls come with a fresh token, although the previous one was still valid. */
function tokenPerCall(records: readonly JournalRecord[], { tokenTtlSeconds }: ReadinessContext): ReadinessFinding[] {
  const grants = records.filter((r) => isToken(r) && r.entry.status === 200);
  const calls = records.filter((r) => !isToken(r));
  const early = grants.filter(
    (grant, i) => i > 0 && grant.evidence.at < grants[i - 1]!.evidence.at + (tokenTtlSeconds - 60) * 1000,
  );
  if (early.length < 2 || grants.length * 2 < calls.length) return [];
  return [
    finding(
      'token_per_call',
      `${grants.length} tokens were fetched for ${calls.length} calls, ${early.length} of them while the previous token was still valid.`,
      `Keep the access token and reuse it for every call until shortly before it expires (expires_in: ${tokenTtlSeconds} s here; renew about 60 s early, or after a 401 invalid_token).`,
      early,
    ),
  ];
}

/** A 429 or 503 never retried, or retried before Retry-After had passed. */
function throttling(records: readonly JournalRecord[]): ReadinessFinding[] {
  const neverRetried: JournalRecord[] = [];
  const tooSoon: JournalRecord[] = [];
  records.forEach((r, i) => {
    // a 503 put in place of an applied write's answer is judged by duplicate_after_lost_answer: not retrying it is fine
    if ((r.entry.status !== 429 && r.entry.status !== 503) || r.entry.applied) return;
    const retry = records
      .slice(i + 1)
      .find((next) => next.entry.method === r.entry.method && next.entry.path === r.entry.path);
    if (!retry) neverRetried.push(r);
    else if (retry.evidence.at - r.evidence.at < (r.evidence.retryAfter ?? 0) * 1000) tooSoon.push(r, retry);
  });
  const findings: ReadinessFinding[] = [];
  if (neverRetried.length > 0) {
    findings.push(
      finding(
        'no_retry_after_throttling',
        `${neverRetried.length} answer(s) 429/503 were never retried (first: ${neverRetried[0]!.entry.method} ${neverRetried[0]!.entry.path}).`,
        'Retry a 429 or 503: wait the seconds of its Retry-After header (without one, back off exponentially from 1 s with jitter), then send the same request again, a few times at most.',
        neverRetried,
      ),
    );
  }
  if (tooSoon.length > 0) {
    findings.push(
      finding(
        'retry_ignored_retry_after',
        `${tooSoon.length / 2} retr(ies) came sooner than the Retry-After header asked.`,
        'Read Retry-After (whole seconds) from the 429/503 answer and wait at least that long before the retry.',
        tooSoon,
      ),
    );
  }
  return findings;
}

/**
 * A full page of a list (as many items as `limit`) whose next page was never asked for. The API shows no total,
 * so only a page shorter than `limit` tells a client it has everything.
 */
function firstPageOnly(records: readonly JournalRecord[], { lists }: ReadinessContext): ReadinessFinding[] {
  const listReads = records.filter((r) => lists.records.has(r.entry.operation_id ?? '') && r.entry.status === 200);
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
  const first = stopped[0]!;
  const limit = Number(first.entry.query.limit ?? 100);
  const next = new URLSearchParams({
    ...first.entry.query,
    skip: String(Number(first.entry.query.skip ?? 0) + limit),
    limit: String(limit),
  });
  return [
    finding(
      'first_page_only',
      `${stopped.length} list read(s) got a full page and never asked for the next one.`,
      `Keep reading with skip increased by limit until a page holds fewer than limit items: after ${withQuery(first)} comes ${first.entry.path}?${next}.`,
      stopped,
    ),
  ];
}

/** The same request answered with the same 4xx again and again (an unknown path is wrong_path's). */
function repeatedClientErrors(records: readonly JournalRecord[]): ReadinessFinding[] {
  // 429 asks for a retry: repeating it is right, and judged by the throttling rules instead
  const refused = records.filter(
    (r) =>
      r.entry.status >= 400 && r.entry.status < 500 && r.entry.status !== 429 && r.entry.code !== 'route_not_found',
  );
  return groupBy(
    refused,
    (r) =>
      `${r.entry.method} ${r.entry.path} ${JSON.stringify(r.entry.query)} ${r.evidence.bodyHash} ${r.entry.status}`,
  )
    .filter((group) => group.length >= REPEATS)
    .map((group) => {
      const { method, path, status, code } = group[0]!.entry;
      return finding(
        'repeated_client_error',
        `${method} ${path} was sent ${group.length} times with the same body and answered ${status}${code ? ` ${code}` : ''} each time.`,
        `A 4xx answers the same however often the request is sent: read the problem's detail and errors[]${code ? ` (${code})` : ''}, fix the request, and do not resend it unchanged.`,
        group,
      );
    });
}

/**
 * An answer the client never got although the operation was applied: a dropped connection, a client that gave up
 * waiting (status 0), or an error status put in place of the answer (a fault with phase `after`).
 */
const isLostAnswer = (r: JournalRecord): boolean => r.entry.applied && (r.entry.status < 200 || r.entry.status >= 300);

/** The request just before `index` on the same method and path, if it was applied and its answer lost. */
const followsLostAnswer = (records: readonly JournalRecord[], index: number): boolean => {
  const { method, path } = records[index]!.entry;
  for (let i = index - 1; i >= 0; i--) {
    const { entry } = records[i]!;
    if (entry.method === method && entry.path === path) return isLostAnswer(records[i]!);
  }
  return false;
};

function cancelsOfNonCancellable(records: readonly JournalRecord[]): ReadinessFinding[] {
  // a cancel retried after its lost answer meets 409 because the first one was applied: that is the careful way
  const refused = records.filter((r, i) => r.entry.code === 'order_not_cancellable' && !followsLostAnswer(records, i));
  if (refused.length === 0) return [];
  return [
    finding(
      'cancel_not_cancellable',
      `${refused.length} cancel(s) of orders that could no longer be cancelled.`,
      'Read the order first (GET /v1/orders) and cancel only when its status is PLACED or AWAITING_PAYMENT; treat 409 order_not_cancellable as final, not as something to retry.',
      refused,
    ),
  ];
}

/** A link used after it expired; a documents list fetched again and again while its links were still valid. */
function staleDocumentLinks(records: readonly JournalRecord[], { lists: paged }: ReadinessContext): ReadinessFinding[] {
  const findings: ReadinessFinding[] = [];
  const expired = records.filter((r) => r.entry.code === 'link_expired');
  if (expired.length > 0) {
    findings.push(
      finding(
        'stale_document_link',
        `${expired.length} document download(s) used a link after it expired.`,
        'A document link is valid 15 minutes (its expires= parameter is the Unix time it ends): download soon after listing, and after a 403 link_expired list the documents again for a fresh link instead of keeping links.',
        expired,
      ),
    );
  }
  const lists = records.filter(
    (r) => paged.documents.has(r.entry.operation_id ?? '') && r.entry.status === 200 && r.evidence.tenantAt !== null,
  );
  const refetched = groupBy(lists, withQuery).flatMap((group) => {
    // fetches made while the first fetch's links were still valid
    const fresh = group.filter((r) => r.evidence.tenantAt! < group[0]!.evidence.tenantAt! + LINK_LIFETIME_MS);
    return fresh.length >= REPEATS ? fresh : [];
  });
  if (refetched.length > 0) {
    findings.push(
      finding(
        'stale_document_link',
        `A documents list was fetched ${refetched.length} times while the links of its first answer were still valid (${withQuery(refetched[0]!)}).`,
        'List the documents once and use the links it answered until they expire (15 minutes, see expires= in each URL); list again only for a link that expired.',
        refetched,
      ),
    );
  }
  return findings;
}

/** The same list with the same query, asked more often than every 5 s of the tenant's clock, for a minute or more. */
function overPolling(records: readonly JournalRecord[], { lists }: ReadinessContext): ReadinessFinding[] {
  const polls = records.filter((r) => lists.records.has(r.entry.operation_id ?? '') && r.evidence.tenantAt !== null);
  return groupBy(polls, withQuery).flatMap((group) => {
    const runs: JournalRecord[][] = [];
    let run: JournalRecord[] = [group[0]!];
    for (const r of group.slice(1)) {
      if (r.evidence.tenantAt! - run.at(-1)!.evidence.tenantAt! < POLL_INTERVAL_MS) run.push(r);
      else {
        runs.push(run);
        run = [r];
      }
    }
    runs.push(run);
    return runs
      .filter((r) => r.at(-1)!.evidence.tenantAt! - r[0]!.evidence.tenantAt! >= POLLING_SPAN_MS)
      .map((r) => {
        const seconds = Math.round((r.at(-1)!.evidence.tenantAt! - r[0]!.evidence.tenantAt!) / 1000);
        return finding(
          'over_polling',
          `${withQuery(r[0]!)} was asked ${r.length} times in ${seconds} s of the tenant's clock, less than 5 s apart.`,
          `Poll ${r[0]!.entry.path} at most every 5 s, better with a backoff (5 s, 10 s, 20 s… up to a minute) while nothing changes.`,
          r,
        );
      });
  });
}

/** The same unknown path three times: the client's path is wrong, not the moment. */
function wrongPaths(records: readonly JournalRecord[]): ReadinessFinding[] {
  const unknown = records.filter((r) => r.entry.code === 'route_not_found');
  return groupBy(unknown, (r) => `${r.entry.method} ${r.entry.path}`)
    .filter((group) => group.length >= REPEATS)
    .map((group) => {
      const { method, path } = group[0]!.entry;
      const documented = group[0]!.evidence.documentedPath;
      return finding(
        'wrong_path',
        `${method} ${path} was sent ${group.length} times and answered 404 route_not_found each time.`,
        documented
          ? `Send ${method} ${documented.path}, the path the document has: ${documented.difference}.`
          : `No operation has this path: compare it with the OpenAPI document (GET /openapi.json); paths are case-sensitive and a trailing slash counts.`,
        group,
      );
    });
}

/** Tokens asked for API scopes that no request of the client needed. */
function unusedScopes(
  records: readonly JournalRecord[],
  { operationScopes, apiScopes: scopes }: ReadinessContext,
): ReadinessFinding[] {
  const apiScopes = new Set(scopes);
  const calls = records.filter((r) => !isToken(r) && r.entry.operation_id !== null);
  if (calls.length === 0) return [];
  const used = new Set(calls.flatMap((r) => operationScopes.get(r.entry.operation_id!) ?? []));
  const asked = records
    .filter((r) => isToken(r) && r.entry.status === 200)
    .map((r) => ({
      r,
      scopes: String((bodyValue(r.requestBody) as { scope?: unknown } | undefined)?.scope ?? '')
        .split(' ')
        .filter((s) => apiScopes.has(s)),
    }));
  const unused = [...new Set(asked.flatMap((a) => a.scopes))].filter((s) => !used.has(s)).sort();
  if (unused.length === 0) return [];
  const needed = [...used].sort();
  return [
    finding(
      'unused_scopes',
      `Tokens were asked with ${unused.join(', ')}, which no request of this client needed.`,
      `Ask only for what the calls need (least privilege): scope=openid offline${needed.length > 0 ? ` ${needed.join(' ')}` : ''}, without ${unused.join(' ')}.`,
      asked.filter((a) => a.scopes.some((s) => unused.includes(s))).map((a) => a.r),
    ),
  ];
}

/** The operations that create a resource, and how a client finds what one made (docs/readiness.md#surviving-a-lost-answer). */
const CREATES: Readonly<Record<string, { noun: string; lookup: string }>> = {
  createAccount: { noun: 'account', lookup: 'GET /v1/accounts?external_id=<the external_id it sent>' },
  registerWallet: {
    noun: 'wallet',
    lookup: 'GET /v1/accounts/{account_id}/wallets?wallet_address=<the address it sent>',
  },
};

const sameBody = (a: JournalRecord, b: JournalRecord): boolean => {
  const [x, y] = [a.requestBody, b.requestBody];
  return x?.text === y?.text && x?.size === y?.size;
};

/**
 * A create whose answer was lost after it was applied, then sent again unchanged and applied again (a second
 * resource exists), with no read of its collection in between: the client retried blindly. A retry after such a
 * read is the careful way, as is one the platform refused (409): nothing was duplicated.
 */
function duplicatesAfterLostAnswers(records: readonly JournalRecord[]): ReadinessFinding[] {
  const findings: ReadinessFinding[] = [];
  records.forEach((lost, i) => {
    const create = CREATES[lost.entry.operation_id ?? ''];
    if (!create || !isLostAnswer(lost)) return;
    const { method, path } = lost.entry;
    const later = records.slice(i + 1);
    const retryAt = later.findIndex((r) => r.entry.method === method && r.entry.path === path && sameBody(r, lost));
    const retry = later[retryAt];
    if (!retry?.entry.applied) return;
    const lookedFor = later
      .slice(0, retryAt)
      .some((r) => r.entry.method === 'GET' && (r.entry.path === path || r.entry.path.startsWith(`${path}/`)));
    if (lookedFor) return;
    const answer =
      lost.entry.status === 0 ? 'no answer reached the client' : `the client got ${lost.entry.status} instead of 201`;
    findings.push(
      finding(
        'duplicate_after_lost_answer',
        `${method} ${path} (request ${lost.entry.id}) was applied but ${answer}; request ${retry.entry.id} sent the same create again without looking for the first ${create.noun}: two now exist.`,
        `After a create whose answer was lost (a timeout, a dropped connection, a 5xx), look for what it made before sending it again: ${create.lookup}; retry only when nothing is found.`,
        [lost, retry],
      ),
    );
  });
  return findings;
}

const METHOD_SETTINGS: Record<'client_secret_basic' | 'client_secret_post', string> = {
  client_secret_post:
    'send client_id and client_secret in the form body, no Authorization header (client_secret_post; e.g. authlib token_endpoint_auth_method="client_secret_post", Spring client-authentication-method: client_secret_post)',
  client_secret_basic:
    'send client_id and client_secret as HTTP Basic credentials only (client_secret_basic; the default of most OAuth libraries)',
};

/**
 * Token requests whose secret was right but whose authentication method was not the client's: only they reach a
 * tenant's journal with 401 invalid_client (a wrong secret proves no client, so it lands in no tenant's journal).
 * One finding per method used: a client whose registration changed meanwhile may have been refused both ways.
 */
function tokenAuthMethodMismatch(records: readonly JournalRecord[]): ReadinessFinding[] {
  const refused = records.filter((r) => isToken(r) && r.entry.status === 401 && r.entry.code === 'invalid_client');
  const usedBy = (r: JournalRecord) =>
    r.kept.authorization === 'basic' ? 'client_secret_basic' : 'client_secret_post';
  return groupBy(refused, usedBy).map((requests) => {
    const used = usedBy(requests[0]!);
    const registered = used === 'client_secret_basic' ? 'client_secret_post' : 'client_secret_basic';
    return finding(
      'token_auth_method_mismatch',
      `${requests.length} token request(s) authenticated with ${used}, but the client is registered for ${registered}: production refuses them with 401 invalid_client.`,
      `Configure your OAuth client to ${METHOD_SETTINGS[registered]}.`,
      requests,
    );
  });
}

type Rule = (records: readonly JournalRecord[], context: ReadinessContext) => ReadinessFinding[];

const RULES: readonly Rule[] = [
  tokenPerCall,
  throttling,
  firstPageOnly,
  repeatedClientErrors,
  cancelsOfNonCancellable,
  staleDocumentLinks,
  overPolling,
  wrongPaths,
  unusedScopes,
  tokenAuthMethodMismatch,
  duplicatesAfterLostAnswers,
];
/**
 * The rules about one world and its clock (a retry, the next page, a link's life, polling, a lost create) read the
 * stretches between resets one by one; the others (tokens, scopes, paths, refusals) the whole journal.
 */
const BETWEEN_RESETS: ReadonlySet<Rule> = new Set([
  throttling,
  firstPageOnly,
  staleDocumentLinks,
  overPolling,
  duplicatesAfterLostAnswers,
]);

/** The records in stretches between the tenant's resets. */
function betweenResets(
  records: readonly JournalRecord[],
  resetBetween: ReadinessContext['resetBetween'],
): (readonly JournalRecord[])[] {
  if (!resetBetween || records.length === 0) return [records];
  const stretches: JournalRecord[][] = [[records[0]!]];
  for (let i = 1; i < records.length; i++) {
    if (resetBetween(records[i - 1]!, records[i]!)) stretches.push([]);
    stretches[stretches.length - 1]!.push(records[i]!);
  }
  return stretches;
}

/** What a client does, as its journal shows, that would hurt in production. Empty for a careful client. */
export function readinessFindings(records: readonly JournalRecord[], context: ReadinessContext): ReadinessFinding[] {
  const stretches = betweenResets(records, context.resetBetween);
  return RULES.flatMap((rule) =>
    BETWEEN_RESETS.has(rule) ? stretches.flatMap((stretch) => rule(stretch, context)) : rule(records, context),
  );
}

/** The report of one client over its own (verified) journal records. */
export const readinessReport = (
  clientId: string,
  records: readonly JournalRecord[],
  context: ReadinessContext,
): ReadinessReport => ({
  client_id: clientId,
  requests_seen: records.length,
  findings: readinessFindings(records, context),
});
