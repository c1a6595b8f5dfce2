import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Account, Order, World } from '../../src/api/types.js';
import { buildApp, createContext } from '../../src/app.js';
import { LINK_LIFETIME_SECONDS } from '../../src/domain/documents.js';
import { setOrderStatus } from '../../src/domain/order-actions.js';
import { http, testApp, tokenFor } from '../support/harness.js';

// Kept answers (src/http/read-cache.ts) are never stale: every change between two identical reads shows in the second.
let app: Express;
let tenants = 0;
beforeAll(() => {
  app = testApp();
});

/** A tenant of its own, a reader that reads every URL twice (the second time from the cache when nothing changed). */
async function fresh() {
  const clientId = `read-cache-test-${++tenants}`;
  await http(app).post('/__control/clients').send({ client_id: clientId, client_secret: 'secret' }).expect(201);
  const auth = { Authorization: `Bearer ${await tokenFor(app, { client_id: clientId, client_secret: 'secret' })}` };
  const control = (method: 'get' | 'post' | 'put' | 'patch', path: string) => http(app)[method](path).set('X-Client-Id', clientId);
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => http(app)[method](path).set(auth);
  const read = async (path: string) => {
    const first = await api('get', path);
    const second = await api('get', path);
    expect(second.status).toBe(first.status);
    expect(second.text).toBe(first.text);
    return first;
  };
  const world = (await control('get', '/__control/state')).body as World;
  return { clientId, control, api, read, world };
}

describe('a kept answer is never served after a change', () => {
  it('a created account shows in the next identical list', async () => {
    const { api, read } = await fresh();
    const before = await read('/v1/accounts?limit=1000');
    const created = await api('post', '/v1/accounts').send({ type: 'individual', external_id: 'cache-1', first_name: 'A' });
    expect(created.status, created.text).toBe(201);
    const after = await read('/v1/accounts?limit=1000');
    expect(after.body.data).toHaveLength(before.body.data.length + 1);
  });

  it('an account changed in place shows in the next identical read', async () => {
    const { api, read, world } = await fresh();
    const account = world.accounts.find((a) => a.type === 'individual') as Account;
    await read(`/v1/accounts/${account.id}`);
    await api('patch', `/v1/accounts/${account.id}`).send({ first_name: 'Renamed' }).expect(200);
    expect((await read(`/v1/accounts/${account.id}`)).body.first_name).toBe('Renamed');
  });

  it('a wallet made primary shows in the next identical list', async () => {
    const { api, read, world } = await fresh();
    const account = world.accounts.find((a) => world.wallets.filter((w) => w.account_id === a.id).length > 1)!;
    const other = world.wallets.find((w) => w.account_id === account.id && !w.is_primary)!;
    await read(`/v1/accounts/${account.id}/wallets`);
    await api('patch', `/v1/accounts/${account.id}/wallets/${other.id}`).send({ is_primary: true }).expect(200);
    const after = await read(`/v1/accounts/${account.id}/wallets`);
    expect(after.body.data.find((w: { id: string }) => w.id === other.id).is_primary).toBe(true);
  });

  it('a cancelled order, a forced status and an order changed by the library show in the next identical list', async () => {
    const { api, control, read, world } = await fresh();
    const statusOf = async (id: string) => ((await read('/v1/orders?limit=1000')).body.data as Order[]).find((o) => o.id === id)!.status;
    const placed = world.orders.find((o) => o.status === 'PLACED' || o.status === 'AWAITING_PAYMENT')!;
    await statusOf(placed.id);
    await api('delete', `/v1/orders/${placed.id}/`).expect(200);
    expect(await statusOf(placed.id)).toBe('CANCELLED');
    await control('post', `/__control/orders/${placed.id}/status`).send({ status: 'COMPLETED' }).expect(200);
    expect(await statusOf(placed.id)).toBe('COMPLETED');
  });

  it('a reset and a restored world show in the next identical list', async () => {
    const { api, control, read, world } = await fresh();
    const fixtures = await read('/v1/orders?limit=1000');
    const order = world.orders.find((o) => o.status === 'PLACED' || o.status === 'AWAITING_PAYMENT')!;
    await api('delete', `/v1/orders/${order.id}/`).expect(200);
    expect((await read('/v1/orders?limit=1000')).text).not.toBe(fixtures.text);
    await control('post', '/__control/reset').send({}).expect(204);
    expect((await read('/v1/orders?limit=1000')).text).toBe(fixtures.text);
    await control('put', '/__control/state').send({ ...world, orders: world.orders.slice(0, 2) }).expect(204);
    expect((await read('/v1/orders?limit=1000')).body.data).toHaveLength(2);
  });

  it('a moved clock shows in the next share class read (its redemption date) and document list (its links), forward and back', async () => {
    const { control, read, world } = await fresh();
    // frozen, so two reads fall in one second of the clock (a link's expiry moves with it)
    await control('post', '/__control/clock').send({ frozen: true }).expect(200);
    const isin = world.assets.find((a) => world.share_classes.find((s) => s.id === a.share_class_id)?.redemption_window.toLowerCase() === 'daily')?.isin ?? world.assets[0]!.isin;
    const now = (await control('get', '/__control/clock')).body.now as string;
    const date = async () => (await read(`/v1/share-classes/${isin}`)).body.next_redemption_date as string | null;
    const before = await date();
    await control('post', '/__control/clock').send({ advance_seconds: 400 * 86400 }).expect(200);
    const later = await date();
    if (before !== null) expect(later).not.toBe(before);
    await control('post', '/__control/clock').send({ now }).expect(200);
    expect(await date()).toBe(before);

    const docs = `/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`;
    const expiresOf = async () => {
      const answer = await read(docs);
      expect(answer.status, answer.text).toBe(200);
      return Number(new URL(answer.body.data[0].url).searchParams.get('expires'));
    };
    const first = await expiresOf();
    await control('post', '/__control/clock').send({ advance_seconds: 60 }).expect(200);
    expect(await expiresOf()).toBeGreaterThanOrEqual(first + 60);
  });

  it('on a running clock, every document list shows links that expire a link lifetime after the second it is read in', async () => {
    const { api, world } = await fresh();
    const docs = `/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`;
    const until = Date.now() + 1500;
    let reads = 0;
    while (Date.now() < until || reads < 20) {
      // a fresh tenant's clock is real time
      const before = Math.floor(Date.now() / 1000);
      const answer = await api('get', docs).expect(200);
      const after = Math.floor(Date.now() / 1000);
      const expires = Number(new URL(answer.body.data[0].url).searchParams.get('expires'));
      expect(expires).toBeGreaterThanOrEqual(before + LINK_LIFETIME_SECONDS);
      expect(expires).toBeLessThanOrEqual(after + LINK_LIFETIME_SECONDS);
      reads++;
    }
  });

  it('a changed setting shows in the next identical read (settings may change what reads answer)', async () => {
    // a write to the world in this process (as the library's setOrderStatusSync does) is seen too
    const ctx = createContext({ allowedHosts: ['.test'] });
    const local = buildApp(ctx);
    const token = await tokenFor(local);
    const list = async () => (await http(local).get('/v1/orders?limit=1000').set('Authorization', `Bearer ${token}`)).body.data as Order[];
    const tenant = ctx.tenants.get('sandbox-client');
    const order = tenant.store.orders[0]!;
    await list();
    await list();
    setOrderStatus(tenant, order.id, order.status === 'COMPLETED' ? 'CANCELLED' : 'COMPLETED');
    expect((await list()).find((o) => o.id === order.id)!.status).toBe(order.status);
    const version = tenant.store.version;
    await http(local).patch('/__control/clients/sandbox-client').send({ settings: { tax_reporting: true } }).expect(200);
    expect(tenant.store.version).toBeGreaterThan(version);
  });
});

describe('a kept answer is observed as any other', () => {
  it('is journaled with its status, body and item count; verify counts it; an injected fault strikes first', async () => {
    const { api, control, clientId } = await fresh();
    const first = await api('get', '/v1/orders?limit=5').expect(200);
    const second = await api('get', '/v1/orders?limit=5').expect(200);
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['content-length']).toBe(first.headers['content-length']);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);

    const har = (await control('get', `/__control/export?format=har&client_id=${clientId}`).expect(200)).body as { log: { entries: { request: { url: string }; response: { status: number; content: { text?: string; size: number } } }[] } };
    const reads = har.log.entries.filter((e) => e.request.url.includes('/v1/orders?limit=5'));
    expect(reads).toHaveLength(2);
    // the same answer but for its own request id
    const kept = (entry: (typeof reads)[number]) => JSON.stringify(entry.response).replace(/"X-Request-Id","value":"\d+"/, '');
    expect(kept(reads[1]!)).toBe(kept(reads[0]!));
    expect(reads[1]!.response.content.text).toBe(first.text);

    await control('post', '/__control/verify').send({ request: { method: 'GET', path: '/v1/orders', status: 200 }, count: { exactly: 2 } }).expect(200);

    await control('post', '/__control/faults').send({ method: 'GET', path: '/v1/orders', status: 503, count: 1 }).expect(201);
    const faulted = await api('get', '/v1/orders?limit=5');
    expect(faulted.status).toBe(503);
    expect((await api('get', '/v1/orders?limit=5').expect(200)).text).toBe(first.text);
    const report = (await control('get', '/__control/requests').expect(200)).body.data as { status: number; fault_id: string | null }[];
    expect(report.filter((r) => r.fault_id !== null)).toHaveLength(1);
  });
});
