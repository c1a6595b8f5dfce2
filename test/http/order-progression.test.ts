import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Order, World } from '../../src/api/types.js';
import { startServer } from '../../src/server.js';
import { http, testApp, tokenFor } from '../support/test-app.js';
import { frozenTenant } from '../support/tenants.js';

// Orders that move by themselves (docs/control-plane.md), seen from the partner's seat: the public list, the cancel and the
// control plane's history, under each order_progression mode.
const T0 = '2030-01-01T12:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const REFERENCE = /^PAY-[A-Z0-9]{12}$/;
const HASH = /^0x[0-9a-f]{64}$/;

let app: Express;
let tenants = 0;
beforeAll(() => {
  app = testApp();
});

/** A new tenant with these settings, its clock frozen at T0, an order placed for it, and helpers acting as it. */
async function tenantWith(
  settings: Record<string, unknown>,
  target: Express = app,
  clientId = `progression-test-${++tenants}`,
) {
  const tenant = await frozenTenant(target, clientId, settings, T0);
  const { control } = tenant;
  // tokens live on the tenant's clock: a new one after each move
  const auth = { Authorization: '' };
  const signIn = async () => {
    auth.Authorization = `Bearer ${await tenant.token()}`;
  };
  await signIn();
  const input = await orderInput(target, control);
  const place = async () =>
    (await http(target).post('/__control/orders').set(control).send(input).expect(201)).body as Order;
  const order = await place();
  return {
    clientId,
    order,
    place,
    advanceClock: async (seconds: number) => {
      await tenant.advanceClock(seconds);
      await signIn();
    },
    list: async (query = `account_id=${input.account_id}`) =>
      (await http(target).get(`/v1/orders?${query}`).set(auth).expect(200)).body.data as Order[],
    listed: async (id = order.id) =>
      (
        (await http(target).get(`/v1/orders?account_id=${input.account_id}&limit=1000`).set(auth).expect(200)).body
          .data as Order[]
      ).find((o) => o.id === id)!,
    cancel: (id = order.id) => http(target).delete(`/v1/orders/${id}/`).set(auth),
    history: async (id = order.id) => (await http(target).get(`/__control/orders/${id}`).set(control).expect(200)).body,
    patch: tenant.patch,
  };
}

describe('order_progression clock', () => {
  it('a clock jump takes every step at its own instant, with its side effects, and the history shows those instants', async () => {
    const t = await tenantWith({ order_progression: 'clock' });
    expect(t.order.status).toBe('PLACED');
    await t.advanceClock(60 * 60);
    const order = await t.listed();
    expect(order.status).toBe('COMPLETED');
    expect(order.payment_transaction_reference).toMatch(REFERENCE);
    expect(order.settlement_transaction_hash).toMatch(HASH);
    const { status_history: history, order: details } = await t.history();
    expect(details.status).toBe('COMPLETED');
    expect(history).toEqual([
      { status: 'PLACED', at: T0, by: 'control' },
      { status: 'AWAITING_PAYMENT', at: at(10), by: 'progression' },
      { status: 'AWAITING_TOKEN_DELIVERY', at: at(130), by: 'progression' },
      { status: 'COMPLETED', at: at(190), by: 'progression' },
    ]);
  });

  it('shows at each read the status its clock implies: no step before its instant, each one at it', async () => {
    const t = await tenantWith({ order_progression: 'clock', order_step_seconds: { PLACED: 5 } });
    await t.advanceClock(4.999);
    expect((await t.listed()).status).toBe('PLACED');
    await t.advanceClock(0.001);
    const paying = await t.listed();
    expect(paying.status).toBe('AWAITING_PAYMENT');
    expect(paying.payment_transaction_reference).toBeNull();
    await t.advanceClock(120);
    const delivering = await t.listed();
    expect(delivering.status).toBe('AWAITING_TOKEN_DELIVERY');
    expect(delivering.payment_transaction_reference).toMatch(REFERENCE);
    expect(delivering.settlement_transaction_hash).toBeNull();
  });

  it('a cancel acts on the status the clock implies: allowed while awaiting payment, 409 once the order has moved on', async () => {
    const t = await tenantWith({ order_progression: 'clock' });
    const second = await t.place();
    await t.advanceClock(11);
    const cancelled = await t.cancel();
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    await t.advanceClock(200);
    const late = await t.cancel(second.id);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('order_not_cancellable');
    expect((await t.listed()).status).toBe('CANCELLED');
    expect((await t.history()).status_history.map((h: { by: string }) => h.by)).toEqual([
      'control',
      'progression',
      'partner',
    ]);
  });

  it('the payment deadline cancels an order still awaiting payment, by the platform, without a payment reference', async () => {
    const t = await tenantWith({ order_progression: 'clock', payment_deadline_seconds: 30 });
    await t.advanceClock(3600);
    const order = await t.listed();
    expect(order.status).toBe('CANCELLED');
    expect(order.payment_transaction_reference).toBeNull();
    expect((await t.history()).status_history.at(-1)).toEqual({ status: 'CANCELLED', at: at(40), by: 'platform' });
  });

  it('next_step names the status the clock brings next, its instant and its cause; the list shows every order so, with the clock', async () => {
    const t = await tenantWith({ order_progression: 'clock', payment_deadline_seconds: 60 });
    expect((await t.history()).next_step).toEqual({ status: 'AWAITING_PAYMENT', at: at(10), by: 'progression' });
    await t.advanceClock(10);
    expect((await t.history()).next_step).toEqual({ status: 'CANCELLED', at: at(70), by: 'platform' });
    const list = (await http(app).get('/__control/orders').set('X-Client-Id', t.clientId).expect(200)).body;
    expect(list.clock).toEqual({ now: at(10), frozen: true });
    const world = (await http(app).get('/__control/state').set('X-Client-Id', t.clientId).expect(200)).body as World;
    expect(list.data.map((o: { order: Order }) => o.order.id)).toEqual(world.orders.map((o) => o.id));
    expect(list.data.find((o: { order: Order }) => o.order.id === t.order.id)).toEqual(await t.history());
    await t.advanceClock(60);
    expect((await t.history()).next_step).toBeNull();
  });

  it('switching a tenant to clock counts from that instant: year-old fixture orders do not complete at once', async () => {
    const t = await tenantWith({});
    const before = await t.list('order_status=PLACED&limit=1000');
    expect(before.length).toBeGreaterThan(0);
    await t.advanceClock(3600);
    await t.patch({ order_progression: 'clock' }).expect(200);
    expect(await t.list('order_status=PLACED&limit=1000')).toEqual(before);
    await t.advanceClock(10);
    expect(await t.list('order_status=PLACED&limit=1000')).toEqual([]);
  });

  it('a clock set back before the tenant began counts from there: its fixture orders move as a tenant begun then', async () => {
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    const { control } = await frozenTenant(
      app,
      `progression-test-${++tenants}`,
      { order_progression: 'clock' },
      dayAgo,
    );
    const placed = async () =>
      (
        (await http(app).get('/__control/orders?order_status=PLACED').set(control).expect(200)).body.data as Order[]
      ).map((o) => o.id);
    const before = await placed();
    expect(before.length).toBeGreaterThan(0);
    await http(app).post('/__control/clock').set(control).send({ advance_seconds: 10 }).expect(200);
    expect(await placed()).toEqual([]);
  });
});

describe('order_progression polls', () => {
  it('an order steps after order_polls_per_step answers of GET /v1/orders showed it; control reads do not count', async () => {
    const t = await tenantWith({ order_progression: 'polls', order_polls_per_step: 2 });
    await t.history();
    expect((await t.listed()).status).toBe('PLACED');
    expect((await t.listed()).status).toBe('PLACED');
    expect((await t.listed()).status).toBe('AWAITING_PAYMENT');
    await t.listed();
    const delivering = await t.listed();
    expect(delivering.status).toBe('AWAITING_TOKEN_DELIVERY');
    expect(delivering.payment_transaction_reference).toMatch(REFERENCE);
    const { status_history: history } = await t.history();
    expect(history.map((h: { status: string }) => h.status)).toEqual([
      'PLACED',
      'AWAITING_PAYMENT',
      'AWAITING_TOKEN_DELIVERY',
    ]);
  });

  it('an order a list does not show does not move', async () => {
    const t = await tenantWith({ order_progression: 'polls', order_polls_per_step: 1 });
    for (let i = 0; i < 3; i++) await t.list('order_status=COMPLETED');
    expect((await t.history()).order.status).toBe('PLACED');
  });
});

describe('order_progression manual', () => {
  it('orders stand still however far the clock moves; control and partner changes are in the history', async () => {
    const t = await tenantWith({});
    await t.advanceClock(86_400 * 30);
    expect((await t.listed()).status).toBe('PLACED');
    await http(app).post(`/__control/orders/${t.order.id}/advance`).set('X-Client-Id', t.clientId).expect(200);
    await t.advanceClock(5);
    await t.cancel().expect(200);
    expect((await t.history()).next_step).toBeNull();
    expect((await t.history()).status_history).toEqual([
      { status: 'PLACED', at: T0, by: 'control' },
      { status: 'AWAITING_PAYMENT', at: at(86_400 * 30), by: 'control' },
      { status: 'CANCELLED', at: at(86_400 * 30 + 5), by: 'partner' },
    ]);
  });

  it('a fixture order never changed has one entry: its status since it was created', async () => {
    const world = (await http(app).get('/__control/state')).body as World;
    const fixture = world.orders[0]!;
    const { status_history: history } = (await http(app).get(`/__control/orders/${fixture.id}`).expect(200)).body;
    expect(history).toEqual([{ status: fixture.status, at: fixture.created, by: 'fixtures' }]);
    expect((await http(app).get('/__control/orders/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('progression settings', () => {
  it('are listed with their defaults', async () => {
    const t = await tenantWith({});
    const clients = (await http(app).get('/__control/clients')).body.data as { client_id: string; settings: unknown }[];
    expect(clients.find((c) => c.client_id === t.clientId)!.settings).toEqual({
      tax_reporting: false,
      lei_required: false,
      order_progression: 'manual',
      order_step_seconds: { PLACED: 10, AWAITING_PAYMENT: 120, AWAITING_TOKEN_DELIVERY: 60 },
      order_polls_per_step: 3,
      payment_deadline_seconds: null,
      investor_activity_per_hour: 0,
    });
  });

  it('a change names only what it changes, down to one step', async () => {
    const t = await tenantWith({ order_step_seconds: { AWAITING_PAYMENT: 7 } });
    const changed = await t.patch({ order_step_seconds: { PLACED: 1 } }).expect(200);
    expect(changed.body.settings.order_step_seconds).toEqual({
      PLACED: 1,
      AWAITING_PAYMENT: 7,
      AWAITING_TOKEN_DELIVERY: 60,
    });
  });

  it.each([
    [{ order_progression: 'fast' }, '/settings/order_progression'],
    [{ order_step_seconds: { PLACED: -1 } }, '/settings/order_step_seconds/PLACED'],
    [{ order_step_seconds: { SETTLED: 5 } }, '/settings/order_step_seconds/SETTLED'],
    [{ order_polls_per_step: 0 }, '/settings/order_polls_per_step'],
    [{ payment_deadline_seconds: 0 }, '/settings/payment_deadline_seconds'],
    [{ investor_activity_per_hour: 3601 }, '/settings/investor_activity_per_hour'],
  ])('a bad value %j is refused naming %s, and nothing changes', async (settings, path) => {
    const t = await tenantWith({});
    const refused = await t.patch({ order_progression: 'clock', ...settings });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(JSON.stringify(refused.body.errors)).toContain(path);
    const clients = (await http(app).get('/__control/clients')).body.data as {
      client_id: string;
      settings: { order_progression: string };
    }[];
    expect(clients.find((c) => c.client_id === t.clientId)!.settings.order_progression).toBe('manual');
  });

  it('startServer refuses a client with a bad setting, naming it', async () => {
    await expect(
      startServer({
        port: 0,
        clients: [{ client_id: 'a', client_secret: 'b', settings: { order_polls_per_step: 0 } }],
      }),
    ).rejects.toThrow(/client "a".*\n.*\/settings\/order_polls_per_step: must be >= 1/);
  });
});

describe('determinism', () => {
  it('two servers with the same seed, calls and clock moves answer byte for byte alike', async () => {
    const run = async () => {
      const target = testApp({ seed: 42 });
      const t = await tenantWith({ order_progression: 'clock', payment_deadline_seconds: 100 }, target, 'same');
      await t.place();
      await t.patch({ order_progression: 'clock', order_step_seconds: { PLACED: 3 } }).expect(200);
      const answers: string[] = [];
      for (const seconds of [2, 9, 40, 150, 3600]) {
        await t.advanceClock(seconds);
        answers.push(JSON.stringify(await t.list('limit=1000')), JSON.stringify(await t.history()));
      }
      return answers;
    };
    const [first, second] = [await run(), await run()];
    expect(second).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(4);
  });
});

describe('a partner with the control scope', () => {
  it('sees the history of its own orders only', async () => {
    const shared = testApp({
      controlToken: 'operator',
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'acme', client_secret: 'acme-secret', scopes: ['read:orders', 'control'] },
      ],
    });
    const operator = { Authorization: 'Bearer operator' };
    const theirs = (
      await http(shared)
        .post('/__control/orders')
        .set(operator)
        .send(await orderInput(shared, operator))
        .expect(201)
    ).body as Order;
    const acme = {
      Authorization: `Bearer ${await tokenFor(shared, { client_id: 'acme', client_secret: 'acme-secret', scope: 'openid offline control' })}`,
    };
    expect((await http(shared).get(`/__control/orders/${theirs.id}`).set(acme)).status).toBe(404);
    const other = await http(shared)
      .get(`/__control/orders/${theirs.id}`)
      .set(acme)
      .set('X-Client-Id', 'sandbox-client');
    expect(other.status).toBe(403);
    expect((await http(shared).get(`/__control/orders/${theirs.id}`).set(operator)).status).toBe(200);
  });
});

async function orderInput(target: Express, headers: Record<string, string>) {
  const world = (await http(target).get('/__control/state').set(headers)).body as World;
  const trader = world.accounts.find(
    (a) =>
      world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
      world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
  )!;
  const asset = world.assets.find((a) => a.subscribeable)!;
  const value = world.share_classes.find((s) => s.id === asset.share_class_id)!.min_investment ?? 100_000;
  return { account_id: trader.id, isin: asset.isin, side: 'BUY', market: 'PRIMARY', amount_of_units: 5, value };
}
