import type { Schemas } from '../api/types.js';
import { REDACTED, SECRET_NAME, type JournalBody } from './journal-body.js';
import { compilePathPattern } from './path-pattern.js';

export type JournalEntry = Schemas['JournalEntry'];

/** What the readiness report reads beyond what the journal shows. */
export interface JournalEvidence {
  /** Real time of arrival in ms. */
  at: number;
  /** Seconds of the answer's Retry-After, if any. */
  retryAfter: number | null;
  /** SHA-256 of the whole request body, for 4xx answers (the exchange keeps only its beginning). */
  bodyHash: string | null;
  /** Number of items of a list answer. */
  itemCount: number | null;
  /** The tenant's clock at arrival in ms (null without a tenant): what time-based rules measure. */
  tenantAt: number | null;
}

/** What a request and its answer carried, within the journal's bounds (`journal-body.ts`): for verify and exports. */
export interface JournalExchange {
  request: JournalBody | null;
  response: JournalBody | null;
  /** The scheme of the request's `Authorization` (never its value). */
  authorization: 'bearer' | 'basic' | null;
}

/** What the request path records, as cheaply as it can: the journal's view is made only when someone reads it. */
export interface RawRequest extends Omit<JournalEntry, 'time' | 'query'> {
  /** The query string, without `?`. */
  rawQuery: string;
}

function redactedQuery(rawQuery: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    query[key] = SECRET_NAME.test(key) ? REDACTED : key in query ? `${query[key]},${value}` : value;
  }
  return query;
}

export class JournalRecord {
  private view: JournalEntry | undefined;

  constructor(
    private readonly raw: RawRequest,
    readonly evidence: JournalEvidence,
    readonly exchange: JournalExchange = { request: null, response: null, authorization: null },
  ) {}

  /** The entry as `GET /__control/requests` shows it; token-like query values redacted. */
  get entry(): JournalEntry {
    if (!this.view) {
      const { rawQuery, ...fields } = this.raw;
      this.view = { ...fields, time: new Date(this.evidence.at).toISOString(), query: redactedQuery(rawQuery) };
    }
    return this.view;
  }

  get clientId(): string | null {
    return this.raw.client_id;
  }
}

export const DEFAULT_JOURNAL_SIZE = 1000;

/**
 * The request journal of one server: a ring buffer, so memory stays flat however long the server runs.
 * Oldest entries fall out first.
 */
export class Journal {
  private readonly ring: (JournalRecord | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity = DEFAULT_JOURNAL_SIZE) {
    this.ring = new Array(capacity);
  }

  record(record: JournalRecord): void {
    this.ring[this.next] = record;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** Oldest first. */
  records(keep: (record: JournalRecord) => boolean = () => true): JournalRecord[] {
    const out: JournalRecord[] = [];
    const start = (this.next - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i++) {
      const record = this.ring[(start + i) % this.capacity]!;
      if (keep(record)) out.push(record);
    }
    return out;
  }

  /** The entries `GET /__control/requests` shows: by method, path pattern (`*`, `{name}`) and client, oldest first. */
  entries(filter: { method?: string; path?: string; clientId?: string }): JournalEntry[] {
    const { method, path, clientId } = filter;
    const matchesPath = path === undefined ? () => true : compilePathPattern(path);
    return this.records(
      ({ entry }) =>
        (method === undefined || entry.method === method.toUpperCase()) &&
        matchesPath(entry.path) &&
        (clientId === undefined || entry.client_id === clientId),
    ).map((r) => r.entry);
  }

  /** Forgets one client's entries (or all): kept entries stay in order. */
  clear(clientId?: string): void {
    const kept = clientId === undefined ? [] : this.records((r) => r.clientId !== clientId);
    this.ring.fill(undefined);
    this.next = 0;
    this.count = 0;
    for (const record of kept) this.record(record);
  }
}
