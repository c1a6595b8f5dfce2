import { describe, expect, it } from 'vitest';
import { ControlError, type FakeServer, type Schemas, type World } from '../../src/index.js';
import { stoppedAfterEachTest } from '../support/servers.js';

type OrderPlacement = Schemas['OrderPlacement'];

const start = stoppedAfterEachTest();

/** A BUY any seeded world accepts: an account with a primary wallet and payment method, a subscribeable asset at its minimum. */
function buyIn(world: World): OrderPlacement {
  const account = world.accounts.find(
    (a) =>
      world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
      world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
  )!;
  const asset = world.assets.find((a) => a.subscribeable)!;
  const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)!.min_investment;
  return {
    account_id: account.id,
    isin: asset.isin,
    side: 'BUY',
    market: 'PRIMARY',
    amount_of_units: 2,
    value: minimum ?? 100_000,
  };
}

async function listedOrder(server: FakeServer, orderId: string, clientId?: string) {
  const response = await fetch(`${server.url}/v1/orders?limit=1000`, {
    headers: { authorization: `Bearer ${await server.token(clientId)}` },
  });
  const body = (await response.json()) as { data: Schemas['Order'][] };
  return body.data.find((o) => o.id === orderId);
}

function thrown(action: () => unknown): { status?: number; code?: string } {
  try {
    action();
  } catch (error) {
    return error as { status?: number; code?: string };
  }
  throw new Error('expected the helper to throw');
}

describe('FakeServer order helpers', () => {
  it('placeOrderSync and advanceOrderSync drive a BUY to COMPLETED, which the API shows at every step', async () => {
    const server = await start();
    const order = server.placeOrderSync(buyIn(server.state()));
    expect(order).toMatchObject({
      status: 'PLACED',
      payment_transaction_reference: null,
      settlement_transaction_hash: null,
    });
    expect(await listedOrder(server, order.id)).toMatchObject({ status: 'PLACED' });

    const statuses = [];
    for (let step = 0; step < 3; step++) {
      const advanced = server.advanceOrderSync(order.id);
      expect((await listedOrder(server, order.id))?.status).toBe(advanced.status);
      statuses.push(advanced.status);
    }
    expect(statuses).toEqual(['AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED']);
    expect(await listedOrder(server, order.id)).toMatchObject({
      payment_transaction_reference: expect.stringMatching(/^PAY-[A-Z0-9]{12}$/),
      settlement_transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(thrown(() => server.advanceOrderSync(order.id))).toMatchObject({
      status: 409,
      code: 'order_not_advanceable',
    });
  });

  it('setOrderStatusSync forces a status with consistent fields', async () => {
    const server = await start();
    const order = server.placeOrderSync(buyIn(server.state()));
    expect(server.setOrderStatusSync(order.id, 'AWAITING_TOKEN_DELIVERY')).toMatchObject({
      status: 'AWAITING_TOKEN_DELIVERY',
      payment_transaction_reference: expect.stringMatching(/^PAY-/),
      settlement_transaction_hash: null,
    });
    expect(server.setOrderStatusSync(order.id, 'PLACED')).toMatchObject({
      status: 'PLACED',
      payment_transaction_reference: null,
    });
  });

  it('a broken rule throws an error with its status and code, and changes nothing', async () => {
    const server = await start();
    const before = JSON.stringify(server.state());
    const world = server.state();
    const walletless = world.accounts.find((a) => !world.wallets.some((w) => w.account_id === a.id && w.is_primary))!;
    expect(thrown(() => server.placeOrderSync({ ...buyIn(world), account_id: walletless.id }))).toMatchObject({
      status: 422,
      code: 'no_primary_wallet',
    });
    expect(thrown(() => server.placeOrderSync({ ...buyIn(world), amount_of_units: 0 }))).toMatchObject({
      status: 422,
      code: 'validation_error',
    });
    expect(thrown(() => server.placeOrderSync({ ...buyIn(world), isin: 'XX0000000000' }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(JSON.stringify(server.state())).toBe(before);
  });

  it('clientId picks the tenant: the order is that client’s only', async () => {
    const server = await start({
      clients: [
        { client_id: 'partner-a', client_secret: 'secret-a' },
        { client_id: 'partner-b', client_secret: 'secret-b' },
      ],
    });
    const order = server.placeOrderSync(buyIn(server.state('partner-b')), 'partner-b');
    expect(await listedOrder(server, order.id, 'partner-b')).toBeDefined();
    expect(await listedOrder(server, order.id, 'partner-a')).toBeUndefined();
    expect(thrown(() => server.advanceOrderSync(order.id))).toMatchObject({ status: 404, code: 'not_found' });
    expect(server.advanceOrderSync(order.id, 'partner-b').status).toBe('AWAITING_PAYMENT');
    expect(server.setOrderStatusSync(order.id, 'COMPLETED', 'partner-b').status).toBe('COMPLETED');
    expect(thrown(() => server.placeOrderSync(buyIn(server.state()), 'nobody'))).toMatchObject({
      status: 404,
      code: 'client_not_found',
    });
  });

  it('the order returned is a copy: changing it changes nothing in the server', async () => {
    const server = await start();
    const order = server.placeOrderSync(buyIn(server.state()));
    order.status = 'COMPLETED';
    expect(server.state().orders.find((o) => o.id === order.id)?.status).toBe('PLACED');
  });

  it('control.placeOrder places over HTTP by the same rules: the order it answers is in the world, a broken rule a ControlError', async () => {
    const server = await start();
    const world = server.state();
    const order = await server.control.placeOrder(buyIn(world));
    expect(server.state().orders.find((o) => o.id === order.id)).toEqual(order);
    const walletless = world.accounts.find((a) => !world.wallets.some((w) => w.account_id === a.id && w.is_primary))!;
    const refused = await server.control
      .placeOrder({ ...buyIn(world), account_id: walletless.id })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ControlError);
    expect(refused).toMatchObject({ status: 422, problem: { code: 'no_primary_wallet' } });
    expect(thrown(() => server.placeOrderSync({ ...buyIn(world), account_id: walletless.id }))).toMatchObject({
      status: 422,
      code: 'no_primary_wallet',
    });
  });

  it('names each call in this process once, `…Sync`: `placeOrder` and the like are `fake.control`’s, over HTTP', async () => {
    const server = await start();
    expect(['placeOrder', 'advanceOrder', 'setOrderStatus'].filter((name) => name in server)).toEqual([]);
  });
});
