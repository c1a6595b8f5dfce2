import { describe, expect, it } from 'vitest';
import { Journal, JournalRecord } from '../../src/harness/journal.js';
import { keptBody, readBody } from '../../src/harness/journal-body.js';
import { REDACT_ALL, redactedJsonMembers, redactedText } from '../../src/harness/secrets.js';

let ids = 0;
const record = (clientId: string | null, path = '/v1/assets', method = 'GET') =>
  new JournalRecord(
    { id: String(++ids), client_id: clientId, method, path, rawQuery: '', status: 200, duration_ms: 1, operation_id: null, code: null, fault_id: null, applied: true },
    { at: Date.now(), retryAfter: null, bodyHash: null, itemCount: null, tenantAt: null },
  );
const paths = (records: JournalRecord[]) => records.map((r) => r.entry.path);

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

describe('redaction when the journal is read', () => {
  it('replaces secret-named members of any type, at any depth, also in a cut or broken text, and keeps the rest byte for byte', () => {
    const text = '{ "a": 1, "password" : 12345678, "nested": {"client_secret": ["x", {"y": 1}], "ok": "token: fine"}, "api_token": {"v": "s"}, "pass\\u0077ord": true }';
    expect(redactedJsonMembers(text)).toBe(
      '{ "a": 1, "password" : "[redacted]", "nested": {"client_secret": "[redacted]", "ok": "token: fine"}, "api_token": "[redacted]", "pass\\u0077ord": "[redacted]" }',
    );
    expect(redactedJsonMembers('{"refresh_token": {"deep": [1, 2')).toBe('{"refresh_token": "[redacted]"');
    expect(redactedJsonMembers('{"note": "\\"password\\": 1"}')).toBe('{"note": "\\"password\\": 1"}');
    expect(redactedText('password=hunter2&user=ada', 'text/plain', REDACT_ALL)).toBe('password=[redacted]&user=ada');
    expect(redactedText('{"q": "my-own-bearer-token"}', 'application/json', { ...REDACT_ALL, credentials: ['my-own-bearer-token'] })).toBe('{"q": "[redacted]"}');
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
