import { connect } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { FakeServer } from '../../src/index.js';
import { stoppedAfterEachTest } from '../support/servers.js';
import { sleep } from '../support/waits.js';

const start = stoppedAfterEachTest();

/** The journal's entries for a method and path, once `count` are written (an entry waits for its request's work). */
const journaled = (fake: FakeServer, method: string, path: string, count: number) =>
  vi.waitFor(
    async () => {
      const entries = await fake.control.requests({ method, path });
      expect(entries).toHaveLength(count);
      return entries;
    },
    { timeout: 5000, interval: 25 },
  );

describe('a client that gives up waiting during a latency fault (phase before) on a write', () => {
  it('does not stop the write: it is applied after the delay, journaled status 0 and applied, and found by external_id', async () => {
    const fake = await start();
    const token = await fake.token();
    const auth = { authorization: `Bearer ${token}` };
    await fake.control.addFault({ method: 'POST', path: '/v1/accounts', latency_ms: 400, count: 1 });
    const body = JSON.stringify({
      type: 'individual',
      external_id: 'gave-up-1',
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    // the client aborts after half the delay, as one with a 1 s timeout does against a 2 s latency
    const sent = fetch(`${fake.url}/v1/accounts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(200),
    });
    await expect(sent).rejects.toThrow(/abort|timeout/i);
    const [entry] = await journaled(fake, 'POST', '/v1/accounts', 1);
    expect(entry).toMatchObject({
      status: 0,
      applied: true,
      operation_id: 'createAccount',
      fault_id: expect.any(String),
    });
    const found = await fetch(`${fake.url}/v1/accounts?external_id=gave-up-1`, { headers: auth });
    expect(((await found.json()) as { data: unknown[] }).data).toHaveLength(1);
  });
});

/** Sends the headers and part of a body its Content-Length announces as longer, then destroys the connection. */
async function leaveMidBody(fake: FakeServer, token: string): Promise<void> {
  const socket = connect(fake.port, '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  const part = '{"type":"individual","external_id":"left-1","first_na';
  socket.write(
    `POST /v1/accounts HTTP/1.1\r\nHost: 127.0.0.1:${fake.port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n${part}`,
  );
  // the server has the headers and has begun to read the body
  await sleep(100);
  socket.destroy();
}

describe('a client that disconnects in the middle of its request body', () => {
  it('is journaled as a dropped connection (status 0, no code, nothing applied), not as a 400 malformed_body', async () => {
    const fake = await start();
    const token = await fake.token();
    await leaveMidBody(fake, token);
    const [entry] = await journaled(fake, 'POST', '/v1/accounts', 1);
    expect(entry).toMatchObject({ status: 0, code: null, applied: false, operation_id: 'createAccount' });
    expect(fake.state().accounts.filter((a) => a.external_id === 'left-1')).toEqual([]);
  });

  it('three times does not raise repeated_client_error: the client left, the fake refused nothing', async () => {
    const fake = await start();
    const token = await fake.token();
    for (let i = 0; i < 3; i++) await leaveMidBody(fake, token);
    await journaled(fake, 'POST', '/v1/accounts', 3);
    expect(fake.report().findings.map((f) => f.code)).not.toContain('repeated_client_error');
  });
});
