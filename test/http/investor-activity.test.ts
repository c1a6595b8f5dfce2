import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Order, World } from '../../src/api/types.js';
import { MOST_ORDERS_PER_READ } from '../../src/domain/investor-activity.js';
import { http, testApp } from '../support/test-app.js';
import { frozenTenant } from '../support/tenants.js';

// Investor activity (docs/control-plane.md): end investors place orders on the tenant's own accounts at seeded instants of
// its clock, seen from the partner's seat (the public list) and from the control plane (the state, the history).
const T0 = '2030-01-01T12:00:00.000Z';
const HOUR = 3600;

let app: Express;
let tenants = 0;
beforeAll(() => {
  // a year's jump places a thousand orders at once: the default budgets have room for them (WORLD_BYTES)
  app = testApp();
});

/** A new tenant with these settings, its clock frozen at T0, and helpers acting as it. */
async function tenantWith(
  settings: Record<string, unknown>,
  target: Express = app,
  clientId = `activity-test-${++tenants}`,
) {
  const tenant = await frozenTenant(target, clientId, settings, T0);
  const { control } = tenant;
  const world = async () => (await http(target).get('/__control/state').set(control).expect(200)).body as World;
  const fixtureOrders = new Set((await world()).orders.map((o) => o.id));
  return {
    ...tenant,
    world,
    /** The orders investors placed, oldest first. */
    investorOrders: async () =>
      (await world()).orders.filter((o) => !fixtureOrders.has(o.id)).sort((a, b) => a.created.localeCompare(b.created)),
    patch: (changes: Record<string, unknown>) => tenant.patch(changes).expect(200),
    reset: () => http(target).post('/__control/reset').set(control).expect(204),
  };
}

describe('investor_activity_per_hour', () => {
  it('places primary BUYs on the tenant’s accounts, each created at its own instant of the hour the clock moved', async () => {
    const t = await tenantWith({ investor_activity_per_hour: 60 });
    expect(await t.investorOrders()).toEqual([]);
    await t.advanceClock(HOUR);
    const placed = await t.investorOrders();
    // a Poisson process of 60 an hour: the seed fixes how many; any seed gives far more than none and fewer than 120
    expect(placed.length).toBeGreaterThan(30);
    expect(placed.length).toBeLessThan(120);
    const world = await t.world();
    const instants = placed.map((o) => Date.parse(o.created));
    expect(new Set(instants).size).toBe(instants.length);
    for (const at of instants) {
      expect(at).toBeGreaterThan(Date.parse(T0));
      expect(at).toBeLessThanOrEqual(Date.parse(T0) + HOUR * 1000);
    }
    for (const order of placed) {
      expect(order).toMatchObject({ side: 'BUY', market: 'PRIMARY', status: 'PLACED' });
      expect(world.accounts.some((a) => a.id === order.account_id)).toBe(true);
      const asset = world.assets.find((a) => a.isin === order.isin)!;
      expect(asset.subscribeable).toBe(true);
      const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)?.min_investment ?? 0;
      expect(order.value).toBeGreaterThanOrEqual(minimum);
    }
    // the partner sees them where it looks for orders
    const first = placed[0]!;
    const listed = (
      await http(app)
        .get(`/v1/orders?account_id=${first.account_id}&limit=1000`)
        .set('Authorization', `Bearer ${await t.token()}`)
        .expect(200)
    ).body.data as Order[];
    expect(listed.map((o) => o.id)).toContain(first.id);
  });

  it('is a function of the seed, the client id and the clock moves: a reset and the same moves place the same orders', async () => {
    const t = await tenantWith({ investor_activity_per_hour: 120 });
    const run = async () => {
      await t.advanceClock(600);
      await t.world();
      await t.advanceClock(1800);
      return t.investorOrders();
    };
    const first = await run();
    expect(first.length).toBeGreaterThan(0);
    await t.reset();
    await http(app).post('/__control/clock').set(t.control).send({ now: T0, frozen: true }).expect(200);
    expect(await run()).toEqual(first);

    // the same client on another server with the same seed: the same orders; another client: other instants
    const twin = await tenantWith({ investor_activity_per_hour: 120 }, testApp(), t.clientId);
    expect(
      await (async () => {
        await twin.advanceClock(600);
        await twin.world();
        await twin.advanceClock(1800);
        return twin.investorOrders();
      })(),
    ).toEqual(first);
    const other = await tenantWith({ investor_activity_per_hour: 120 });
    await other.advanceClock(2400);
    expect((await other.investorOrders()).map((o) => o.created)).not.toEqual(first.map((o) => o.created));
  });

  it('a partner’s first read after the clock moved sees the orders investors placed meanwhile, with no control call between', async () => {
    const t = await tenantWith({ investor_activity_per_hour: 120 });
    const token = await t.token();
    const listed = async () =>
      (
        (
          await http(app)
            .get('/v1/orders?limit=100&side=BUY&market=PRIMARY&order_status=PLACED')
            .set('Authorization', `Bearer ${token}`)
            .expect(200)
        ).body.data as Order[]
      ).length;
    const before = await listed();
    // the clock moved by the operator (the control call takes what was due before the move), then read by the partner
    // (less than the token's hour, which runs on the same clock)
    await t.advanceClock(HOUR - 600);
    const seen = await listed();
    const placed = (await t.investorOrders()).length;
    expect(placed).toBeGreaterThan(0);
    expect(seen).toBe(Math.min(100, before + placed));
  });

  it('reads at many instants or once at the end give the same orders', async () => {
    const stepwise = await tenantWith({ investor_activity_per_hour: 90 }, testApp(), 'activity-reads');
    for (let i = 0; i < 12; i++) {
      await stepwise.advanceClock(300);
      await stepwise.world();
    }
    const once = await tenantWith({ investor_activity_per_hour: 90 }, testApp(), 'activity-reads');
    await once.advanceClock(HOUR);
    expect(await once.investorOrders()).toEqual(await stepwise.investorOrders());
  });

  it('with clock progression, investors’ orders move on from their own instants', async () => {
    const t = await tenantWith({ investor_activity_per_hour: 60, order_progression: 'clock' });
    await t.advanceClock(HOUR);
    const placed = await t.investorOrders();
    expect(placed.length).toBeGreaterThan(0);
    const last = placed.at(-1)!;
    const history = (await http(app).get(`/__control/orders/${last.id}`).set(t.control).expect(200)).body
      .status_history as { status: string; at: string; by: string }[];
    expect(history[0]).toEqual({ status: 'PLACED', at: last.created, by: 'investor' });
    if (history.length > 1)
      expect(history[1]).toEqual({
        status: 'AWAITING_PAYMENT',
        at: new Date(Date.parse(last.created) + 10_000).toISOString(),
        by: 'progression',
      });
    // the first was placed long enough ago to have completed (190 s of steps)
    const first = (await t.world()).orders.find((o) => o.id === placed[0]!.id)!;
    if (Date.parse(first.created) + 190_000 <= Date.parse(T0) + HOUR * 1000) expect(first.status).toBe('COMPLETED');
  });

  it('counts from the change: switched on, off and on again, it places orders only while on', async () => {
    const t = await tenantWith({});
    await t.advanceClock(HOUR);
    expect(await t.investorOrders()).toEqual([]);
    await t.patch({ investor_activity_per_hour: 600 });
    const switchedOn = Date.parse(T0) + HOUR * 1000;
    await t.advanceClock(600);
    const whileOn = await t.investorOrders();
    expect(whileOn.length).toBeGreaterThan(0);
    expect(Math.min(...whileOn.map((o) => Date.parse(o.created)))).toBeGreaterThan(switchedOn);
    await t.patch({ investor_activity_per_hour: 0 });
    await t.advanceClock(HOUR);
    expect(await t.investorOrders()).toEqual(whileOn);
  });

  it('skips what the market rules refuse and never fails a read: a tenant at its record limit places nothing', async () => {
    const full = testApp({ maxRecordsPerTenant: 1 });
    const t = await tenantWith({ investor_activity_per_hour: 600 }, full);
    await t.advanceClock(HOUR);
    expect(await t.investorOrders()).toEqual([]);
    await http(full)
      .get('/v1/orders')
      .set('Authorization', `Bearer ${await t.token()}`)
      .expect(200);
  });

  it('a clock moved a year ahead places the first orders due, at most MOST_ORDERS_PER_READ, and carries on from there', async () => {
    const t = await tenantWith({ investor_activity_per_hour: 3600 });
    await t.advanceClock(365 * 24 * HOUR);
    const placed = await t.investorOrders();
    expect(placed.length).toBeGreaterThan(MOST_ORDERS_PER_READ / 2);
    expect(placed.length).toBeLessThanOrEqual(MOST_ORDERS_PER_READ);
    // the first thousand instants of the year: about 1,000 seconds' worth at one a second
    expect(Date.parse(placed.at(-1)!.created) - Date.parse(T0)).toBeLessThan(2 * MOST_ORDERS_PER_READ * 1000);
    await t.advanceClock(60);
    const more = await t.investorOrders();
    expect(more.length).toBeGreaterThan(placed.length);
    expect(Date.parse(more.at(-1)!.created)).toBeGreaterThan(Date.parse(T0) + 365 * 24 * HOUR * 1000);
  });

  it('a rate outside 0–3600 is refused naming the setting, and nothing changes', async () => {
    const t = await tenantWith({});
    for (const bad of [-1, 3601, 'often']) {
      const response = await http(app)
        .patch(`/__control/clients/${t.clientId}`)
        .send({ settings: { investor_activity_per_hour: bad } });
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body)).toContain('investor_activity_per_hour');
    }
    await t.advanceClock(HOUR);
    expect(await t.investorOrders()).toEqual([]);
  });
});

describe('demo', () => {
  const settingsOf = async (target: Express) =>
    (
      (await http(target).get('/__control/clients').expect(200)).body.data as {
        client_id: string;
        settings: Record<string, unknown>;
      }[]
    ).map((c) => [c.client_id, c.settings.order_progression, c.settings.investor_activity_per_hour]);

  it('gives the default client clock progression and 120 investor orders an hour; the others, and a plain start, keep manual', async () => {
    expect(await settingsOf(testApp({ demo: true }))).toEqual([['sandbox-client', 'clock', 120]]);
    expect(await settingsOf(testApp())).toEqual([['sandbox-client', 'manual', 0]]);
    const clients = [
      { client_id: 'first', client_secret: 's', settings: { investor_activity_per_hour: 5 } },
      { client_id: 'second', client_secret: 's' },
    ];
    expect(await settingsOf(testApp({ demo: true, clients }))).toEqual([
      ['first', 'clock', 5],
      ['second', 'manual', 0],
    ]);
  });

  it('a demo world moves by itself: after ten minutes of its clock, investors have placed orders and the first have moved on', async () => {
    const demo = testApp({ demo: true });
    const control = { 'X-Client-Id': 'sandbox-client' };
    await http(demo).post('/__control/clock').set(control).send({ now: T0, frozen: true }).expect(200);
    await http(demo).post('/__control/clock').set(control).send({ advance_seconds: 600 }).expect(200);
    const placed = ((await http(demo).get('/__control/state').expect(200)).body as World).orders.filter(
      (o) => Date.parse(o.created) > Date.parse(T0),
    );
    expect(placed.length).toBeGreaterThan(0);
    expect(placed.some((o) => o.status !== 'PLACED')).toBe(true);
  });

  it('moves at once and keeps moving (a pure function of its clock): a step within 30 s, an investor order within 20 s and every 22.5–37.5 s, something in every 30 s of the first hour, open orders after the fixtures finished', async () => {
    const demo = testApp({ demo: true });
    const control = { 'X-Client-Id': 'sandbox-client' };
    // frozen where it stands: the demo's own start, the clock then moved by the test alone
    const start = Date.parse(
      (await http(demo).post('/__control/clock').set(control).send({ frozen: true }).expect(200)).body.now,
    );
    const fixtures = new Set(
      ((await http(demo).get('/__control/state').expect(200)).body as World).orders.map((o) => o.id),
    );
    await http(demo).post('/__control/clock').set(control).send({ advance_seconds: HOUR }).expect(200);
    type Traced = { order: Order; status_history: { status: string; at: string; by: string }[] };
    const orders = (await http(demo).get('/__control/orders').set(control).expect(200)).body.data as Traced[];
    const since = (at: string) => Date.parse(at) - start;

    const investors = orders.filter((o) => !fixtures.has(o.order.id));
    const placedAt = investors.map((o) => since(o.order.created)).sort((a, b) => a - b);
    expect(placedAt[0]).toBeLessThanOrEqual(20_000);
    for (let i = 1; i < placedAt.length; i++) {
      expect(placedAt[i]! - placedAt[i - 1]!).toBeGreaterThanOrEqual(22_500);
      expect(placedAt[i]! - placedAt[i - 1]!).toBeLessThanOrEqual(37_500);
    }
    expect(placedAt.length).toBeGreaterThanOrEqual(96);

    const steps = orders.flatMap((o) => o.status_history.slice(1).map((h) => since(h.at)));
    expect(Math.min(...steps)).toBeLessThanOrEqual(30_000);
    const events = [...placedAt, ...steps];
    for (let window = 0; window < 120; window++) {
      expect(
        events.some((at) => at > window * 30_000 && at <= (window + 1) * 30_000),
        `nothing between ${window * 30} s and ${(window + 1) * 30} s`,
      ).toBe(true);
    }

    // the fixtures' orders have long finished; investors' orders are still open and moving
    const open = (o: Traced) => !['COMPLETED', 'CANCELLED'].includes(o.order.status);
    expect(orders.filter((o) => fixtures.has(o.order.id)).filter(open)).toEqual([]);
    expect(investors.filter(open).length).toBeGreaterThan(0);
    // who acted: the fixtures for a seeded order's past, an investor for its placement, then progression
    for (const o of orders) {
      expect(o.status_history[0]!.by).toBe(fixtures.has(o.order.id) ? 'fixtures' : 'investor');
      for (const later of o.status_history.slice(1)) expect(later.by).toBe('progression');
    }
  });
});
