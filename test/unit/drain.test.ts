import { once } from 'node:events';
import { Agent, createServer, request, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainable, type DrainableServer } from '../../src/drain.js';

const servers: DrainableServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.drain(0)));
});

/** A server whose answers wait until the test releases them. */
async function holdingServer() {
  const held: ServerResponse[] = [];
  const arrived: (() => void)[] = [];
  const server = drainable(
    createServer((_req, res) => {
      held.push(res);
      arrived.shift()?.();
    }),
  );
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const nextArrival = () => new Promise<void>((resolve) => arrived.push(resolve));
  return { server, port, held, nextArrival };
}

function get(port: number): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/', agent: new Agent({ keepAlive: true }) }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('drainable', () => {
  it('answers a request in flight with Connection: close and resolves once it is done', async () => {
    const { server, port, held, nextArrival } = await holdingServer();
    const arrival = nextArrival();
    const answer = get(port);
    await arrival;
    let drained = false;
    const draining = server.drain(5000).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false);
    held[0]!.end('done');
    expect((await answer).headers.connection).toBe('close');
    await draining;
    expect(server.listening).toBe(false);
  });

  it('gives the same promise when called twice', async () => {
    const { server } = await holdingServer();
    expect(server.drain(5000)).toBe(server.drain(5000));
    await server.drain(5000);
  });

  it('answers with Connection: close a request whose headers were still arriving when draining began', async () => {
    const { server, port, held, nextArrival } = await holdingServer();
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const draining = server.drain(5000);
    const arrival = nextArrival();
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.write('\r\n');
    await arrival;
    held[0]!.end('done');
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.toLowerCase()).toContain('connection: close\r\n');
    await draining;
  });

  it('lets an answer already streaming when draining began finish, then closes its keep-alive connection at once', async () => {
    const { server, port, held, nextArrival } = await holdingServer();
    const before = nextArrival();
    const answered = get(port);
    await before;
    held[0]!.end('before');
    expect((await answered).headers.connection).toBe('keep-alive');

    const arrival = nextArrival();
    const streaming = get(port);
    await arrival;
    held[1]!.writeHead(200, { 'content-type': 'text/plain' });
    held[1]!.write('part');
    const started = Date.now();
    const draining = server.drain(10_000);
    held[1]!.end('rest');
    expect((await streaming).headers.connection).toBe('keep-alive');
    await draining;
    // not the 5 s of Node's keep-alive timeout, nor the grace period
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('closes what is still open after the grace period', async () => {
    const { server, port, nextArrival } = await holdingServer();
    const arrival = nextArrival();
    const answer = get(port).catch((error: Error) => error);
    await arrival;
    const started = Date.now();
    await server.drain(50);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await answer).toBeInstanceOf(Error);
  });
});
