import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Order, OrderRecord, OrderStatus, World } from '../../src/api/types.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

// One app; every test gets a tenant of its own (a new client seeded from the fixtures), which is much faster than an app.
let app: Express;
let tenants = 0;
beforeAll(() => {
  app = testApp();
});

/** A fresh tenant: its client id, a token of it, its seeded world, and helpers acting as it. */
async function fresh() {
  const clientId = `orders-test-${++tenants}`;
  await http(app).post('/__control/clients').send({ client_id: clientId, client_secret: 'secret' }).expect(201);
  const auth = { Authorization: `Bearer ${await tokenFor(app, { client_id: clientId, client_secret: 'secret' })}` };
  const world = (await http(app).get('/__control/state').set('X-Client-Id', clientId)).body as World;
  const cancel = (id: string) => http(app).delete(`/v1/orders/${id}/`).set(auth);
  const listed = async (id: string, account_id: string): Promise<Order | undefined> => {
    const response = await http(app).get('/v1/orders').query({ account_id, limit: 1000 }).set(auth);
    expect(response.status).toBe(200);
    return (response.body.data as Order[]).find((o) => o.id === id);
  };
  const seeded = (status: OrderStatus): OrderRecord => {
    const order = world.orders.find((o) => o.status === status);
    if (!order) throw new Error(`the seeded world has no ${status} order`);
    return order;
  };
  return { clientId, auth, world, cancel, listed, seeded };
}

const listItemOf = ({
  sender_payment_method_details: _s,
  recipient_payment_method_details: _r,
  recipient_wallet_address: _w,
  ...item
}: OrderRecord): Order => item;

async function placeFor(clientId: string, world: World): Promise<OrderRecord> {
  const primaryWallet = new Set(world.wallets.filter((w) => w.is_primary).map((w) => w.account_id));
  const primaryPayment = new Set(world.payment_method_details.filter((p) => p.is_primary).map((p) => p.account_id));
  const account = world.accounts.find((a) => primaryWallet.has(a.id) && primaryPayment.has(a.id))!;
  const asset = world.assets.find((a) => a.tradeable)!;
  const response = await http(app).post('/__control/orders').set('X-Client-Id', clientId).send({
    account_id: account.id,
    isin: asset.isin,
    side: 'BUY',
    market: 'SECONDARY',
    amount_of_units: 1,
    value: 1000,
  });
  expect(response.status).toBe(201);
  return response.body as OrderRecord;
}

describe('DELETE /v1/orders/{order_id}/', () => {
  it.each(['PLACED', 'AWAITING_PAYMENT'] as const)(
    'cancels a %s order: 200, the order CANCELLED with its payment and settlement details',
    async (status) => {
      const { cancel, listed, seeded } = await fresh();
      const order = seeded(status);
      const response = await cancel(order.id);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...order, status: 'CANCELLED' });
      for (const field of [
        'sender_payment_method_details',
        'recipient_payment_method_details',
        'recipient_wallet_address',
      ]) {
        expect(response.body).toHaveProperty(field);
      }
      expect(await listed(order.id, order.account_id)).toEqual(listItemOf({ ...order, status: 'CANCELLED' }));
    },
  );

  it.each(['AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'] as const)(
    'refuses a %s order: 409 order_not_cancellable, the order unchanged',
    async (status) => {
      const { cancel, listed, seeded } = await fresh();
      const order = seeded(status);
      const response = await cancel(order.id);
      expect(response.status).toBe(409);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 409, code: 'order_not_cancellable' });
      expect(response.body.detail).toContain(status);
      expect(await listed(order.id, order.account_id)).toEqual(listItemOf(order));
    },
  );

  it('answers 404 not_found for an unknown order id', async () => {
    const { cancel } = await fresh();
    const response = await cancel('00000000-0000-4000-8000-000000000000');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });

  it('answers 404 for another tenant’s order, which stays PLACED there', async () => {
    const { cancel } = await fresh();
    const other = await fresh();
    const theirs = await placeFor(other.clientId, other.world);
    const response = await cancel(theirs.id);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
    const state = (await http(app).get('/__control/state').set('X-Client-Id', other.clientId)).body as World;
    expect(state.orders.find((o) => o.id === theirs.id)?.status).toBe('PLACED');
  });

  it('answers 403 insufficient_scope to a token without write:orders, and cancels nothing', async () => {
    const { seeded } = await fresh();
    await http(app)
      .post('/__control/clients')
      .send({ client_id: 'reader', client_secret: 'secret-r', scopes: ['read:orders'] })
      .expect(201);
    const token = await tokenFor(app, { client_id: 'reader', client_secret: 'secret-r' });
    const order = seeded('PLACED');
    const response = await http(app).delete(`/v1/orders/${order.id}/`).set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('insufficient_scope');
    const state = (await http(app).get('/__control/state').set('X-Client-Id', 'reader')).body as World;
    expect(state.orders.find((o) => o.id === order.id)?.status).toBe('PLACED');
  });

  it('answers 401 without a token', async () => {
    const { seeded } = await fresh();
    const response = await http(app).delete(`/v1/orders/${seeded('PLACED').id}/`);
    expect(response.status).toBe(401);
  });

  it('needs the trailing slash: without it the path is unknown (404 route_not_found, with a hint), and nothing is cancelled', async () => {
    const { auth, listed, seeded } = await fresh();
    const order = seeded('PLACED');
    const response = await http(app).delete(`/v1/orders/${order.id}`).set(auth);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('route_not_found');
    expect(response.body.detail).toContain('trailing slash');
    expect((await listed(order.id, order.account_id))?.status).toBe('PLACED');
  });

  it('answers 422 validation_error for an order id that is not a UUID', async () => {
    const { cancel } = await fresh();
    const response = await cancel('not-a-uuid');
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('validation_error');
  });
});
