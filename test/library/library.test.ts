import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { stoppedAfterEachTest } from '../support/servers.js';

const start = stoppedAfterEachTest();

const getJson = async (server: FakeServer, path: string, token?: string) => {
  const response = await fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, body: (await response.json()) as { data: unknown[] } };
};

describe('startServer', () => {
  it('listens on a free port of 127.0.0.1 and serves the world to a token from token()', async () => {
    const server = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    const orders = await getJson(server, '/v1/orders', await server.token());
    expect(orders.status).toBe(200);
    expect(orders.body.data.length).toBeGreaterThanOrEqual(20);
  });

  it('runs several independent instances in one process', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    expect(a.port).not.toBe(b.port);
    const stateA = a.state();
    await fetch(`${a.url}/__control/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...stateA, orders: [] }),
    });
    expect((await getJson(a, '/v1/orders', await a.token())).body.data).toEqual([]);
    expect((await getJson(b, '/v1/orders', await b.token())).body.data.length).toBeGreaterThan(0);
    // a token of one instance is refused by the other
    expect((await getJson(b, '/v1/orders', await a.token())).status).toBe(401);
  });

  it('reset() puts the world back, like POST /__control/reset', async () => {
    const server = await start();
    const pristine = JSON.stringify(server.state());
    await fetch(`${server.url}/__control/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...server.state(), accounts: [], wallets: [], payment_method_details: [], orders: [] }),
    });
    expect(server.state().accounts).toEqual([]);
    server.reset();
    expect(JSON.stringify(server.state())).toBe(pristine);
  });

  it('the same seed gives the same world; another seed another', async () => {
    const [a, b, c] = await Promise.all([start({ seed: 7 }), start({ seed: 7 }), start({ seed: 8 })]);
    expect(JSON.stringify(a.state())).toBe(JSON.stringify(b.state()));
    expect(JSON.stringify(a.state())).not.toBe(JSON.stringify(c.state()));
  });

  it('stop() closes every connection, including idle keep-alive ones, and is safe twice', async () => {
    const server = await start();
    await fetch(`${server.url}/__control/health`, { headers: { connection: 'keep-alive' } });
    await server.stop();
    await server.stop();
    await expect(fetch(`${server.url}/__control/health`)).rejects.toThrow();
  });

  it('takes its clients from options', async () => {
    const server = await start({
      clients: [{ client_id: 'acme', client_secret: 'acme-secret', scopes: ['read:assets'] }],
    });
    expect(server.clientId).toBe('acme');
    const token = await server.token();
    expect((await getJson(server, '/v1/assets', token)).status).toBe(200);
    expect((await getJson(server, '/v1/orders', token)).status).toBe(403);
  });

  it('refuses fixtures that are not a valid world, naming the problem', async () => {
    await expect(startServer({ fixtures: { feeder_funds: [] } as never })).rejects.toThrow(
      /not a valid world[\s\S]*share_classes/,
    );
  });

  it('refuses a port another process holds, naming it and the port option, and keeps no STATE_DIR lock', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    const stateDir = mkdtempSync(join(tmpdir(), 'fake-busy-port-'));
    try {
      const refused = startServer({ port, stateDir });
      await expect(refused).rejects.toThrow(`port ${port} of 127.0.0.1 is already in use`);
      await expect(refused).rejects.toThrow(/the `port` option; 0 picks a free one/);
      // the same process starts on another port over the same folder: the failed start gave its lock back
      const server = await start({ stateDir });
      expect(server.port).not.toBe(port);
    } finally {
      holder.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('serves a world given as fixtures instead of the generated one', async () => {
    const generated = (await start({ seed: 3 })).state();
    const fixtures = { ...generated, orders: generated.orders.slice(0, 2) };
    const server = await start({ fixtures });
    expect(server.state()).toEqual(fixtures);
  });
});
