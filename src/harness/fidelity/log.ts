import type { Schemas } from '../../api/types.js';
import { secretForms, withoutSecretValues } from '../secrets.js';
import type { Finding } from './compare.js';

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

type Owned<T> = T & { clientId: string | null };

/**
 * Shadow mode's record of one server: the outcome of each forwarded exchange, counted per client, with the
 * differences, document violations and not-comparable exchanges (bounded). Comparisons run one after another off
 * the clients' path (`enqueue`); the report waits for the ones already queued (`settled`).
 */
export class FidelityLog {
  /** Per client, per operation (`''`: a path the document does not have). */
  private readonly counts = new Map<string | null, Map<string, OperationCounts>>();
  private differences: Owned<Difference>[] = [];
  private violations: Owned<DocumentViolation>[] = [];
  private notComparable: Owned<NotComparable>[] = [];
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(readonly upstream: string) {}

  /** Runs a comparison after those queued before it; its failure is its own (logged by `onError`), never the queue's. */
  enqueue(task: () => Promise<void>, onError: (error: unknown) => void): void {
    this.pending++;
    this.queue = this.queue.then(task).catch(onError).finally(() => {
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
    const { requestId, clientId, operation, method, path } = outcome;
    const perOperation = this.counts.get(clientId) ?? new Map<string, OperationCounts>();
    this.counts.set(clientId, perOperation);
    const counts = perOperation.get(operation ?? '') ?? noCounts();
    perOperation.set(operation ?? '', counts);
    counts.exchanges++;
    const forms = secretForms(outcome.secrets);
    const clean = (text: string): string => (forms.length === 0 ? text : withoutSecretValues(text, forms));
    // only what the lists keep is made (a 7 MB answer may differ at thousands of places)
    const push = <S, T>(list: T[], items: readonly S[], make: (item: S) => T): void => {
      for (let i = 0; i < items.length && list.length < REPORT_LIST_LIMIT; i++) list.push(make(items[i]!));
    };
    push(this.violations, outcome.violations, (v) => ({ clientId, request_id: requestId, operation, side: v.side, pointer: clean(v.pointer), message: clean(v.message) }));
    if ('notComparable' in outcome.result) {
      counts.not_comparable++;
      push(this.notComparable, [outcome.result.notComparable], (reason) => ({ clientId, request_id: requestId, operation, method, path, reason: clean(reason) }));
      return;
    }
    counts.compared++;
    const { findings } = outcome.result;
    if (findings.length === 0) counts.agreed++;
    counts.differences += findings.length;
    // a finding's values were redacted as they were written (`shown`)
    push(this.differences, findings, (f) => ({ clientId, request_id: requestId, operation, method, path, kind: f.kind, pointer: clean(f.pointer), upstream: f.upstream, fake: f.fake }));
  }

  /** The report of every client, or of one (a partner's own). */
  report(clientId?: string): FidelityReport {
    const mine = <T extends { clientId: string | null }>(list: T[]): Omit<T, 'clientId'>[] =>
      list.filter((item) => clientId === undefined || item.clientId === clientId).map(({ clientId: _, ...item }) => item);
    const operations = this.operationsSeen(clientId);
    const totals: Counts = { exchanges: 0, compared: 0, agreed: 0, not_comparable: 0 };
    for (const counts of operations.values()) for (const key of Object.keys(totals) as (keyof Counts)[]) totals[key] += counts[key];
    return {
      upstream: this.upstream,
      ...totals,
      differences: mine(this.differences),
      document_violations: mine(this.violations),
      not_comparable_exchanges: mine(this.notComparable),
      operations: [...operations]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([operation, counts]) => ({ operation: operation === '' ? null : operation, ...counts })),
    };
  }

  /** The operations seen (operationId, or `''` for a path the document does not have), with their counts. */
  operationsSeen(clientId?: string): Map<string, OperationCounts> {
    const merged = new Map<string, OperationCounts>();
    for (const [owner, perOperation] of this.counts) {
      if (clientId !== undefined && owner !== clientId) continue;
      for (const [operation, counts] of perOperation) {
        const total = merged.get(operation) ?? noCounts();
        for (const key of Object.keys(total) as (keyof OperationCounts)[]) total[key] += counts[key];
        merged.set(operation, total);
      }
    }
    return merged;
  }

  /** Forgets what was counted (every client's, or one's). */
  clear(clientId?: string): void {
    const keep = <T extends { clientId: string | null }>(list: T[]): T[] => (clientId === undefined ? [] : list.filter((item) => item.clientId !== clientId));
    this.differences = keep(this.differences);
    this.violations = keep(this.violations);
    this.notComparable = keep(this.notComparable);
    if (clientId === undefined) this.counts.clear();
    else this.counts.delete(clientId);
  }
}
