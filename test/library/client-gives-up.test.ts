import { describe, expect, it, vi } from 'vitest';
import type { FakeServer } from '../../src/index.js';
import { stoppedAfterEachTest } from '../support/servers.js';

const start = stoppedAfterEachTest();

/** The journal's entries for a method and path, once `count` are written (an entry waits for its request's work). */
const journaled = (fake: FakeServer, method: string, path: string, count: number) =>
  vi.waitFor(async () => {
    const entries = await fake.control.requests({ method, path });
    expect(entries).toHaveLength(count);
    return entries;
  }, { timeout: 5000, interval: 25 });

describe('a client that gives up waiting during a latency fault (phase before) on a write', () => {
  it('does not stop the write: it is applied after the delay, journaled status 0 and applied, and found by external_id', async () => {
    const fake = await start();
    const token = await fake.token();
    const auth = { authorization: `Bearer ${token}` };
    await fake.control.addFault({ method: 'POST', path: '/v1/accounts', latency_ms: 400, count: 1 });
    const body = JSON.stringify({ type: 'individual', external_id: 'gave-up-1', first_name: 'Ada', last_name: 'Lovelace' });
    // the client aborts after half the delay, as one with a 1 s timeout does against a 2 s latency
    const sent = fetch(`${fake.url}/v1/accounts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(200) });
    await expect(sent).rejects.toThrow(/abort|timeout/i);
    const [entry] = await journaled(fake, 'POST', '/v1/accounts', 1);
    expect(entry).toMatchObject({ status: 0, applied: true, operation_id: 'createAccount', fault_id: expect.any(String) });
    const found = await fetch(`${fake.url}/v1/accounts?external_id=gave-up-1`, { headers: auth });
    expect(((await found.json()) as { data: unknown[] }).data).toHaveLength(1);
  });
});
