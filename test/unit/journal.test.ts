import { describe, expect, it } from 'vitest';
import { Journal, JOURNAL_ENTRY_OVERHEAD_BYTES, JournalRecord } from '../../src/records/journal.js';
import { keptBody, readBody } from '../../src/records/journal-body.js';
import { REDACT_ALL, redactedJsonMembers, redactedText } from '../../src/records/secrets.js';

let ids = 0;
const record = (clientId: string | null, path = '/v1/assets', method = 'GET') =>
  new JournalRecord(
    {
      id: String(++ids),
      client_id: clientId,
      method,
      path,
      rawQuery: '',
      status: 200,
      duration_ms: 1,
      operation_id: null,
      code: null,
      fault_id: null,
      applied: true,
    },
    { at: Date.now(), retryAfter: null, bodyHash: null, itemCount: null, tenantAt: null },
  );
const paths = (records: JournalRecord[]) => records.map((r) => r.entry.path);

/** A record whose request body is `bodyBytes` long: what it holds is its overhead, path and body. */
const sized = (clientId: string | null, path: string, bodyBytes: number) =>
  new JournalRecord(
    {
      id: String(++ids),
      client_id: clientId,
      method: 'POST',
      path,
      rawQuery: '',
      status: 201,
      duration_ms: 1,
      operation_id: null,
      code: null,
      fault_id: null,
      applied: true,
    },
    { at: Date.now(), retryAfter: null, bodyHash: null, itemCount: null, tenantAt: null },
    { request: keptBody(Buffer.alloc(bodyBytes, 0x61), 'application/json'), response: null, authorization: 'bearer' },
  );

describe('the journal: a ring per tenant, resets marked', () => {
  it('keeps each party’s ring apart, each bounded', () => {
    const journal = new Journal(2);
    for (let i = 0; i < 5; i++) journal.record(record(null, `/anon/${i}`));
    journal.record(record('a', '/a/1'));
    for (let i = 0; i < 3; i++) journal.record(record('b', `/b/${i}`));
    expect(paths(journal.records('a'))).toEqual(['/a/1']);
    expect(paths(journal.records('b'))).toEqual(['/b/1', '/b/2']);
    expect(paths(journal.records(null))).toEqual(['/anon/3', '/anon/4']);
    // every ring's, the newest `capacity` of them, oldest first; a filter reads on until it has them
    expect(journal.entries({ since: 'start' }).map((e) => e.path)).toEqual(['/b/1', '/b/2']);
    expect(journal.entries({ since: 'start', path: '/anon/*' }).map((e) => e.path)).toEqual(['/anon/3', '/anon/4']);
  });

  it('reads since the last reset or from the start; resets with nothing between are one; old marks fall out with their records', () => {
    const journal = new Journal(3);
    journal.record(record('a', '/1'));
    journal.markReset('a', 1000);
    journal.markReset('a', 2000);
    expect(journal.resets('a')).toEqual([{ afterSeq: 1, at: 2000 }]);
    journal.record(record('a', '/2'));
    journal.markReset('a', 3000);
    journal.record(record('a', '/3'));
    expect(paths(journal.records('a', 'reset'))).toEqual(['/3']);
    expect(paths(journal.records('a', 'start'))).toEqual(['/1', '/2', '/3']);
    journal.record(record('a', '/4'));
    journal.record(record('a', '/5'));
    expect(paths(journal.records('a', 'start'))).toEqual(['/3', '/4', '/5']);
    expect(journal.resets('a').map((m) => m.at)).toEqual([3000]);
    expect(paths(journal.records('a', 'reset'))).toEqual(['/3', '/4', '/5']);
  });

  it('a reset of every tenant marks the rings made after it too; clear forgets records and marks', () => {
    const journal = new Journal(5);
    journal.record(record('a', '/1'));
    journal.markReset(undefined, 1000);
    journal.record(record('b', '/2'));
    expect(journal.resets('b')).toEqual([{ afterSeq: 1, at: 1000 }]);
    expect(paths(journal.records('a', 'reset'))).toEqual([]);
    journal.clear('a');
    expect(journal.records('a', 'start')).toEqual([]);
    journal.clear();
    expect(journal.resets('b')).toEqual([]);
  });
});

describe('the journal within its byte budgets', () => {
  // each record: overhead, its path twice ('/p/NN': 5 characters) and a 4,000-byte body
  const each = JOURNAL_ENTRY_OVERHEAD_BYTES + 10 + 4000;

  it('counts what a record holds: its kept bodies (a cut body as the block it keeps), path, query and overhead', () => {
    expect(sized('a', '/p/00', 4000).bytes).toBe(each);
    // a 100 KB body keeps a copy of its first 8 KiB only
    expect(sized('a', '/p/00', 100_000).bytes).toBe(JOURNAL_ENTRY_OVERHEAD_BYTES + 10 + 8192);
  });

  it('a tenant whose journal passes JOURNAL_BYTES keeps its newest records within the budget, and every request is kept', () => {
    const journal = new Journal(1000, undefined, {
      bytesPerTenant: 3 * each + 100,
      totalBytes: Number.POSITIVE_INFINITY,
    });
    for (let i = 10; i < 20; i++) journal.record(sized('a', `/p/${i}`, 4000));
    journal.record(sized('b', '/p/99', 4000));
    expect(paths(journal.records('a', 'start'))).toEqual(['/p/17', '/p/18', '/p/19']);
    expect(paths(journal.records('b', 'start'))).toEqual(['/p/99']);
    const usage = journal.usage();
    expect(usage.bytes).toBe(4 * each);
    expect(usage.rings.find((ring) => ring.clientId === 'a')).toEqual({ clientId: 'a', entries: 3, bytes: 3 * each });
  });

  it('past JOURNAL_TOTAL_BYTES the journal that holds the most gives its oldest first; a request alone above a budget stays', () => {
    const journal = new Journal(1000, undefined, { bytesPerTenant: Number.POSITIVE_INFINITY, totalBytes: 4 * each });
    journal.record(sized('quiet', '/p/10', 4000));
    journal.record(sized('busy', '/p/11', 4000));
    journal.record(sized('quiet', '/p/12', 4000));
    journal.record(sized('busy', '/p/13', 4000));
    journal.record(sized('busy', '/p/14', 4000));
    // busy holds three, quiet two: busy's oldest goes, though quiet's is older
    expect(paths(journal.records('quiet', 'start'))).toEqual(['/p/10', '/p/12']);
    expect(paths(journal.records('busy', 'start'))).toEqual(['/p/13', '/p/14']);
    for (let i = 15; i < 40; i++) journal.record(sized('busy', `/p/${i}`, 4000));
    expect(paths(journal.records('quiet', 'start'))).toEqual(['/p/10', '/p/12']);
    expect(paths(journal.records('busy', 'start'))).toEqual(['/p/38', '/p/39']);
    expect(journal.usage().bytes).toBe(4 * each);
    // two of equal size: the one with the older record gives
    journal.record(sized('quiet', '/p/40', 4000));
    expect(paths(journal.records('quiet', 'start'))).toEqual(['/p/12', '/p/40']);
    journal.record(sized('big', '/p/41', 100_000));
    expect(paths(journal.records('big', 'start'))).toEqual(['/p/41']);
    expect(journal.usage().bytes).toBeLessThanOrEqual(4 * each);
    // a request alone above the total stays: the others give
    const alone = new Journal(1000, undefined, { bytesPerTenant: Number.POSITIVE_INFINITY, totalBytes: 64 * 1024 });
    alone.record(sized('a', '/p/50', 4000));
    alone.record(
      new JournalRecord(
        {
          id: 'long',
          client_id: 'b',
          method: 'GET',
          path: `/v1/${'x'.repeat(40_000)}`,
          rawQuery: '',
          status: 404,
          duration_ms: 1,
          operation_id: null,
          code: null,
          fault_id: null,
          applied: true,
        },
        { at: Date.now(), retryAfter: null, bodyHash: null, itemCount: null, tenantAt: null },
      ),
    );
    expect(alone.records('b', 'start')).toHaveLength(1);
    expect(alone.records('a', 'start')).toEqual([]);
  });

  it('a tenant within JOURNAL_TOTAL_BYTES / (tenants with entries) loses nothing, however much two others send', () => {
    const journal = new Journal(1000, undefined, { bytesPerTenant: 1000 * each, totalBytes: 30 * each });
    for (let i = 0; i < 9; i++) journal.record(sized('small', `/p/${String(i).padStart(2, '0')}`, 4000));
    for (let i = 0; i < 500; i++) {
      journal.record(sized('a', '/p/aa', 4000));
      journal.record(sized('b', '/p/bb', 4000));
    }
    expect(journal.records('small', 'start')).toHaveLength(9);
    const usage = journal.usage();
    expect(usage.bytes).toBeLessThanOrEqual(30 * each);
    // the two senders share the rest evenly
    const held = (id: string) => usage.rings.find((ring) => ring.clientId === id)!.entries;
    expect(Math.abs(held('a') - held('b'))).toBeLessThanOrEqual(1);
    expect(held('a') + held('b')).toBe(21);
  });

  it('a control step counts in the budgets like any other entry: one alone above JOURNAL_BYTES goes, and its span says it lost a step', () => {
    const journal = new Journal(1000, undefined, { bytesPerTenant: 64 * 1024, totalBytes: 128 * 1024 });
    journal.record(sized('other', '/p/01', 4000));
    journal.recordControl(
      'a',
      {
        kind: 'provider_state',
        change: { state: 'an account exists', params: { first_name: 'x'.repeat(40_000) } },
        answer: {},
      },
      0,
    );
    expect(journal.span('a')).toMatchObject({ records: [], complete: false });
    journal.recordControl('a', { kind: 'clear_faults' }, 0);
    expect(journal.span('a').records).toHaveLength(1);
    expect(journal.records('other', 'start')).toHaveLength(1);
    expect(journal.usage().bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('finds the largest journal among a thousand tenants as they send (a heap, not a scan): the total holds, the small keep theirs', () => {
    const journal = new Journal(1000, undefined, { bytesPerTenant: 100 * each, totalBytes: 2000 * each });
    for (let i = 0; i < 20_000; i++) journal.record(sized(`t${(i * 7919) % 1500}`, '/p/00', 4000));
    journal.record(sized('late', '/p/01', 4000));
    const usage = journal.usage();
    expect(usage.bytes).toBeLessThanOrEqual(2000 * each);
    expect(usage.bytes).toBe(usage.rings.reduce((sum, ring) => sum + ring.bytes, 0));
    expect(journal.records('late', 'start')).toHaveLength(1);
    // 1,501 rings share 2,000 entries: none holds more than two
    expect(Math.max(...usage.rings.map((ring) => ring.entries))).toBeLessThanOrEqual(2);
  });

  it('forgetting a tenant gives its bytes back to the total', () => {
    const journal = new Journal(1000, undefined, { bytesPerTenant: Number.POSITIVE_INFINITY, totalBytes: 3 * each });
    journal.record(sized('a', '/p/10', 4000));
    journal.record(sized('b', '/p/11', 4000));
    journal.clear('a');
    journal.record(sized('b', '/p/12', 4000));
    journal.record(sized('b', '/p/13', 4000));
    expect(paths(journal.records('b', 'start'))).toEqual(['/p/11', '/p/12', '/p/13']);
    expect(journal.usage().bytes).toBe(3 * each);
  });

  it('stays within both budgets over thousands of records of many tenants, the total the sum of its rings', () => {
    const journal = new Journal(50, undefined, { bytesPerTenant: 20 * each, totalBytes: 100 * each });
    for (let i = 0; i < 5000; i++) journal.record(sized(`t${i % 37}`, `/p/${String(i % 100).padStart(2, '0')}`, 4000));
    const usage = journal.usage();
    expect(usage.bytes).toBeLessThanOrEqual(100 * each);
    expect(usage.rings.every((ring) => ring.bytes <= 20 * each)).toBe(true);
    expect(usage.bytes).toBe(usage.rings.reduce((sum, ring) => sum + ring.bytes, 0));
  });
});

describe('redaction when the journal is read', () => {
  it('replaces secret-named members of any type, at any depth, also in a cut or broken text, and keeps the rest byte for byte', () => {
    const text =
      '{ "a": 1, "password" : 12345678, "nested": {"client_secret": ["x", {"y": 1}], "ok": "token: fine"}, "api_token": {"v": "s"}, "pass\\u0077ord": true }';
    expect(redactedJsonMembers(text)).toBe(
      '{ "a": 1, "password" : "[redacted]", "nested": {"client_secret": "[redacted]", "ok": "token: fine"}, "api_token": "[redacted]", "pass\\u0077ord": "[redacted]" }',
    );
    expect(redactedJsonMembers('{"refresh_token": {"deep": [1, 2')).toBe('{"refresh_token": "[redacted]"');
    expect(redactedJsonMembers('{"note": "\\"password\\": 1"}')).toBe('{"note": "\\"password\\": 1"}');
    expect(redactedText('password=hunter2&user=ada', 'text/plain', REDACT_ALL)).toBe('password=[redacted]&user=ada');
    expect(
      redactedText('{"q": "my-own-bearer-token"}', 'application/json', {
        ...REDACT_ALL,
        credentials: ['my-own-bearer-token'],
      }),
    ).toBe('{"q": "[redacted]"}');
  });

  it('keeps a body as handed and cuts it at the limit in bytes when read', () => {
    const long = Buffer.from(`{"a":"${'é'.repeat(6000)}"}`);
    const kept = keptBody(long, 'application/json')!;
    expect(kept.size).toBe(long.length);
    const read = readBody(kept, REDACT_ALL)!;
    expect(read.truncated).toBe(true);
    expect(Buffer.byteLength(read.text!)).toBeLessThanOrEqual(8192);
    expect(read.text!.endsWith('\uFFFD')).toBe(false);
    const small = Buffer.from('{"a":1}');
    const own = Buffer.allocUnsafeSlow(small.length);
    small.copy(own);
    expect(keptBody(own, 'application/json')!.raw).toBe(own);
  });

  it('never pins more than twice the cut: a slice of a larger block, or the cut of a long body, is copied to a block of its own', () => {
    const block = Buffer.alloc(64 * 1024, 'x');
    const inPool = block.subarray(100, 300);
    const kept = keptBody(inPool, 'application/json')!.raw as Buffer;
    expect(kept.equals(inPool)).toBe(true);
    expect(kept.buffer.byteLength).toBe(200);
    const longText = `{"a":"${'y'.repeat(40_000)}"}`;
    const cut = keptBody(longText, 'application/json')!.raw as Buffer;
    expect(cut.buffer.byteLength).toBe(8192);
    expect(cut.toString()).toBe(longText.slice(0, 8192));
    const longBytes = Buffer.from(longText);
    const cutBytes = keptBody(longBytes, 'application/json')!.raw as Buffer;
    expect(cutBytes.buffer.byteLength).toBe(8192);
    expect(cutBytes.equals(longBytes.subarray(0, 8192))).toBe(true);
    // within twice the cut, in a block of its own: a view, no copy
    const answer = Buffer.allocUnsafeSlow(12_000).fill('z');
    expect((keptBody(answer, 'application/json')!.raw as Buffer).buffer).toBe(answer.buffer);
  });
});
