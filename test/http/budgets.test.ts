import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { Schemas, World } from '../../src/api/types.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

// CONTRACT 15, "Budgets, not crashes": memory is bounded by settings, never by the process dying.
const IBAN = 'DE89370400440532013000';
const usageOf = async (app: Express): Promise<Schemas['Usage']> =>
  (await http(app).get('/__control/usage').expect(200)).body;
const worldBytes = async (app: Express): Promise<number> => (await usageOf(app)).budgets.tenant_bytes.used;
const stateOf = async (app: Express): Promise<World> => (await http(app).get('/__control/state')).body;

/** An app whose default tenant has `room` bytes left under MAX_TENANT_BYTES. */
async function appWithRoom(room: number, options: Parameters<typeof testApp>[0] = {}) {
  const seeded = await worldBytes(testApp());
  const app = testApp({ maxTenantBytes: seeded + room, ...options });
  return { app, auth: { Authorization: `Bearer ${await tokenFor(app)}` }, limit: seeded + room };
}

const expectLimit = (response: { status: number; body: Schemas['Problem'] }): void => {
  expect(response.status).toBe(409);
  expect(response.body.code).toBe('limit_reached');
  expect(response.body.detail).toMatch(/MAX_TENANT_BYTES \(\d+\)/);
};

describe('MAX_TENANT_BYTES', () => {
  it('an account create past it answers 409 limit_reached naming the setting; nothing changes, the next id included', async () => {
    const { app, auth, limit } = await appWithRoom(2000);
    const accepted = await http(app)
      .post('/v1/accounts')
      .set(auth)
      .send({ type: 'individual', first_name: 'x'.repeat(1000) });
    expect(accepted.status).toBe(201);
    const before = await stateOf(app);
    const refused = await http(app)
      .post('/v1/accounts')
      .set(auth)
      .send({ type: 'individual', first_name: 'y'.repeat(1000) });
    expectLimit(refused);
    expect(await stateOf(app)).toEqual(before);
    expect(await worldBytes(app)).toBeLessThanOrEqual(limit);
    // a smaller create fits, and gets the id the refused one would have had
    const twin = testApp({ maxTenantBytes: limit + 10_000 });
    const twinAuth = { Authorization: `Bearer ${await tokenFor(twin)}` };
    await http(twin)
      .post('/v1/accounts')
      .set(twinAuth)
      .send({ type: 'individual', first_name: 'x'.repeat(1000) })
      .expect(201);
    const next = await http(app).post('/v1/accounts').set(auth).send({ type: 'individual' }).expect(201);
    const twinNext = await http(twin).post('/v1/accounts').set(twinAuth).send({ type: 'individual' }).expect(201);
    expect(next.body.id).toBe(twinNext.body.id);
  });

  it('an account with wallets and payment methods is measured whole: refused whole', async () => {
    const { app, auth } = await appWithRoom(900);
    const before = await stateOf(app);
    const refused = await http(app)
      .post('/v1/accounts')
      .set(auth)
      .send({
        type: 'individual',
        wallets: [{ wallet_address: `0x${'ab'.repeat(20)}` }],
        payment_methods: [{ type: 'sepa', iban: IBAN, account_holder_name: 'A'.repeat(600) }],
      });
    expectLimit(refused);
    expect(await stateOf(app)).toEqual(before);
  });

  it('a PATCH that grows an account past it answers 409 and changes nothing; one that shrinks it passes', async () => {
    const { app, auth } = await appWithRoom(500);
    const account = (await stateOf(app)).accounts[0]!;
    expectLimit(
      await http(app)
        .patch(`/v1/accounts/${account.id}`)
        .set(auth)
        .send({ city: 'z'.repeat(600) }),
    );
    expect((await stateOf(app)).accounts[0]).toEqual(account);
    await http(app)
      .patch(`/v1/accounts/${account.id}`)
      .set(auth)
      .send({ city: 'z'.repeat(400) })
      .expect(200);
    await http(app).patch(`/v1/accounts/${account.id}`).set(auth).send({ city: 'z' }).expect(200);
  });

  it('wallets, payment method details and orders past it answer 409 limit_reached, and add nothing', async () => {
    const { app, auth } = await appWithRoom(100);
    const before = await stateOf(app);
    const order = before.orders.find((o) => o.status === 'PLACED')!;
    const account = before.accounts.find((a) => a.id === order.account_id)!;
    expectLimit(
      await http(app)
        .post(`/v1/accounts/${account.id}/wallets`)
        .set(auth)
        .send({ chain: 'polygon', wallet_address: `0x${'cd'.repeat(20)}` }),
    );
    expectLimit(
      await http(app)
        .post(`/__control/accounts/${account.id}/payment-method-details`)
        .send({ type: 'sepa', iban: IBAN, account_holder_name: 'A' }),
    );
    const placement = {
      account_id: order.account_id,
      isin: order.isin,
      side: order.side,
      market: order.market,
      amount_of_units: 1,
      value: 10_000_000,
    };
    expectLimit(await http(app).post('/__control/orders').send(placement));
    expect(await stateOf(app)).toEqual(before);
  });

  it('a world loaded through the control plane must fit it as a whole (PUT /__control/state), nothing changed', async () => {
    const { app } = await appWithRoom(100);
    const before = await stateOf(app);
    const bigger = structuredClone(before);
    bigger.accounts[0]!.city = 'w'.repeat(1000);
    expectLimit(await http(app).put('/__control/state').send(bigger));
    expect(await stateOf(app)).toEqual(before);
    await http(app).put('/__control/state').send(before).expect(204);
  });

  it('orders moving on the tenant clock were counted when placed: a full tenant reads them to COMPLETED, its bytes unchanged', async () => {
    const { app } = await appWithRoom(100, {
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret', settings: { order_progression: 'clock' } },
      ],
    });
    const bytes = await worldBytes(app);
    await http(app)
      .post('/__control/clock')
      .send({ advance_seconds: 30 * 24 * 3600 })
      .expect(200);
    const orders = await http(app)
      .get('/v1/orders?limit=100')
      .set({ Authorization: `Bearer ${await tokenFor(app)}` });
    expect(orders.status).toBe(200);
    expect(orders.body.data.some((o: { status: string }) => o.status === 'COMPLETED')).toBe(true);
    expect(await worldBytes(app)).toBe(bytes);
  });

  it('a status forced again and again past an order’s lifecycle counts, and ends in 409 limit_reached with the order unchanged', async () => {
    const { app, auth } = await appWithRoom(2000);
    const order = (await stateOf(app)).orders[0]!;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push(
        (
          await http(app)
            .post(`/__control/orders/${order.id}/status`)
            .send({ status: i % 2 ? 'PLACED' : 'CANCELLED' })
        ).status,
      );
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.at(-1)).toBe(409);
    const before = (await http(app).get(`/__control/orders/${order.id}`)).body;
    expectLimit(
      await http(app)
        .post(`/__control/orders/${order.id}/status`)
        .send({ status: before.order.status === 'PLACED' ? 'CANCELLED' : 'PLACED' }),
    );
    expect((await http(app).get(`/__control/orders/${order.id}`)).body).toEqual(before);
    expect((await http(app).get('/v1/orders?limit=100').set(auth)).status).toBe(200);
  });

  it('account creates of 900 KB end in 409s at the budget, not in growth; a reset makes room again', async () => {
    const app = testApp({ maxTenantBytes: 4 * 1024 * 1024, journalBytes: 256 * 1024 });
    const auth = { Authorization: `Bearer ${await tokenFor(app)}` };
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const response = await http(app)
        .post('/v1/accounts')
        .set(auth)
        .send({ type: 'individual', first_name: String(i).repeat(900_000) });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 409, 409, 409, 409]);
    const usage = await usageOf(app);
    expect(usage.budgets.tenant_bytes.used).toBeLessThanOrEqual(4 * 1024 * 1024);
    // the journal keeps each body's first 8 KiB: its bytes stay far below the bodies'
    expect(usage.budgets.journal_bytes.used).toBeLessThan(256 * 1024);
    await http(app).post('/__control/reset').send({}).expect(204);
    expect(
      (
        await http(app)
          .post('/v1/accounts')
          .set(auth)
          .send({ type: 'individual', first_name: 'z'.repeat(900_000) })
      ).status,
    ).toBe(201);
  });
});

describe('the journal within JOURNAL_BYTES and JOURNAL_TOTAL_BYTES', () => {
  it('refuses no request: past its bytes a tenant keeps its newest entries within the budget', async () => {
    const app = testApp({ journalBytes: 64 * 1024 });
    const auth = { Authorization: `Bearer ${await tokenFor(app)}` };
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const response = await http(app)
        .post('/v1/accounts')
        .set(auth)
        .send({ type: 'individual', first_name: `${i}`.padEnd(7000, '.') });
      expect(response.status).toBe(201);
      ids.push(response.headers['x-request-id']!);
    }
    const kept = (await http(app).get('/__control/requests?since=start&path=/v1/accounts')).body.data as {
      id: string;
    }[];
    expect(kept.length).toBeGreaterThan(2);
    expect(kept.length).toBeLessThan(30);
    expect(kept.map((e) => e.id)).toEqual(ids.slice(-kept.length));
    const usage = await usageOf(app);
    expect(usage.budgets.journal_bytes).toMatchObject({ setting: 'JOURNAL_BYTES', limit: 64 * 1024 });
    expect(usage.budgets.journal_bytes.used).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('GET /__control/usage', () => {
  it('answers the operator each budget with its setting, use and limit, the totals and the largest tenants', async () => {
    const app = testApp({
      maxTenants: 5,
      maxRecordsPerTenant: 500,
      journalSize: 200,
      maxTenantBytes: 1_000_000,
      journalBytes: 1_000_000,
      journalTotalBytes: 3_000_000,
    });
    const auth = { Authorization: `Bearer ${await tokenFor(app)}` };
    await http(app)
      .post('/__control/clients')
      .send({ client_id: 'second', client_secret: 'second-secret' })
      .expect(201);
    await http(app).post('/v1/accounts').set(auth).send({ type: 'individual', first_name: 'Ada' }).expect(201);
    const usage = await usageOf(app);
    expect(usage.budgets).toMatchObject({
      tenants: { setting: 'MAX_TENANTS', used: 2, limit: 5 },
      tenant_records: { setting: 'MAX_RECORDS_PER_TENANT', limit: 500 },
      tenant_bytes: { setting: 'MAX_TENANT_BYTES', limit: 1_000_000 },
      journal_entries: { setting: 'JOURNAL_SIZE', limit: 200 },
      journal_bytes: { setting: 'JOURNAL_BYTES', limit: 1_000_000 },
      journal_total_bytes: { setting: 'JOURNAL_TOTAL_BYTES', limit: 3_000_000 },
    });
    expect(usage.largest.by_world_bytes.map((t) => t.client_id)).toEqual(['sandbox-client', 'second']);
    expect(usage.largest.by_world_bytes[0]!.world_bytes).toBe(usage.budgets.tenant_bytes.used);
    expect(usage.totals.world_bytes).toBe(usage.largest.by_world_bytes.reduce((sum, t) => sum + t.world_bytes, 0));
    expect(usage.heap.limit_bytes).toBeGreaterThan(0);
    expect(usage.heap.budgeted_bytes).toBeGreaterThan(0);
  });

  it('lists at most 10 tenants, largest first', async () => {
    const app = testApp();
    for (let i = 0; i < 12; i++)
      await http(app)
        .post('/__control/clients')
        .send({ client_id: `c${i}`, client_secret: 'secret' })
        .expect(201);
    const usage = await usageOf(app);
    expect(usage.budgets.tenants.used).toBe(13);
    expect(usage.largest.by_world_bytes).toHaveLength(10);
    const bytes = usage.largest.by_world_bytes.map((t) => t.world_bytes);
    expect(bytes).toEqual([...bytes].sort((a, b) => b - a));
  });

  it("is the operator's alone: a partner's control token answers 403", async () => {
    const app = testApp({
      controlToken: 'operator-secret',
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'acme', client_secret: 'acme-secret', scopes: ['read:accounts', 'control'] },
      ],
    });
    const acme = await tokenFor(app, {
      client_id: 'acme',
      client_secret: 'acme-secret',
      scope: 'openid offline control',
    });
    const refused = await http(app).get('/__control/usage').set('Authorization', `Bearer ${acme}`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('operator_only');
    expect(
      (
        await http(app)
          .get('/__control/usage')
          .set('Authorization', `Bearer ${acme}`)
          .set('X-Client-Id', 'sandbox-client')
      ).status,
    ).toBe(403);
    expect((await http(app).get('/__control/usage').set('Authorization', 'Bearer operator-secret')).status).toBe(200);
  });
});
