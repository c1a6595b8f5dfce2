import type { Express } from 'express';
import type { Response, Test } from 'supertest';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Account, Order, World } from '../../src/api/types.js';
import { buildApp, createContext } from '../../src/app.js';
import { ReadCache } from '../../src/http/read-cache.js';
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

/**
 * Two instances of one world, one keeping answers and one computing each, driven by the same calls at the same
 * instants (Date is faked, so running clocks run alike and move without a control call): every answer of the first,
 * read twice around each change, must be the second's, status, headers and bytes, and so must their journals.
 */
async function twins() {
  const cache = new ReadCache();
  const servers = [cache, false].map((readCache) => {
    const ctx = createContext({ allowedHosts: ['.test'] });
    return { ctx, app: buildApp(ctx, undefined, { readCache }), auth: '' };
  });
  const signIn = async () => {
    for (const server of servers) server.auth = `Bearer ${await tokenFor(server.app)}`;
  };
  await signIn();
  const [kept, computed] = servers as [(typeof servers)[0], (typeof servers)[0]];
  // links are signed with each instance's own secret; the Date header is the only other difference allowed
  const comparable = (response: Response) => {
    const { date: _date, ...headers } = response.headers;
    return { status: response.status, headers, text: response.text.replace(/signature=[0-9a-f]{64}/g, 'signature=…') };
  };
  /** The same call on both; their answers alike. */
  const both = async (call: (app: Express, auth: string) => Test): Promise<Response> => {
    const [a, b] = [await call(kept.app, kept.auth), await call(computed.app, computed.auth)];
    expect(comparable(a)).toEqual(comparable(b));
    return b;
  };
  const control = (method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string, body?: object) => both((app) => http(app)[method](path).send(body));
  return {
    cache,
    tenant: kept.ctx.tenants.get('sandbox-client'),
    signIn,
    control,
    /** GET twice on both (the second from the cache when nothing changed); the answer as computed. */
    read: async (path: string) => {
      const first = await both((app, auth) => http(app).get(path).set('Authorization', auth));
      await both((app, auth) => http(app).get(path).set('Authorization', auth));
      return first;
    },
    write: (method: 'post' | 'patch' | 'delete', path: string, body?: object) => both((app, auth) => http(app)[method](path).set('Authorization', auth).send(body)),
    /** The journals, HAR exports and readiness reports alike but for how long each request took. */
    sameRecords: async () => {
      // the comparisons meant something: answers were served again
      expect(cache.hits).toBeGreaterThan(0);
      const timeless = (text: string) => text.replace(/"(duration_ms|time|wait|receive)":\s*[0-9.]+/g, '"$1":0');
      for (const path of ['/__control/requests', '/__control/export?format=har', '/__control/report']) {
        const [a, b] = [await http(kept.app).get(path), await http(computed.app).get(path)];
        expect(a.status, path).toBe(200);
        expect(timeless(comparable(a).text), path).toBe(timeless(comparable(b).text));
      }
      return JSON.parse((await http(computed.app).get('/__control/requests')).text).data as { status: number; fault_id: string | null; applied: boolean }[];
    },
  };
}

describe('with kept answers and without, two identical reads around each change answer alike', () => {
  const T0 = Date.parse('2030-01-01T12:00:00.000Z');
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const statuses = (response: Response) => (response.body.data as Order[]).map((o) => `${o.id} ${o.status}`).join('\n');

  it('a write: a created account, an account and a wallet changed in place, a cancelled order', async () => {
    const t = await twins();
    const world = (await t.control('get', '/__control/state')).body as World;
    const accounts = await t.read('/v1/accounts?limit=1000');
    expect((await t.write('post', '/v1/accounts', { type: 'individual', external_id: 'cache-twin', first_name: 'A' })).status).toBe(201);
    expect((await t.read('/v1/accounts?limit=1000')).body.data).toHaveLength(accounts.body.data.length + 1);
    const account = world.accounts.find((a) => world.wallets.filter((w) => w.account_id === a.id).length > 1 && a.type === 'individual')!;
    await t.read(`/v1/accounts/${account.id}`);
    expect((await t.write('patch', `/v1/accounts/${account.id}`, { first_name: 'Renamed' })).status).toBe(200);
    expect((await t.read(`/v1/accounts/${account.id}`)).body.first_name).toBe('Renamed');
    const other = world.wallets.find((w) => w.account_id === account.id && !w.is_primary)!;
    await t.read(`/v1/accounts/${account.id}/wallets`);
    expect((await t.write('patch', `/v1/accounts/${account.id}/wallets/${other.id}`, { is_primary: true })).status).toBe(200);
    expect((await t.read(`/v1/accounts/${account.id}/wallets`)).body.data.find((w: { id: string }) => w.id === other.id).is_primary).toBe(true);
    const order = world.orders.find((o) => o.status === 'PLACED')!;
    const before = await t.read('/v1/orders?limit=1000');
    expect((await t.write('delete', `/v1/orders/${order.id}/`)).status).toBe(200);
    const after = await t.read('/v1/orders?limit=1000');
    expect(statuses(after)).not.toBe(statuses(before));
    await t.sameRecords();
  });

  it('a reset and a forced status', async () => {
    const t = await twins();
    const world = (await t.control('get', '/__control/state')).body as World;
    const order = world.orders.find((o) => o.status === 'PLACED')!;
    const fixtures = await t.read('/v1/orders?limit=1000');
    expect((await t.control('post', `/__control/orders/${order.id}/status`, { status: 'COMPLETED' })).status).toBe(200);
    const forced = await t.read('/v1/orders?limit=1000');
    expect(statuses(forced)).toContain(`${order.id} COMPLETED`);
    expect((await t.control('post', '/__control/reset', {})).status).toBe(204);
    expect((await t.read('/v1/orders?limit=1000')).text).toBe(fixtures.text);
    await t.sameRecords();
  });

  it('a clock move: the redemption date and the document links move with it', async () => {
    const t = await twins();
    const world = (await t.control('get', '/__control/state')).body as World;
    const isin = world.assets[0]!.isin;
    const docs = `/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`;
    const [shareClass, links] = [await t.read(`/v1/share-classes/${isin}`), await t.read(docs)];
    expect((await t.control('post', '/__control/clock', { advance_seconds: 400 * 86400 })).status).toBe(200);
    await t.signIn();
    expect((await t.read(`/v1/share-classes/${isin}`)).body.next_redemption_date).not.toBe(shareClass.body.next_redemption_date);
    expect((await t.read(docs)).text).not.toBe(links.text);
    // the running clock moves a second without a call: new links
    const moved = await t.read(docs);
    vi.setSystemTime(Date.now() + 1000);
    expect((await t.read(docs)).text).not.toBe(moved.text);
    await t.sameRecords();
  });

  it('clock progression: a frozen clock advanced past a step, and a running clock that passes one by itself', async () => {
    const t = await twins();
    expect((await t.control('patch', '/__control/clients/sandbox-client', { settings: { order_progression: 'clock', order_step_seconds: { PLACED: 10 } } })).status).toBe(200);
    expect((await t.control('post', '/__control/clock', { frozen: true })).status).toBe(200);
    const placed = await t.read('/v1/orders?order_status=PLACED&limit=1000');
    expect(placed.body.data.length).toBeGreaterThan(0);
    expect((await t.control('post', '/__control/clock', { advance_seconds: 11 })).status).toBe(200);
    expect((await t.read('/v1/orders?order_status=PLACED&limit=1000')).body.data).toEqual([]);

    // running again, from the next step's instant on: no call between the two reads but time
    expect((await t.control('post', '/__control/clock', { frozen: false })).status).toBe(200);
    const paying = await t.read('/v1/orders?order_status=AWAITING_PAYMENT&limit=1000');
    expect(paying.body.data.length).toBeGreaterThan(0);
    expect(t.tenant.progression.nextDueAt()).toBeGreaterThan(t.tenant.now());
    vi.setSystemTime(Date.now() + (t.tenant.progression.nextDueAt() - t.tenant.now()) - 1);
    expect((await t.read('/v1/orders?order_status=AWAITING_PAYMENT&limit=1000')).text).toBe(paying.text);
    vi.setSystemTime(Date.now() + 1);
    expect((await t.read('/v1/orders?order_status=AWAITING_PAYMENT&limit=1000')).text).not.toBe(paying.text);
    await t.sameRecords();
  });

  it('investor activity: an investor order instant passed by the running clock, and by a frozen one advanced', async () => {
    const t = await twins();
    expect((await t.control('patch', '/__control/clients/sandbox-client', { settings: { investor_activity_per_hour: 60 } })).status).toBe(200);
    const before = await t.read('/v1/orders?limit=1000');
    const next = t.tenant.activity.nextInstant(60);
    vi.setSystemTime(next - 1);
    expect((await t.read('/v1/orders?limit=1000')).text).toBe(before.text);
    vi.setSystemTime(next);
    const after = await t.read('/v1/orders?limit=1000');
    expect(after.body.data.length).toBeGreaterThan(before.body.data.length);

    expect((await t.control('post', '/__control/clock', { frozen: true })).status).toBe(200);
    const frozen = await t.read('/v1/orders?limit=1000');
    expect((await t.control('post', '/__control/clock', { advance_seconds: 3600 })).status).toBe(200);
    await t.signIn();
    expect((await t.read('/v1/orders?limit=1000')).body.data.length).toBeGreaterThan(frozen.body.data.length);
    await t.sameRecords();
  });

  it('polls progression: every list answer counts, so two identical reads may differ', async () => {
    const t = await twins();
    expect((await t.control('patch', '/__control/clients/sandbox-client', { settings: { order_progression: 'polls', order_polls_per_step: 1 } })).status).toBe(200);
    const hits = t.cache.hits;
    const first = await t.read('/v1/orders?limit=1000');
    const second = await t.read('/v1/orders?limit=1000');
    expect(statuses(second)).not.toBe(statuses(first));
    expect(t.cache.hits).toBe(hits);
    // the other reads are kept as in any mode
    await t.read('/v1/accounts');
    await t.sameRecords();
  });

  it('faults: a faulted read is never answered from the cache nor kept, and every request is journaled as without it', async () => {
    const t = await twins();
    const path = '/v1/orders?limit=5';
    const answer = await t.read(path);
    for (const fault of [
      { status: 503 },
      { status: 503, phase: 'after' },
      { latency_ms: 20 },
      { latency_ms: 20, phase: 'after' },
      { status: 429, probability: 0.5, seed: 7 },
    ]) {
      expect((await t.control('post', '/__control/faults', { method: 'GET', path: '/v1/orders', count: 2, ...fault })).status).toBe(201);
      await t.read(path);
      expect((await t.control('post', '/__control/faults', { method: 'GET', path: '/v1/orders', ...fault })).status).toBe(201);
      await t.read(path);
      await t.control('delete', '/__control/faults');
      expect((await t.read(path)).text).toBe(answer.text);
    }
    const entries = await t.sameRecords();
    expect(entries.filter((e) => e.fault_id !== null && e.status === 503).length).toBeGreaterThan(4);
    expect(entries.filter((e) => e.fault_id !== null && e.status === 200).length).toBeGreaterThan(4);
  });
});
