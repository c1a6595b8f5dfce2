import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_PAYMENT_DETAILS } from '../../src/domain/platform.js';
import type { Account, AssetRecord, Order, OrderRecord, OrderStatus, World } from '../../src/api/types.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

const REFERENCE = /^PAY-[A-Z0-9]{12}$/;
const HASH = /^0x[0-9a-f]{64}$/;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

// One app; every test gets a tenant of its own (a new client seeded from the fixtures), which is much faster than an app.
let app: Express;
let tenants = 0;
beforeAll(() => {
  app = testApp();
});

/** A fresh tenant, and helpers acting as it on the control plane and the API. */
async function fresh() {
  const clientId = `control-orders-test-${++tenants}`;
  await http(app).post('/__control/clients').send({ client_id: clientId, client_secret: 'secret' }).expect(201);
  const auth = { Authorization: `Bearer ${await tokenFor(app, { client_id: clientId, client_secret: 'secret' })}` };
  const state = async () => (await http(app).get('/__control/state').set('X-Client-Id', clientId)).body as World;
  const world = await state();

  const primaryWalletOf = (a: Account) => world.wallets.find((w) => w.account_id === a.id && w.is_primary);
  const primaryPaymentMethodOf = (a: Account) =>
    world.payment_method_details.find((p) => p.account_id === a.id && p.is_primary);
  const minInvestmentOf = (a: AssetRecord) =>
    world.share_classes.find((s) => s.id === a.share_class_id)!.min_investment;
  const offeringsOf = (a: AssetRecord) => world.custom_offerings.filter((o) => o.asset_id === a.id);
  const asset = (where: (a: AssetRecord) => boolean) => {
    const found = world.assets.find(where);
    if (!found) throw new Error('the seeded world has no such asset');
    return found;
  };
  const account = (where: (a: Account) => boolean) => {
    const found = world.accounts.find(where);
    if (!found) throw new Error('the seeded world has no such account');
    return found;
  };
  const trader = account((a) => primaryWalletOf(a) !== undefined && primaryPaymentMethodOf(a) !== undefined);
  const subscribeable = asset((a) => a.subscribeable);

  const place = (fields: Record<string, unknown> = {}) =>
    http(app)
      .post('/__control/orders')
      .set('X-Client-Id', clientId)
      .send({
        account_id: trader.id,
        isin: subscribeable.isin,
        side: 'BUY',
        market: 'PRIMARY',
        amount_of_units: 5,
        value: minInvestmentOf(subscribeable) ?? 100_000,
        ...fields,
      });
  const advance = (id: string) => http(app).post(`/__control/orders/${id}/advance`).set('X-Client-Id', clientId);
  const force = (id: string, status: string) =>
    http(app).post(`/__control/orders/${id}/status`).set('X-Client-Id', clientId).send({ status });
  const listed = async (id: string, accountId: string): Promise<Order | undefined> => {
    const response = await http(app).get('/v1/orders').query({ account_id: accountId, limit: 1000 }).set(auth);
    expect(response.status).toBe(200);
    return (response.body.data as Order[]).find((o) => o.id === id);
  };
  const placed = async (fields: Record<string, unknown> = {}) => {
    const response = await place(fields);
    expect(response.status).toBe(201);
    return response.body as OrderRecord;
  };

  return {
    clientId,
    auth,
    state,
    world,
    trader,
    subscribeable,
    asset,
    account,
    primaryWalletOf,
    primaryPaymentMethodOf,
    minInvestmentOf,
    offeringsOf,
    place,
    placed,
    advance,
    force,
    listed,
  };
}

describe('POST /__control/orders', () => {
  it('places a primary BUY: 201, PLACED, created by the tenant clock, paid from the primary payment method to the platform, delivered to the primary wallet', async () => {
    const t = await fresh();
    const now = '2027-05-06T07:08:09.000Z';
    await http(app).post('/__control/clock').set('X-Client-Id', t.clientId).send({ now }).expect(200);
    const response = await t.place({ amount_of_units: 9 });
    expect(response.status).toBe(201);
    const paymentMethod = t.primaryPaymentMethodOf(t.trader)!;
    expect(response.body).toMatchObject({
      side: 'BUY',
      market: 'PRIMARY',
      status: 'PLACED',
      amount_of_units: 9,
      currency: t.subscribeable.currency,
      isin: t.subscribeable.isin,
      account_id: t.trader.id,
      settlement_transaction_hash: null,
      payment_transaction_reference: null,
      custom_offering_id: null,
      sender_payment_method_details: {
        type: 'sepa',
        iban: paymentMethod.iban,
        account_holder_name: paymentMethod.account_holder_name,
      },
      recipient_payment_method_details: PLATFORM_PAYMENT_DETAILS,
      recipient_wallet_address: t.primaryWalletOf(t.trader)!.wallet_address,
    });
    const created = Date.parse(response.body.created);
    expect(created - Date.parse(now)).toBeGreaterThanOrEqual(0);
    expect(created - Date.parse(now)).toBeLessThan(5_000);
    // The order is the tenant's newest (the token of t.auth expired when the clock jumped ahead).
    expect((await t.state()).orders.at(-1)).toEqual(response.body);
  });

  it('places a SELL: the platform pays out to the primary payment method; no wallet', async () => {
    const t = await fresh();
    const response = await t.place({ side: 'SELL', isin: t.asset((a) => a.redeemable).isin });
    expect(response.status).toBe(201);
    const paymentMethod = t.primaryPaymentMethodOf(t.trader)!;
    expect(response.body.sender_payment_method_details).toEqual(PLATFORM_PAYMENT_DETAILS);
    expect(response.body.recipient_payment_method_details).toEqual({
      type: 'sepa',
      iban: paymentMethod.iban,
      account_holder_name: paymentMethod.account_holder_name,
    });
    expect(response.body.recipient_wallet_address).toBeNull();
  });

  it('takes the asset’s currency when none is given', async () => {
    const t = await fresh();
    const target = t.asset((a) => a.tradeable && a.currency !== 'EUR');
    const response = await t.place({ isin: target.isin, market: 'SECONDARY' });
    expect(response.status).toBe(201);
    expect(response.body.currency).toBe(target.currency);
  });

  it('keeps a custom offering of the asset', async () => {
    const t = await fresh();
    const host = t.asset((a) => a.tradeable && t.offeringsOf(a).length > 0);
    const offering = t.offeringsOf(host)[0]!;
    const response = await t.place({ isin: host.isin, market: 'SECONDARY', custom_offering_id: offering.id });
    expect(response.status).toBe(201);
    expect(response.body.custom_offering_id).toBe(offering.id);
  });

  type Refusal = [
    code: string,
    path: string,
    fields: (t: Awaited<ReturnType<typeof fresh>>) => Record<string, unknown>,
  ];
  const refusals: Refusal[] = [
    ['asset_not_subscribeable', '/isin', (t) => ({ isin: t.asset((a) => !a.subscribeable).isin })],
    ['asset_not_redeemable', '/isin', (t) => ({ side: 'SELL', isin: t.asset((a) => !a.redeemable).isin })],
    ['asset_not_tradeable', '/isin', (t) => ({ market: 'SECONDARY', isin: t.asset((a) => !a.tradeable).isin })],
    ['currency_mismatch', '/currency', (t) => ({ currency: t.subscribeable.currency === 'EUR' ? 'USD' : 'EUR' })],
    [
      'below_min_investment',
      '/value',
      (t) => {
        const target = t.asset((a) => a.subscribeable && t.minInvestmentOf(a) !== null);
        return { isin: target.isin, value: t.minInvestmentOf(target)! - 1 };
      },
    ],
    [
      'no_primary_wallet',
      '/account_id',
      (t) => ({ account_id: t.account((a) => t.primaryWalletOf(a) === undefined).id }),
    ],
    [
      'custom_offering_mismatch',
      '/custom_offering_id',
      (t) => {
        const host = t.asset((a) => t.offeringsOf(a).length > 0);
        const target = t.asset((a) => a.subscribeable && a.id !== host.id);
        return {
          isin: target.isin,
          value: t.minInvestmentOf(target) ?? 1,
          custom_offering_id: t.offeringsOf(host)[0]!.id,
        };
      },
    ],
    ['custom_offering_mismatch', '/custom_offering_id', () => ({ custom_offering_id: UNKNOWN_ID })],
  ];

  it.each(refusals)('refuses with 422 %s naming %s, and places nothing', async (code, path, fields) => {
    const t = await fresh();
    const response = await t.place(fields(t));
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({
      status: 422,
      code,
      errors: [{ location: 'body', path, message: expect.any(String) }],
    });
    expect((await t.state()).orders).toEqual(t.world.orders);
  });

  it('refuses a BUY of an account without a primary payment method with 422 no_primary_payment_method', async () => {
    const t = await fresh();
    const world = structuredClone(t.world);
    for (const details of world.payment_method_details)
      if (details.account_id === t.trader.id) details.is_primary = false;
    await http(app).put('/__control/state').set('X-Client-Id', t.clientId).send(world).expect(204);
    const response = await t.place();
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      code: 'no_primary_payment_method',
      errors: [{ location: 'body', path: '/account_id' }],
    });
    expect((await t.state()).orders).toEqual(world.orders);
  });

  it('answers 404 not_found for an unknown account or ISIN', async () => {
    const t = await fresh();
    for (const fields of [{ account_id: UNKNOWN_ID }, { isin: 'XX0000000000' }]) {
      const response = await t.place(fields);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect((await t.state()).orders).toEqual(t.world.orders);
  });

  it.each([
    ['a value of 0', { value: 0 }, '/value'],
    ['a fractional amount of units', { amount_of_units: 1.5 }, '/amount_of_units'],
    ['an unknown field', { price: 3 }, '/price'],
    ['a lower-case currency', { currency: 'eur' }, '/currency'],
  ])('refuses %s with 422 validation_error', async (_what, fields, path) => {
    const t = await fresh();
    const response = await t.place(fields);
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('validation_error');
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'body', path })]));
  });
});

describe('GET /__control/orders', () => {
  it('filters as GET /v1/orders does, pages with skip and limit, and counts every match in total', async () => {
    const { clientId, world } = await fresh();
    const list = async (query: Record<string, string | number>) => {
      const response = await http(app).get('/__control/orders').query(query).set('X-Client-Id', clientId);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body as { data: { order: Order }[]; total: number };
    };
    const all = await list({});
    expect(all.total).toBe(world.orders.length);
    expect(all.data.map((o) => o.order.id)).toEqual(world.orders.map((o) => o.id));
    const placedOnes = world.orders.filter((o) => o.status === 'PLACED' && o.side === 'BUY');
    const filtered = await list({ order_status: 'PLACED', side: 'BUY' });
    expect(filtered.total).toBe(placedOnes.length);
    expect(filtered.data.map((o) => o.order.id)).toEqual(placedOnes.map((o) => o.id));
    const page = await list({ skip: 2, limit: 3 });
    expect(page).toMatchObject({ total: world.orders.length });
    expect(page.data.map((o) => o.order.id)).toEqual(world.orders.slice(2, 5).map((o) => o.id));
    const account = world.orders[0]!.account_id;
    expect((await list({ account_id: account })).data.every((o) => o.order.account_id === account)).toBe(true);
    const refused = await http(app).get('/__control/orders').query({ limit: 0 }).set('X-Client-Id', clientId);
    expect(refused.status).toBe(422);
  });
});

describe('control-plane tenant scoping of orders', () => {
  it('X-Client-Id places in that tenant only; the other tenant’s token never sees the order', async () => {
    const [mine, theirs] = [await fresh(), await fresh()];
    const order = await mine.placed();
    expect(await mine.listed(order.id, order.account_id)).toBeDefined();
    expect(await theirs.listed(order.id, order.account_id)).toBeUndefined();
    const advanced = await theirs.advance(order.id);
    expect(advanced.status).toBe(404);
    expect((await theirs.force(order.id, 'COMPLETED')).status).toBe(404);
  });

  it('?client_id= names the tenant when the header is absent', async () => {
    const t = await fresh();
    const response = await http(app).post('/__control/orders').query({ client_id: t.clientId }).send({
      account_id: t.trader.id,
      isin: t.subscribeable.isin,
      side: 'SELL',
      market: 'PRIMARY',
      amount_of_units: 1,
      value: 1,
    });
    expect(response.status).toBe(201);
    expect((await t.state()).orders.at(-1)!.id).toBe(response.body.id);
  });

  it('without either, the default client’s tenant', async () => {
    const t = await fresh();
    const response = await http(app).post('/__control/orders').send({
      account_id: t.trader.id,
      isin: t.subscribeable.isin,
      side: 'SELL',
      market: 'PRIMARY',
      amount_of_units: 1,
      value: 1,
    });
    expect(response.status).toBe(201);
    const defaultState = (await http(app).get('/__control/state')).body as World;
    expect(defaultState.orders.some((o) => o.id === response.body.id)).toBe(true);
    expect((await t.state()).orders.some((o) => o.id === response.body.id)).toBe(false);
  });

  it('an unknown client answers 404 client_not_found', async () => {
    const t = await fresh();
    const response = await http(app).post('/__control/orders').set('X-Client-Id', 'nobody').send({
      account_id: t.trader.id,
      isin: t.subscribeable.isin,
      side: 'SELL',
      market: 'PRIMARY',
      amount_of_units: 1,
      value: 1,
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('client_not_found');
  });
});

/** An order as GET /v1/orders shows it: status, and whether each side effect is there (in its format). */
const progressOf = (order: Order | OrderRecord | undefined) => ({
  status: order?.status,
  payment_transaction_reference:
    order?.payment_transaction_reference === null
      ? null
      : order?.payment_transaction_reference?.match(REFERENCE)
        ? 'PAY-…'
        : order?.payment_transaction_reference,
  settlement_transaction_hash:
    order?.settlement_transaction_hash === null
      ? null
      : order?.settlement_transaction_hash?.match(HASH)
        ? '0x…'
        : order?.settlement_transaction_hash,
});

describe('POST /__control/orders/{order_id}/advance', () => {
  it('a partner test places a BUY, advances it to COMPLETED, and sees each state with its fields in GET /v1/orders', async () => {
    const t = await fresh();
    const order = await t.placed();
    const seen = [progressOf(await t.listed(order.id, order.account_id))];
    for (let step = 0; step < 3; step++) {
      const response = await t.advance(order.id);
      expect(response.status).toBe(200);
      const listed = await t.listed(order.id, order.account_id);
      expect(progressOf(listed)).toEqual(progressOf(response.body));
      seen.push(progressOf(listed));
    }
    expect(seen).toEqual([
      { status: 'PLACED', payment_transaction_reference: null, settlement_transaction_hash: null },
      { status: 'AWAITING_PAYMENT', payment_transaction_reference: null, settlement_transaction_hash: null },
      { status: 'AWAITING_TOKEN_DELIVERY', payment_transaction_reference: 'PAY-…', settlement_transaction_hash: null },
      { status: 'COMPLETED', payment_transaction_reference: 'PAY-…', settlement_transaction_hash: '0x…' },
    ]);
  });

  it('walks a SELL through AWAITING_TOKEN_DELIVERY, then AWAITING_PAYMENT, to COMPLETED', async () => {
    const t = await fresh();
    const order = await t.placed({ side: 'SELL', isin: t.asset((a) => a.redeemable).isin });
    const seen = [];
    for (let step = 0; step < 3; step++) seen.push(progressOf((await t.advance(order.id)).body));
    expect(seen).toEqual([
      { status: 'AWAITING_TOKEN_DELIVERY', payment_transaction_reference: null, settlement_transaction_hash: null },
      { status: 'AWAITING_PAYMENT', payment_transaction_reference: null, settlement_transaction_hash: '0x…' },
      { status: 'COMPLETED', payment_transaction_reference: 'PAY-…', settlement_transaction_hash: '0x…' },
    ]);
  });

  it('keeps the values set on earlier steps', async () => {
    const t = await fresh();
    const order = await t.placed();
    await t.advance(order.id);
    const reference = (await t.advance(order.id)).body.payment_transaction_reference;
    expect((await t.advance(order.id)).body.payment_transaction_reference).toBe(reference);
  });

  it.each(['COMPLETED', 'CANCELLED'] as const)(
    'answers 409 order_not_advanceable at %s, the order unchanged',
    async (status) => {
      const t = await fresh();
      const order = t.world.orders.find((o) => o.status === status)!;
      const response = await t.advance(order.id);
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ status: 409, code: 'order_not_advanceable' });
      expect((await t.state()).orders.find((o) => o.id === order.id)).toEqual(order);
    },
  );

  it('answers 404 not_found for an unknown order', async () => {
    const t = await fresh();
    const response = await t.advance(UNKNOWN_ID);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });
});

describe('POST /__control/orders/{order_id}/status', () => {
  it('forces any status with the side-effect fields of the way there, as GET /v1/orders shows', async () => {
    const t = await fresh();
    const order = await t.placed();
    const expected: [OrderStatus, string | null, string | null][] = [
      ['COMPLETED', 'PAY-…', '0x…'],
      ['AWAITING_TOKEN_DELIVERY', 'PAY-…', null],
      ['PLACED', null, null],
      ['AWAITING_PAYMENT', null, null],
    ];
    for (const [status, reference, hash] of expected) {
      const response = await t.force(order.id, status);
      expect(response.status).toBe(200);
      const progress = { status, payment_transaction_reference: reference, settlement_transaction_hash: hash };
      expect(progressOf(response.body)).toEqual(progress);
      expect(progressOf(await t.listed(order.id, order.account_id))).toEqual(progress);
    }
  });

  it('keeps a value already set on the way', async () => {
    const t = await fresh();
    const order = await t.placed();
    const reference = (await t.force(order.id, 'AWAITING_TOKEN_DELIVERY')).body.payment_transaction_reference;
    expect((await t.force(order.id, 'COMPLETED')).body.payment_transaction_reference).toBe(reference);
  });

  it('CANCELLED keeps the fields of the status it leaves; a cancelled order forced back to PLACED can be cancelled again', async () => {
    const t = await fresh();
    const order = await t.placed();
    const delivering = (await t.force(order.id, 'AWAITING_TOKEN_DELIVERY')).body as OrderRecord;
    const cancelled = await t.force(order.id, 'CANCELLED');
    expect(cancelled.body).toEqual({ ...delivering, status: 'CANCELLED' });
    await t.force(order.id, 'PLACED').expect(200);
    const response = await http(app).delete(`/v1/orders/${order.id}/`).set(t.auth);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'CANCELLED',
      payment_transaction_reference: null,
      settlement_transaction_hash: null,
    });
  });

  it('answers 422 validation_error for a status that is not one, and 404 for an unknown order', async () => {
    const t = await fresh();
    const order = await t.placed();
    const invalid = await t.force(order.id, 'SHIPPED');
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('validation_error');
    expect((await t.force(UNKNOWN_ID, 'COMPLETED')).status).toBe(404);
  });
});
