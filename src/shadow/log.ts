import type { Schemas } from '../api/types.js';
import { secretForms, withoutSecretValues } from '../records/secrets.js';
import type { Finding } from './compare.js';
import { headingOf } from './headings.js';

export type FidelityReport = Schemas['FidelityReport'];
type Difference = Schemas['FidelityDifference'];
type DocumentViolation = Schemas['FidelityDocumentViolation'];
type NotComparable = Schemas['FidelityNotComparable'];

/** What one forwarded exchange came to, once compared (or found not comparable). */
export interface ExchangeOutcome {
  requestId: string;
  /** The client of the session (its token request's `client_id`), if known. */
  clientId: string | null;
  operation: string | null;
  method: string;
  path: string;
  /** The differences found, or the reason the twin could not replay the exchange. */
  result: { findings: Finding[] } | { notComparable: string };
  violations: { side: DocumentViolation['side']; pointer: string; message: string }[];
  /** The client's credentials: the report keeps none of them, wherever they stand (a pointer, a message). */
  secrets?: readonly string[];
}

/** Each list of the report keeps its first items only; the counts go on. */
export const REPORT_LIST_LIMIT = 1000;

interface Counts {
  exchanges: number;
  compared: number;
  agreed: number;
  not_comparable: number;
}

type OperationCounts = Counts & { differences: number };

const noCounts = (): OperationCounts => ({ exchanges: 0, compared: 0, agreed: 0, not_comparable: 0, differences: 0 });

/** An item of a list, numbered in the log's order of arrival: every client's report lists them in that order. */
interface Numbered<T> {
  seq: number;
  item: T;
}

type ListName = 'differences' | 'violations' | 'notComparable';

/** One client's part of the report: its counts per operation (`''`: a path the document does not have), its lists. */
interface ClientFindings {
  operations: Map<string, OperationCounts>;
  differences: Numbered<Difference>[];
  violations: Numbered<DocumentViolation>[];
  notComparable: Numbered<NotComparable>[];
}

const noFindings = (): ClientFindings => ({
  operations: new Map(),
  differences: [],
  violations: [],
  notComparable: [],
});

/** The first `limit` items of several lists (each in order of arrival), merged in order of arrival. */
const firstOf = <T>(lists: readonly Numbered<T>[][], limit: number): T[] =>
  (lists.length === 1 ? lists[0]! : lists.flat().sort((a, b) => a.seq - b.seq)).slice(0, limit).map((n) => n.item);

/**
 * Shadow mode's record of one server: the outcome of each forwarded exchange, counted per client, with the
 * differences, document violations and not-comparable exchanges. Each client's findings are kept with it (its first
 * `REPORT_LIST_LIMIT` of each list), so that no client's exchanges crowd out another's; each list holds at most
 * `clients` clients' worth in all. Comparisons run one after another off the clients' path (`enqueue`); the report
 * waits for the ones already queued (`settled`).
 */
export class FidelityLog {
  private readonly clients = new Map<string | null, ClientFindings>();
  /** Items each list holds, every client's together: at most `totalLimit`. */
  private readonly held: Record<ListName, number> = { differences: 0, violations: 0, notComparable: 0 };
  private readonly totalLimit: number;
  /**
   * Clients counted apart at most (four times those whose lists are held: a client's counts are small); past that, a
   * new client id (a token request may name any) is counted with no client, so made-up ids cannot grow the log.
   */
  private readonly clientLimit: number;
  private seq = 0;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;

  /** `clients`: how many clients' full lists the log holds in all (shadow mode: each twin's, and those no twin owns) */
  constructor(
    readonly upstream: string,
    { clients = 1 }: { clients?: number } = {},
  ) {
    this.totalLimit = Math.max(1, clients) * REPORT_LIST_LIMIT;
    this.clientLimit = 4 * Math.max(1, clients);
  }

  /** Runs a comparison after those queued before it; its failure is its own (logged by `onError`), not the queue's. */
  enqueue(task: () => Promise<void>, onError: (error: unknown) => void): void {
    this.pending++;
    this.queue = this.queue
      .then(task)
      .catch(onError)
      .finally(() => {
        this.pending--;
      });
  }

  /** Comparisons queued and not yet done. */
  get waiting(): number {
    return this.pending;
  }

  /** Resolves when the comparisons queued so far are done, or after `timeoutMs`, whichever comes first. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.pending === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  add(outcome: ExchangeOutcome): void {
    const { requestId, operation, method } = outcome;
    const clientId =
      this.clients.has(outcome.clientId) || this.clients.size < this.clientLimit ? outcome.clientId : null;
    let mine = this.clients.get(clientId);
    if (!mine) this.clients.set(clientId, (mine = noFindings()));
    const counts = mine.operations.get(operation ?? '') ?? noCounts();
    mine.operations.set(operation ?? '', counts);
    counts.exchanges++;
    const forms = secretForms(outcome.secrets);
    const clean = (text: string): string => withoutSecretValues(text, forms);
    // a path shows its credentials in any spelling (the upstream's token sent back in it): never kept
    const path = clean(outcome.path);
    // only what the lists keep is made (a 7 MB answer may differ at thousands of places)
    const push = <S, T>(name: ListName, items: readonly S[], make: (item: S) => T): void => {
      const list = mine[name] as Numbered<T>[];
      for (let i = 0; i < items.length && list.length < REPORT_LIST_LIMIT && this.held[name] < this.totalLimit; i++) {
        list.push({ seq: ++this.seq, item: make(items[i]!) });
        this.held[name]++;
      }
    };
    push('violations', outcome.violations, (v) => ({
      request_id: requestId,
      operation,
      side: v.side,
      pointer: clean(v.pointer),
      message: clean(v.message),
    }));
    if ('notComparable' in outcome.result) {
      counts.not_comparable++;
      push('notComparable', [outcome.result.notComparable], (reason) => ({
        request_id: requestId,
        operation,
        method,
        path,
        reason: clean(reason),
      }));
      return;
    }
    counts.compared++;
    const { findings } = outcome.result;
    if (findings.length === 0) counts.agreed++;
    counts.differences += findings.length;
    // a finding's values were redacted as they were written (`shown`)
    push('differences', findings, (f) => ({
      request_id: requestId,
      operation,
      method,
      path,
      kind: f.kind,
      pointer: clean(f.pointer),
      upstream: f.upstream,
      fake: f.fake,
      heading: clean(headingOf(f)),
      ...(f.problems && { upstream_problem: f.problems.upstream, fake_problem: f.problems.fake }),
    }));
  }

  /** The clients whose findings a report shows: every client's, or one's (a partner's own). */
  private of(clientId: string | undefined): ClientFindings[] {
    if (clientId === undefined) return [...this.clients.values()];
    const mine = this.clients.get(clientId);
    return mine ? [mine] : [];
  }

  /** The report of every client (the first items of all, in order of arrival), or of one (a partner's own). */
  report(clientId?: string): FidelityReport {
    const clients = this.of(clientId);
    const operations = this.operationsSeen(clientId);
    const totals: Counts = { exchanges: 0, compared: 0, agreed: 0, not_comparable: 0 };
    for (const counts of operations.values())
      for (const key of Object.keys(totals) as (keyof Counts)[]) totals[key] += counts[key];
    return {
      upstream: this.upstream,
      ...totals,
      differences: firstOf(
        clients.map((c) => c.differences),
        REPORT_LIST_LIMIT,
      ),
      document_violations: firstOf(
        clients.map((c) => c.violations),
        REPORT_LIST_LIMIT,
      ),
      not_comparable_exchanges: firstOf(
        clients.map((c) => c.notComparable),
        REPORT_LIST_LIMIT,
      ),
      operations: [...operations]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([operation, counts]) => ({ operation: operation === '' ? null : operation, ...counts })),
    };
  }

  /** The operations seen (operationId, or `''` for a path the document does not have), with their counts. */
  operationsSeen(clientId?: string): Map<string, OperationCounts> {
    const merged = new Map<string, OperationCounts>();
    for (const { operations } of this.of(clientId)) {
      for (const [operation, counts] of operations) {
        const total = merged.get(operation) ?? noCounts();
        for (const key of Object.keys(total) as (keyof OperationCounts)[]) total[key] += counts[key];
        merged.set(operation, total);
      }
    }
    return merged;
  }

  clear(clientId?: string): void {
    for (const forgotten of this.of(clientId))
      for (const name of Object.keys(this.held) as ListName[]) this.held[name] -= forgotten[name].length;
    if (clientId === undefined) this.clients.clear();
    else this.clients.delete(clientId);
  }
}
