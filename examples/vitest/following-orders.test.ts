// A partner's sync job follows orders it did not place: end investors place them in the platform's app, the platform
// moves them on. order_progression makes the fake's orders move by themselves (docs/control-plane.md, "Testing a client
// that follows orders"); these tests run the same way every time.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { workerTenant } from './tenant.js';

let tenant: Awaited<ReturnType<typeof workerTenant>>;
beforeAll(async () => {
  tenant = await workerTenant();
});
beforeEach(() => tenant.control.reset());
afterEach(() => tenant.control.updateClient(tenant.clientId, { settings: { order_progression: 'manual' } }));

/** The partner's code under test: one pass of a sync job that polls the orders list and remembers every status. */
function syncJob(url: string, token: (options?: { fresh?: boolean }) => Promise<string>) {
  const seen = new Map<string, string[]>();
  const completed = new Set<string>();
  return {
    seen,
    completed,
    async runOnce() {
      const list = async (bearer: string) =>
        fetch(`${url}/v1/orders?limit=1000`, { headers: { authorization: `Bearer ${bearer}` } });
      let answer = await list(await token());
      // a token the platform no longer takes (expired, revoked): one fresh token, one more try
      if (answer.status === 401) answer = await list(await token({ fresh: true }));
      for (const order of ((await answer.json()) as { data: { id: string; status: string }[] }).data) {
        const statuses = seen.get(order.id) ?? [];
        if (statuses.at(-1) !== order.status) seen.set(order.id, [...statuses, order.status]);
        if (order.status === 'COMPLETED') completed.add(order.id);
      }
    },
  };
}

/** An order an end investor placed in the platform's app (here: through the control plane). */
async function investorPlacesAnOrder() {
  const world = await tenant.control.snapshot();
  const asset = world.assets.find((a) => a.subscribeable)!;
  const account = world.accounts.find(
    (a) =>
      world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
      world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
  )!;
  const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)!.min_investment ?? 1;
  return tenant.control.placeOrder({
    account_id: account.id,
    isin: asset.isin,
    side: 'BUY',
    market: 'PRIMARY',
    amount_of_units: 10,
    value: minimum,
  });
}

describe('a sync job that follows orders', () => {
  it('polls: every status shows up, with zero waiting', async () => {
    // an order takes its next step once one list answer has shown it
    await tenant.control.updateClient(tenant.clientId, {
      settings: { order_progression: 'polls', order_polls_per_step: 1 },
    });
    const order = await investorPlacesAnOrder();
    const job = syncJob(tenant.url, tenant.token);
    for (let pass = 0; pass < 10 && !job.completed.has(order.id); pass++) await job.runOnce();
    expect(job.seen.get(order.id)).toEqual(['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED']);
  });

  it('clock: three minutes of the tenant clock, the job run every 5 s of it, sees each step and marks it completed', async () => {
    await tenant.control.updateClient(tenant.clientId, {
      settings: {
        order_progression: 'clock',
        order_step_seconds: { PLACED: 10, AWAITING_PAYMENT: 60, AWAITING_TOKEN_DELIVERY: 60 },
      },
    });
    await tenant.control.freezeClock(); // the clock moves only when the test says: the same answers every run
    const order = await investorPlacesAnOrder();
    const job = syncJob(tenant.url, tenant.token);
    for (let second = 0; second < 180; second += 5) {
      await job.runOnce();
      await tenant.control.advanceClock(5);
    }
    expect(job.seen.get(order.id)).toEqual(['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED']);
    expect(job.completed.has(order.id)).toBe(true);
    const { status_history: history } = await tenant.control.order(order.id);
    expect(history.map((h) => h.by)).toEqual(['control', 'progression', 'progression', 'progression']);
  });

  it('clock: an order not paid by the deadline is cancelled by the platform', async () => {
    await tenant.control.updateClient(tenant.clientId, {
      settings: {
        order_progression: 'clock',
        payment_deadline_seconds: 600,
        order_step_seconds: { AWAITING_PAYMENT: 3600 },
      },
    });
    await tenant.control.freezeClock();
    const order = await investorPlacesAnOrder();
    await tenant.control.advanceClock(15 * 60); // one jump: each step still happens at its own instant
    const { order: now, status_history: history } = await tenant.control.order(order.id);
    expect(now.status).toBe('CANCELLED');
    expect(now.payment_transaction_reference).toBeNull();
    expect(history.at(-1)).toMatchObject({ status: 'CANCELLED', by: 'platform' });
    expect(Date.parse(history.at(-1)!.at) - Date.parse(history[0]!.at)).toBe((10 + 600) * 1000);
  });
});
