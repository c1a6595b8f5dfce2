import { connect } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';

// One server for the file: each test counts the journal from where it found it and makes its own account.
let fake: FakeServer;
beforeAll(async () => {
  fake = await startServer();
});
afterAll(() => fake.stop());

/** Writes raw bytes on a fresh connection and resolves with everything the server sent until it closed it (or 3 s). */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.write(bytes);
  const closedByServer = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000)),
  ]);
  socket.destroy();
  return closedByServer ? received : `${received}\n(still open after 3 s)`;
}

/** The status lines of every answer in what a connection received. */
const statusLines = (received: string): string[] => received.match(/HTTP\/1\.1 \d{3}[^\r]*/g) ?? [];

const problemOf = (received: string): { status: number; code: string; detail: string } =>
  JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));

describe('Transfer-Encoding', () => {
  it.each([
    ['identity, chunked', 'identity'],
    ['gzip, chunked', 'gzip'],
    ['foo', 'foo'],
  ])(
    '"%s" is answered once, 501 naming the coding, and the connection closed: what follows is not read as a second request',
    async (codings, named) => {
      const token = await fake.token();
      const host = `127.0.0.1:${fake.port}`;
      // After a `0` chunk, the bytes of another request: a parser taking the last coding would answer it too.
      const smuggled = `GET /v1/accounts HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n\r\n`;
      // the smuggled read, answered on a connection of its own: it must not be answered again from the refused one
      for (let i = 0; i < 2; i++)
        expect(
          (await fetch(`http://${host}/v1/accounts`, { headers: { authorization: `Bearer ${token}` } })).status,
        ).toBe(200);
      const journaled = (await fake.control.requests()).length;
      const received = await exchange(
        fake.port,
        `POST /v1/accounts HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: ${codings}\r\n\r\n0\r\n\r\n${smuggled}`,
      );
      expect(statusLines(received)).toEqual(['HTTP/1.1 501 Not Implemented']);
      expect(received).not.toContain('still open');
      expect(received).toMatch(/\r\nContent-Type: application\/problem\+json/);
      expect(received).toMatch(/\r\nConnection: close\r\n/i);
      const problem = problemOf(received);
      expect(problem).toMatchObject({ status: 501, code: 'transfer_encoding_not_implemented' });
      expect(problem.detail).toContain(`"${named}"`);
      // nothing reached the API: neither the POST nor the request after it
      expect(await fake.control.requests()).toHaveLength(journaled);
    },
  );

  it('"chunked" alone still carries a body', async () => {
    const token = await fake.token();
    const body = JSON.stringify({
      type: 'individual',
      external_id: 'chunked-1',
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    const chunks = [body.slice(0, 20), body.slice(20)]
      .map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`)
      .join('');
    const received = await exchange(
      fake.port,
      `POST /v1/accounts HTTP/1.1\r\nHost: 127.0.0.1:${fake.port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}0\r\n\r\n`,
    );
    expect(statusLines(received)).toEqual(['HTTP/1.1 201 Created']);
    expect(received).not.toContain('still open');
    expect(fake.state().accounts.filter((a) => a.external_id === 'chunked-1')).toHaveLength(1);
  });
});
