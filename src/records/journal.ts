import type { Schemas } from '../api/types.js';
import { readBody, type JournalBody, type KeptBody } from './journal-body.js';
import { isSecretName, REDACT_ALL, redactedForm, REDACTED, shownPath, type Redaction } from './secrets.js';

const AS_SENT: Redaction = { names: false, links: false };
import { compilePathPattern } from './path-pattern.js';
import { controlStepBytes, type ControlStep } from './control-steps.js';
import { MaxHeap } from '../util/max-heap.js';

export type JournalEntry = Schemas['JournalEntry'];
/** Which part of a tenant's journal a reader looks at: since its last reset, or all it keeps. */
export type JournalSpan = Schemas['JournalSpan'];

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
  /** A route_not_found's near miss, as the route step found it: what wrong_path tells the client to send instead. */
  documentedPath?: DocumentedPath;
}

/** The path the document has that a request nearly spelled (another case, a slash), and how the request's differs. */
export interface DocumentedPath {
  /** As the document writes it (`/v1/orders/{order_id}/`). */
  path: string;
  /** The one difference a partner fixes (`with the trailing slash`). */
  difference: string;
}

/** What a request and its answer carried, as the request path kept them (`journal-body.ts`). */
export interface KeptExchange {
  request: KeptBody | null;
  response: KeptBody | null;
  /** The scheme of the request's `Authorization` (never its value). */
  authorization: 'bearer' | 'basic' | null;
  /**
   * The client's credentials to replace wherever they appear: the request's own when its body or query carries one,
   * and in shadow mode those the upstream's answer may carry (`secrets.ts`).
   */
  credentials?: readonly string[];
  /** Whether the answer's operation can answer a secret (the document says so): else its body is shown as sent. */
  secretAnswer?: boolean;
}

/** What a request and its answer carried, as a reader sees them: cut, secrets replaced. */
export interface JournalExchange {
  request: JournalBody | null;
  response: JournalBody | null;
  authorization: 'bearer' | 'basic' | null;
}

/** What the request path records, as cheaply as it can: the journal's view is made only when someone reads it. */
export interface RawRequest extends Omit<JournalEntry, 'time' | 'query'> {
  /** The query string, without `?`, as sent. */
  rawQuery: string;
}

/**
 * The query as a reader sees it, each name as sent (CONTRACT 16, "Queries are data"): an object without a prototype, so
 * `constructor`, `toString` and `__proto__` are names like any other; a repeated name's values joined by commas.
 */
function redactedQuery(rawQuery: string, credentials: readonly string[] | undefined): Record<string, string> {
  const query = Object.create(null) as Record<string, string>;
  if (rawQuery === '') return query;
  for (const [key, value] of new URLSearchParams(redactedForm(rawQuery, credentials))) {
    query[key] = isSecretName(key) ? REDACTED : Object.hasOwn(query, key) ? `${query[key]},${value}` : value;
  }
  return query;
}

const NO_EXCHANGE: KeptExchange = { request: null, response: null, authorization: null };

/**
 * What a record costs besides its bodies, path and query: the record, its fields and evidence, and the entry view made
 * on its first read (`node --expose-gc bench/tenant-budget.mjs` measures it).
 */
export const JOURNAL_ENTRY_OVERHEAD_BYTES = 2048;

export class JournalRecord {
  private view: JournalEntry | undefined;
  /** The journal's order of arrival (set when recorded): resets are marked between two of them. */
  seq = 0;
  /** What it holds in memory, as the journal's byte budgets count it: its kept bodies, path and query, and the overhead. */
  readonly bytes: number;

  /**
   * `control`: a change the control plane made to the tenant (`control-steps.ts`), kept in order with its requests for
   * the replay of its session; such a record is no request of the partner's, and no reader of its traffic sees it.
   */
  constructor(
    private readonly raw: RawRequest,
    readonly evidence: JournalEvidence,
    readonly kept: KeptExchange = NO_EXCHANGE,
    readonly control?: ControlStep,
  ) {
    // the path and query twice: as sent and in the entry view
    this.bytes =
      JOURNAL_ENTRY_OVERHEAD_BYTES +
      2 * (raw.path.length + raw.rawQuery.length) +
      (kept.request?.held ?? 0) +
      (kept.response?.held ?? 0) +
      (control ? controlStepBytes(control) : 0);
  }

  /**
   * The entry as `GET /__control/requests` shows it, and every reader after it (verify, the report, the exports): the
   * request's credentials and any token replaced in its path and query, in any spelling; secret query values
   * redacted. Small: kept once made.
   */
  get entry(): JournalEntry {
    if (!this.view) {
      const { rawQuery, path, ...fields } = this.raw;
      this.view = {
        ...fields,
        path: shownPath(path, this.kept.credentials),
        time: new Date(this.evidence.at).toISOString(),
        query: redactedQuery(rawQuery, this.kept.credentials),
      };
    }
    return this.view;
  }

  /** The bodies as a reader sees them, made again on each read (the journal keeps only what the request path kept). */
  get exchange(): JournalExchange {
    return { request: this.requestBody, response: this.responseBody, authorization: this.kept.authorization };
  }

  /** The request's body as a reader sees it: every secret-named member replaced, and the request's own credentials. */
  get requestBody(): JournalBody | null {
    const { request, credentials } = this.kept;
    return readBody(request, credentials ? { ...REDACT_ALL, credentials } : REDACT_ALL);
  }

  /** The answer's body as a reader sees it: redacted where its operation can answer a secret, and of the client's credentials. */
  get responseBody(): JournalBody | null {
    const { response, credentials, secretAnswer } = this.kept;
    const redaction = secretAnswer === false ? AS_SENT : REDACT_ALL;
    return readBody(response, credentials ? { ...redaction, credentials } : redaction);
  }

  get clientId(): string | null {
    return this.raw.client_id;
  }
}

/** A control step as the journal keeps it, at the tenant's instant `tenantAt` (ms). */
export function controlRecord(clientId: string, step: ControlStep, tenantAt: number, at = Date.now()): JournalRecord {
  const raw: RawRequest = {
    id: `control-${at.toString(36)}`,
    client_id: clientId,
    method: 'POST',
    path: `/__control#${step.kind}`,
    rawQuery: '',
    status: 200,
    duration_ms: 0,
    operation_id: null,
    code: null,
    fault_id: null,
    applied: true,
  };
  return new JournalRecord(raw, { at, retryAfter: null, bodyHash: null, itemCount: null, tenantAt }, NO_EXCHANGE, step);
}

/** A tenant's span for a replay: its requests and control steps since its last reset, and whether the journal lost any. */
export interface JournalSpanRecords {
  records: JournalRecord[];
  /** False when a record of the span was evicted by a budget or cleared (`DELETE /__control/requests`). */
  complete: boolean;
  /** The reset the span begins at, if the journal marks one. */
  reset: ResetMark | undefined;
}

export const DEFAULT_JOURNAL_SIZE = 1000;

/** A reset in a ring: after the record `afterSeq`, at real time `at`. */
export interface ResetMark {
  afterSeq: number;
  at: number;
}

/** One party's requests, oldest first (the oldest out first), the bytes they hold, and the resets between them. */
class Ring {
  /** Which ring gives first when every journal together is past its budget (`Journal.largerFirst`). */
  get oldestSeq(): number {
    return this.items[this.start]?.seq ?? Number.POSITIVE_INFINITY;
  }

  private items: (JournalRecord | undefined)[] = [];
  private start = 0;
  bytes = 0;
  readonly resets: ResetMark[] = [];
  /** The newest record the ring let go (0: none): a span older than it is no longer whole. */
  lostSeq = 0;

  push(record: JournalRecord): void {
    this.items.push(record);
    this.bytes += record.bytes;
  }

  /** Takes out the oldest record (the ring is not empty). */
  shift(): JournalRecord {
    const oldest = this.items[this.start]!;
    this.items[this.start++] = undefined;
    this.bytes -= oldest.bytes;
    this.lostSeq = oldest.seq;
    // the array is cut down once half of it is taken: amortized O(1) a record
    if (this.start * 2 >= this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
    // marks before the oldest record tell nothing but the last reset
    const first = this.items[this.start]?.seq ?? Number.POSITIVE_INFINITY;
    while (this.resets.length > 1 && this.resets[1]!.afterSeq < first) this.resets.shift();
    return oldest;
  }

  get size(): number {
    return this.items.length - this.start;
  }

  /** Oldest first. */
  at(i: number): JournalRecord {
    return this.items[this.start + i]!;
  }

  markReset(afterSeq: number, at: number): void {
    const last = this.resets[this.resets.length - 1];
    // resets with no request between them are one
    if (last && last.afterSeq === afterSeq) last.at = at;
    else this.resets.push({ afterSeq, at });
  }

  /** The index of the first record after the last reset. */
  firstSinceReset(): number {
    const last = this.resets[this.resets.length - 1];
    if (!last) return 0;
    let i = this.size;
    while (i > 0 && this.at(i - 1).seq > last.afterSeq) i--;
    return i;
  }
}

/** The journal's byte budgets (JOURNAL_BYTES, JOURNAL_TOTAL_BYTES): past one, the oldest records go. */
export interface JournalBudget {
  /** Bytes one party's ring holds at most. */
  bytesPerTenant: number;
  /** Bytes every ring together holds at most. */
  totalBytes: number;
}

const UNBOUNDED: JournalBudget = { bytesPerTenant: Number.POSITIVE_INFINITY, totalBytes: Number.POSITIVE_INFINITY };

/** What one ring holds (`null`: the requests no tenant owns). */
export interface RingUsage {
  clientId: string | null;
  entries: number;
  bytes: number;
}

/** The ring of requests no tenant owns: no token, a bad one, wrong credentials. */
const NO_TENANT = '\u0000no tenant';

/** Of two rings, the one that gives first past the total budget: the one holding more, else the one with the older record. */
const largerFirst = (a: Ring, b: Ring): boolean =>
  a.bytes > b.bytes || (a.bytes === b.bytes && a.oldestSeq < b.oldestSeq);

/**
 * The request journal of one server: a ring per tenant (and one for requests no tenant owns), each of at most
 * `capacity` records and `budget.bytesPerTenant` bytes. Past `budget.totalBytes` for all of them, the ring that holds
 * the most gives its oldest first (CONTRACT 16, "Journals shared fairly"): a party within `totalBytes / (parties with
 * records)` loses nothing to another's traffic, and memory stays bounded however many tenants send. The rings are
 * kept in a heap by their bytes, so finding the largest costs O(log tenants) a record, never a scan. A reset keeps a
 * tenant's records and marks itself between them.
 */
export class Journal {
  private readonly rings = new Map<string, Ring>();
  private seq = 0;
  /** Every ring, the one to give first on top. */
  private readonly bySize = new MaxHeap<Ring>(largerFirst);
  /** The bytes every ring holds together. */
  private heldBytes = 0;
  /** The last reset of every tenant at once: a ring made later begins with it. */
  private everyoneReset: ResetMark | undefined;
  /**
   * Of each tenant whose records were cleared (`clear`): the newest one cleared, and its last reset then, so a span
   * since that reset knows whether it misses any (a reset then a clear misses none). One entry per tenant at most.
   */
  private readonly cleared = new Map<string, { lostSeq: number; reset: ResetMark | undefined }>();

  /**
   * `secretAnswers`: the operations whose answers can hold a secret (`secret-answers.ts`); every answer is
   * redacted when read without it.
   */
  constructor(
    readonly capacity = DEFAULT_JOURNAL_SIZE,
    private readonly secretAnswers: (operationId: string) => boolean = () => true,
    readonly budget: JournalBudget = UNBOUNDED,
  ) {}

  /** Whether an operation's answers are redacted when read. */
  answersSecrets(operationId: string): boolean {
    return this.secretAnswers(operationId);
  }

  private ring(clientId: string | null, create: true): Ring;
  private ring(clientId: string | null, create?: false): Ring | undefined;
  private ring(clientId: string | null, create = false): Ring | undefined {
    const key = clientId ?? NO_TENANT;
    let ring = this.rings.get(key);
    if (!ring && create) {
      this.rings.set(key, (ring = new Ring()));
      if (this.everyoneReset) ring.markReset(this.everyoneReset.afterSeq, this.everyoneReset.at);
    }
    return ring;
  }

  /**
   * Keeps a record; past a budget the oldest go (the ring's own past its own budgets, then the largest ring's past the
   * total): nothing is refused. A request is always kept, even alone above a budget: the last request is there to
   * read (its bodies are cut, so it is small). A control step counts like any other entry: one larger than a budget
   * alone goes too, and the tenant's span says it lost a step.
   */
  record(record: JournalRecord): void {
    record.seq = ++this.seq;
    const ring = this.ring(record.clientId, true);
    ring.push(record);
    this.heldBytes += record.bytes;
    const kept = record.control ? 0 : 1;
    while (ring.size > kept && (ring.size > this.capacity || ring.bytes > this.budget.bytesPerTenant)) this.shift(ring);
    this.bySize.update(ring);
    while (this.heldBytes > this.budget.totalBytes) {
      let largest = this.bySize.first()!;
      // the request just kept stays: the next largest gives instead
      if (largest === ring && ring.size === kept) largest = this.bySize.second()!;
      if (largest === undefined || largest.size === 0) break;
      this.shift(largest);
      this.bySize.update(largest);
    }
  }

  /** Lets a ring's oldest record go (the caller puts the ring back in its place in `bySize`). */
  private shift(ring: Ring): void {
    this.heldBytes -= ring.shift().bytes;
  }

  /** The bytes every ring holds, and each ring's records and bytes. */
  usage(): { bytes: number; entries: number; rings: RingUsage[] } {
    const rings = [...this.rings].map(([key, ring]) => ({
      clientId: key === NO_TENANT ? null : key,
      entries: ring.size,
      bytes: ring.bytes,
    }));
    return { bytes: this.heldBytes, entries: rings.reduce((sum, ring) => sum + ring.entries, 0), rings };
  }

  /**
   * One tenant's requests (`null`: the requests no tenant owns), oldest first: all it keeps, or since its last reset.
   * Control steps are not requests: every reader of the partner's traffic reads here, and sees none.
   */
  records(clientId: string | null, since: JournalSpan = 'start'): JournalRecord[] {
    const ring = this.ring(clientId);
    if (!ring) return [];
    const out: JournalRecord[] = [];
    for (let i = since === 'reset' ? ring.firstSinceReset() : 0; i < ring.size; i++)
      if (!ring.at(i).control) out.push(ring.at(i));
    return out;
  }

  /** Keeps a change the control plane made to a tenant, in order with its requests (`controlRecord`). */
  recordControl(clientId: string, step: ControlStep, tenantAt: number): void {
    this.record(controlRecord(clientId, step, tenantAt));
  }

  /** A tenant's requests and control steps since its last reset, oldest first, and whether the journal still holds all of them. */
  span(clientId: string): JournalSpanRecords {
    const ring = this.ring(clientId);
    const cleared = this.cleared.get(clientId);
    const marks = [ring?.resets[ring.resets.length - 1], cleared?.reset, this.everyoneReset].filter(
      (mark) => mark !== undefined,
    );
    const reset = marks.reduce<ResetMark | undefined>(
      (latest, mark) => (latest && latest.afterSeq >= mark.afterSeq ? latest : mark),
      undefined,
    );
    const lost = Math.max(ring?.lostSeq ?? 0, cleared?.lostSeq ?? 0);
    const records: JournalRecord[] = [];
    if (ring) for (let i = ring.firstSinceReset(); i < ring.size; i++) records.push(ring.at(i));
    return { records, complete: lost <= (reset?.afterSeq ?? 0), reset };
  }

  /** The record of a request id: in one tenant's ring (`null`: the requests no tenant owns), or in any ring. */
  find(requestId: string, clientId?: string | null): JournalRecord | undefined {
    const rings =
      clientId === undefined ? [...this.rings.values()] : [this.ring(clientId)].filter((ring) => ring !== undefined);
    for (const ring of rings) {
      for (let i = ring.size - 1; i >= 0; i--)
        if (!ring.at(i).control && ring.at(i).entry.id === requestId) return ring.at(i);
    }
    return undefined;
  }

  /** The resets marked between a tenant's records, oldest first (the last one also when no record follows it). */
  resets(clientId: string | null): readonly ResetMark[] {
    return this.ring(clientId)?.resets ?? [];
  }

  /** Marks a reset of one tenant, or of every tenant (and the requests no tenant owns): later reads begin there. */
  markReset(clientId: string | undefined, at = Date.now()): void {
    if (clientId !== undefined) {
      this.ring(clientId, true).markReset(this.seq, at);
      return;
    }
    this.everyoneReset = { afterSeq: this.seq, at };
    for (const ring of this.rings.values()) ring.markReset(this.seq, at);
  }

  /**
   * The entries `GET /__control/requests` shows: by method, path pattern (`*`, `{name}`) and client, oldest first.
   * Without a client, every ring's (the requests no tenant owns too), the newest `capacity` of them.
   */
  entries(filter: { method?: string; path?: string; clientId?: string; since?: JournalSpan }): JournalEntry[] {
    const { method, path, clientId, since = 'reset' } = filter;
    const matchesPath = path === undefined ? () => true : compilePathPattern(path);
    const upper = method?.toUpperCase();
    const keep = ({ entry }: JournalRecord): boolean =>
      (upper === undefined || entry.method === upper) && matchesPath(entry.path);
    if (clientId !== undefined)
      return this.records(clientId, since)
        .filter(keep)
        .map((r) => r.entry);
    const lists = [...this.rings.keys()].map((key) => this.records(key === NO_TENANT ? null : key, since));
    return newest(lists, this.capacity, keep).map((r) => r.entry);
  }

  /** Forgets one tenant's records and resets (or every ring's). */
  clear(clientId?: string): void {
    const forget = (key: string, ring: Ring): void => {
      const newest = ring.size > 0 ? ring.at(ring.size - 1).seq : ring.lostSeq;
      const before = this.cleared.get(key);
      if (key !== NO_TENANT)
        this.cleared.set(key, {
          lostSeq: Math.max(newest, before?.lostSeq ?? 0),
          reset: ring.resets[ring.resets.length - 1] ?? before?.reset,
        });
    };
    if (clientId !== undefined) {
      const ring = this.rings.get(clientId);
      if (ring) {
        forget(clientId, ring);
        this.heldBytes -= ring.bytes;
        this.bySize.remove(ring);
      }
      return void this.rings.delete(clientId);
    }
    for (const [key, ring] of this.rings) forget(key, ring);
    this.heldBytes = 0;
    this.bySize.clear();
    this.rings.clear();
    this.everyoneReset = undefined;
  }
}

/**
 * The newest `limit` records that `keep` takes, of several lists each oldest first, merged oldest first: a merge
 * from their ends that stops at the limit, so it reads no more records than it must.
 */
function newest(lists: JournalRecord[][], limit: number, keep: (record: JournalRecord) => boolean): JournalRecord[] {
  const ends = lists.map((list) => list.length);
  const out: JournalRecord[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++)
      if (ends[i]! > 0 && (best < 0 || lists[i]![ends[i]! - 1]!.seq > lists[best]![ends[best]! - 1]!.seq)) best = i;
    if (best < 0) break;
    const record = lists[best]![--ends[best]!]!;
    if (keep(record)) out.push(record);
  }
  return out.reverse();
}
