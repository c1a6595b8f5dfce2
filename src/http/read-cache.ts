import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { OperationId } from '../api/types.js';
import { CACHED_READS, readFreshUntil, type CachedRead } from '../domain/read-freshness.js';
import type { Tenant } from '../domain/tenants.js';
import { JOURNAL_BODY_LIMIT_BYTES, journalBody, type JournalBody } from '../harness/journal-body.js';
import { settle, stateOf, type RequestState } from './request-state.js';

/** What dispatch wrote, to keep: the text res.send was given, valid on [from, until) of the clock. */
interface Written {
  text: string;
  itemCount: number | undefined;
  from: number;
  until: number;
}

/**
 * One kept answer: its bytes, and the body the journal keeps of it (cut and redacted), made on its first hit and
 * then shared by every answer it serves. `cost`: the bytes it holds, the journal's copy counted at its cut.
 */
interface Kept {
  encoded: Buffer;
  journaled?: JournalBody | null;
  cost: number;
  itemCount: number | undefined;
  from: number;
  until: number;
}

/** A tenant's kept answers, all computed at one version of its world, least recently used first. */
interface TenantAnswers {
  version: number;
  answers: Map<string, Kept>;
  bytes: number;
}

export interface ReadCacheLimits {
  answersPerTenant: number;
  bytesPerTenant: number;
  /** Over every tenant: the tenants used least recently lose their answers first. */
  bytes: number;
}

// 64 answers hold a client's polling loop and a page-through of a list; 4 MiB, 64 lists of 100 orders (~12 KB each in
// the default world, ~20 KB kept with the journal's copy) several times over.
export const READ_CACHE_LIMITS: ReadCacheLimits = { answersPerTenant: 64, bytesPerTenant: 4 * 1024 * 1024, bytes: 32 * 1024 * 1024 };

/**
 * Serialized answers of hot reads, per tenant: an answer is served again only while the tenant's world is at the
 * version it was computed at and the tenant's clock is within the instants its read's answer stays the same
 * (domain/read-freshness.ts). One per app instance.
 */
export class ReadCache {
  private readonly tenants = new Map<Tenant, TenantAnswers>();
  private bytes = 0;
  /** Answers served again (the tests read it, to know the cache was in play). */
  hits = 0;

  constructor(private readonly limits: ReadCacheLimits = READ_CACHE_LIMITS) {}

  /** The answer kept under `key` for the tenant's world at `version`, if it is still fresh at the clock instant `nowMs`. */
  find(tenant: Tenant, version: number, key: string, nowMs: number): Kept | undefined {
    const kept = this.tenants.get(tenant);
    if (kept === undefined) return undefined;
    if (kept.version !== version) {
      this.drop(tenant, kept);
      return undefined;
    }
    const answer = kept.answers.get(key);
    if (answer === undefined) return undefined;
    kept.answers.delete(key);
    if (nowMs < answer.from || nowMs >= answer.until) {
      kept.bytes -= answer.cost;
      this.bytes -= answer.cost;
      return undefined;
    }
    kept.answers.set(key, answer);
    this.tenants.delete(tenant);
    this.tenants.set(tenant, kept);
    this.hits++;
    return answer;
  }

  /** Keeps an answer computed at `version` (ignored if the world moved on since) from the clock instant `from`. */
  keep(tenant: Tenant, key: string, version: number, { text, ...answer }: Written): void {
    if (version !== tenant.version || answer.until <= answer.from) return;
    const encoded = Buffer.from(text, 'utf8');
    const bytes = encoded.length + Math.min(encoded.length, JOURNAL_BODY_LIMIT_BYTES);
    if (bytes > this.limits.bytesPerTenant / 4) return;
    let kept = this.tenants.get(tenant);
    if (kept !== undefined && kept.version !== version) {
      this.drop(tenant, kept);
      kept = undefined;
    }
    if (kept === undefined) {
      kept = { version, answers: new Map(), bytes: 0 };
      this.tenants.set(tenant, kept);
    }
    const previous = kept.answers.get(key);
    if (previous !== undefined) {
      kept.answers.delete(key);
      kept.bytes -= previous.cost;
      this.bytes -= previous.cost;
    }
    kept.answers.set(key, { ...answer, encoded, cost: bytes });
    kept.bytes += bytes;
    this.bytes += bytes;
    while (kept.answers.size > this.limits.answersPerTenant || kept.bytes > this.limits.bytesPerTenant) {
      const [oldestKey, oldest] = kept.answers.entries().next().value as [string, Kept];
      kept.answers.delete(oldestKey);
      kept.bytes -= oldest.cost;
      this.bytes -= oldest.cost;
    }
    for (const [other, answers] of this.tenants) {
      if (this.bytes <= this.limits.bytes) break;
      if (other !== tenant) this.drop(other, answers);
    }
  }

  /** Answers kept, and the bytes they hold (each answer's bytes and the journal's copy of it at its cut). */
  get size(): { answers: number; bytes: number; tenants: number } {
    let answers = 0;
    for (const kept of this.tenants.values()) answers += kept.answers.size;
    return { answers, bytes: this.bytes, tenants: this.tenants.size };
  }

  private drop(tenant: Tenant, kept: TenantAnswers): void {
    this.tenants.delete(tenant);
    this.bytes -= kept.bytes;
  }
}

/**
 * What a read's answer depends on in its request besides its tenant: its URL, and the base URL its links are made of
 * (the scheme and Host, when BASE_URL does not fix them).
 */
export const cacheKeyOf = (protocol: string, host: string | undefined, url: string): string => `${protocol}://${host ?? ''}${url}`;

/** What decides whether a request may be answered from the cache, and under which key. */
export interface CacheableRequest {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  key: string;
}

/**
 * Whether a request may be answered from the cache: a plain GET (a conditional one is answered by res.send's
 * freshness check, a HEAD without its body), of a tenant with no fault to inject and none taken (a faulted request
 * goes the whole way, so each fault strikes where it would, before or after the operation, and its answer is never kept).
 */
const mayUseCache = (req: CacheableRequest, tenant: Tenant, faultId: string | undefined): boolean =>
  req.method === 'GET' &&
  tenant.faults.size === 0 &&
  faultId === undefined &&
  req.headers['if-none-match'] === undefined &&
  req.headers['if-modified-since'] === undefined;

/**
 * The cache's part in a request: none (undefined) when its answer may not be kept; else the tenant's world version
 * and clock instant it is looked up at, and the kept answer, if one is fresh then.
 */
export function lookUpKept(
  cache: ReadCache,
  tenant: Tenant,
  operationId: OperationId,
  req: CacheableRequest,
  faultId?: string,
): { read: CachedRead; version: number; now: number; answer: Kept | undefined } | undefined {
  if (!isCachedRead(operationId) || !mayUseCache(req, tenant, faultId)) return undefined;
  // the version first: reading it takes what came due by the tenant's clock (a step, an investor's order)
  const version = tenant.version;
  const now = tenant.now();
  return { read: operationId, version, now, answer: cache.find(tenant, version, req.key, now) };
}

/**
 * The kept answer, written as dispatch writes a JSON answer (res.send's status, headers and bytes), and settled as
 * dispatch settles it, so the journal, the readiness report and verify see it as any other answer.
 */
export function answerKept(res: ServerResponse, state: RequestState, answer: Kept): void {
  state.applied = true;
  state.responseJournal = answer.journaled ??= journalBody(answer.encoded, CONTENT_TYPE);
  if (answer.itemCount !== undefined) state.itemCount = answer.itemCount;
  res.statusCode = 200;
  res.setHeader('Content-Type', CONTENT_TYPE);
  res.setHeader('Content-Length', answer.encoded.length);
  res.end(answer.encoded);
  settle(state);
}

/** As res.send sets it for the JSON text dispatch writes. */
const CONTENT_TYPE = 'application/json; charset=utf-8';

export interface CachedReadStep {
  /** Answers from the cache, or hands the request on to `compute` with what its answer will be kept under. */
  step(compute: RequestHandler): RequestHandler;
  /** Told by dispatch of every JSON answer it wrote: keeps the ones the step asked it to. */
  written(req: Request, status: number, text: string): void;
}

const PENDING = Symbol('investment-api-fake.read-cache.pending');
type Pending = { tenant: Tenant; read: CachedRead; key: string; version: number; from: number };
type WithPending = Request & { [PENDING]?: Pending };

/** Whether an operation's answers may be kept: one of the domain's cached reads. */
export const isCachedRead = (operationId: OperationId): operationId is CachedRead => CACHED_READS.has(operationId);

export function cachedReads(cache: ReadCache): CachedReadStep {
  return {
    step: (compute) => (req, res, next) => {
      const state = stateOf(req);
      const { tenant, operationId, faultId } = state;
      if (tenant === undefined || operationId === undefined) return compute(req, res, next);
      const key = cacheKeyOf(req.protocol, req.headers.host, req.originalUrl);
      const lookup = lookUpKept(cache, tenant, operationId, { method: req.method, headers: req.headers, key }, faultId);
      if (lookup === undefined) return compute(req, res, next);
      if (lookup.answer !== undefined) return answerKept(res, state, lookup.answer);
      (req as WithPending)[PENDING] = { tenant, read: lookup.read, key, version: lookup.version, from: lookup.now };
      return compute(req, res, next);
    },
    written: (req, status, text) => {
      const pending = (req as WithPending)[PENDING];
      if (pending === undefined || status !== 200) return;
      const { tenant, read, key, version, from } = pending;
      const until = readFreshUntil(read, tenant, from);
      cache.keep(tenant, key, version, { text, itemCount: stateOf(req).itemCount, from, until });
    },
  };
}
