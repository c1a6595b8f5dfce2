// A partner's suite: its own tenant per worker, the world reset before each test, orders driven from the test.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { workerTenant } from './tenant.js';

type ListedOrder = { id: string; payment_transaction_reference?: string; settlement_transaction_hash?: string };

let tenant: Awaited<ReturnType<typeof workerTenant>>;
let token: string;
const api = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${tenant.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...init.headers },
  });
  return { status: response.status, body: (await response.json()) as { data: ListedOrder[] } };
};

beforeAll(async () => {
  tenant = await workerTenant();
  token = await tenant.token(); // one token, reused until it expires: the report checks that
});
beforeEach(() => tenant.control.reset());

describe('my integration with the investment platform', () => {
  it('sees a BUY move through its lifecycle', async () => {
    const world = await tenant.control.snapshot();
    const asset = world.assets.find((a) => a.subscribeable)!;
    const account = world.accounts.find(
      (a) =>
        world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
        world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
    )!;
    const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)!.min_investment ?? 1;

    const order = await tenant.control.placeOrder({
      account_id: account.id,
      isin: asset.isin,
      side: 'BUY',
      market: 'PRIMARY',
      amount_of_units: 10,
      value: minimum,
    });
    const seen = [order.status];
    while (seen.at(-1) !== 'COMPLETED') seen.push((await tenant.control.advanceOrder(order.id)).status);
    expect(seen).toEqual(['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED']);

    const { body } = await api(`/v1/orders?account_id=${account.id}&order_status=COMPLETED&limit=1000`);
    const listed = body.data.find((o) => o.id === order.id);
    expect(listed?.payment_transaction_reference).toMatch(/\S/);
    expect(listed?.settlement_transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('retries a flaky orders list, as the journal proves', async () => {
    await tenant.control.addFault({ method: 'GET', path: '/v1/orders', status: 503, count: 2, retry_after_seconds: 0 });
    let response: Awaited<ReturnType<typeof api>> | undefined;
    for (let attempt = 1; attempt <= 5; attempt++) {
      response = await api('/v1/orders?limit=1000');
      if (response.status !== 503) break;
    }
    expect(response!.status).toBe(200);
    const calls = await tenant.control.requests({ method: 'GET', path: '/v1/orders' });
    expect(calls.map((c) => c.status)).toEqual([503, 503, 200]);
    // the same, as an assertion that prints what was sent instead when it fails
    await expect(tenant.control).toHaveReceived({ operation: 'listOrders', status: 503 }, { exactly: 2 });
  });

  it('sends what the platform expects, and nothing that would hurt in production', async () => {
    const world = await tenant.control.snapshot();
    const order = world.orders.find((o) => o.status === 'PLACED')!;
    expect((await api(`/v1/orders/${order.id}/`, { method: 'DELETE' })).status).toBe(200);
    await expect(tenant.control).toHaveReceived(
      { operation: 'cancelOrder', path: `/v1/orders/${order.id}/`, status: 200 },
      { exactly: 1 },
    );
    await expect(tenant.control).not.toHaveReceived({ operation: 'listOrders' });
    await expect(tenant.control).toHaveNoReadinessFindings();
  });
});
