import { describe, expect, it } from 'vitest';
import { Journal, JournalRecord } from '../../src/records/journal.js';

let ids = 0;
const request = (clientId: string, path: string) =>
  new JournalRecord(
    {
      id: String(++ids),
      client_id: clientId,
      method: 'GET',
      path,
      rawQuery: '',
      status: 200,
      duration_ms: 1,
      operation_id: null,
      code: null,
      fault_id: null,
      applied: true,
    },
    { at: Date.now(), retryAfter: null, bodyHash: null, itemCount: null, tenantAt: 0 },
  );
const kinds = (records: JournalRecord[]) => records.map((r) => r.control?.kind ?? r.entry.path);

describe('control steps in the journal', () => {
  it('are kept in order with the requests for the span, and read by no reader of the traffic', () => {
    const journal = new Journal(10);
    journal.record(request('a', '/v1/one'));
    journal.recordControl('a', { kind: 'remove_fault', fault_id: '1' }, 0);
    journal.record(request('a', '/v1/two'));
    expect(kinds(journal.span('a').records)).toEqual(['/v1/one', 'remove_fault', '/v1/two']);
    expect(kinds(journal.records('a'))).toEqual(['/v1/one', '/v1/two']);
    expect(journal.entries({ clientId: 'a' }).map((e) => e.path)).toEqual(['/v1/one', '/v1/two']);
    expect(journal.entries({}).map((e) => e.path)).toEqual(['/v1/one', '/v1/two']);
    const control = journal.span('a').records[1]!;
    expect(journal.find(control.entry.id)).toBeUndefined();
  });

  it('begin the span at the last reset, and count against the budgets: a span that lost a record says so', () => {
    const journal = new Journal(3);
    journal.record(request('a', '/v1/before'));
    journal.markReset('a');
    journal.recordControl('a', { kind: 'clear_faults' }, 0);
    journal.record(request('a', '/v1/after'));
    expect(journal.span('a')).toMatchObject({ complete: true });
    expect(kinds(journal.span('a').records)).toEqual(['clear_faults', '/v1/after']);
    journal.recordControl('a', { kind: 'clear_faults' }, 0);
    // a fourth record: the oldest goes (the one before the reset), the span is still whole
    expect(journal.span('a').complete).toBe(true);
    journal.record(request('a', '/v1/later'));
    // a fifth: the span's first record goes
    expect(journal.span('a').complete).toBe(false);
    expect(journal.usage().entries).toBe(3);
  });

  it('a restored snapshot is counted by its size', () => {
    const journal = new Journal(10);
    journal.recordControl('a', { kind: 'restore_state', world: 'x'.repeat(100_000) }, 0);
    expect(journal.usage().bytes).toBeGreaterThan(200_000);
  });

  it('a clear after a reset loses nothing of the span; a clear without one loses its start', () => {
    const journal = new Journal(10);
    journal.record(request('a', '/v1/one'));
    journal.markReset('a');
    journal.clear('a');
    journal.record(request('a', '/v1/two'));
    expect(journal.span('a')).toMatchObject({ complete: true });
    journal.clear('a');
    expect(journal.span('a').complete).toBe(false);
    journal.clear();
    journal.markReset(undefined);
    expect(journal.span('a').complete).toBe(true);
  });
});
