import type { Schemas } from '../domain/types.js';

export type JournalEntry = Schemas['JournalEntry'];

/** What the readiness report reads beyond what the journal shows. */
export interface JournalEvidence {
  /** Real time of arrival in ms. */
  at: number;
  /** Seconds of the answer's Retry-After, if any. */
  retryAfter: number | null;
  /** SHA-256 of the request body (never the body itself: it may hold personal data). */
  bodyHash: string | null;
  /** Number of items of a list answer. */
  itemCount: number | null;
}

export interface JournalRecord {
  entry: JournalEntry;
  evidence: JournalEvidence;
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

  /** Forgets one client's entries (or all): kept entries stay in order. */
  clear(clientId?: string): void {
    const kept = clientId === undefined ? [] : this.records((r) => r.entry.client_id !== clientId);
    this.ring.fill(undefined);
    this.next = 0;
    this.count = 0;
    for (const record of kept) this.record(record);
  }
}
