import { beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../../src/api/types.js';
import { type SignedIn, signedIn } from '../support/test-app.js';

let world: World;
let get: SignedIn['get'];

beforeAll(async () => {
  ({ world, get } = await signedIn());
});

describe('GET /v1/share-classes', () => {
  it('lists every share class in creation order, in the list representation', async () => {
    const response = await get('/v1/share-classes');
    expect(response.status).toBe(200);
    expect(response.body.data.map((s: { id: string }) => s.id)).toEqual(world.share_classes.map((s) => s.id));
    const first = response.body.data[0];
    expect(first).toHaveProperty('lock_up');
    expect(first).toHaveProperty('redemption_window');
    expect(first).not.toHaveProperty('redemption_cycle');
    expect(first).not.toHaveProperty('lock_up_duration');
  });

  it('filters by exact abbreviation', async () => {
    const target = world.share_classes[2]!;
    const response = await get(`/v1/share-classes?abbreviation=${encodeURIComponent(target.abbreviation)}`);
    expect(response.body.data.map((s: { id: string }) => s.id)).toEqual([target.id]);
    const partial = await get(`/v1/share-classes?abbreviation=${encodeURIComponent(target.abbreviation.slice(0, -1))}`);
    expect(partial.body.data.every((s: { abbreviation: string }) => s.abbreviation !== target.abbreviation)).toBe(true);
  });

  it('filters by name as a case-insensitive substring', async () => {
    const target = world.share_classes[0]!;
    const fragment = target.name.slice(2, 8).toUpperCase();
    const response = await get(`/v1/share-classes?name=${encodeURIComponent(fragment)}`);
    const expected = world.share_classes
      .filter((s) => s.name.toLowerCase().includes(fragment.toLowerCase()))
      .map((s) => s.id);
    expect(response.body.data.map((s: { id: string }) => s.id)).toEqual(expected);
    expect(expected).toContain(target.id);
  });

  it('filters by feeder_fund_id, combined with other filters by AND', async () => {
    const fund = world.feeder_funds[0]!;
    const ofFund = world.share_classes.filter((s) => s.feeder_fund_id === fund.id);
    const response = await get(`/v1/share-classes?feeder_fund_id=${fund.id}`);
    expect(response.body.data.map((s: { id: string }) => s.id)).toEqual(ofFund.map((s) => s.id));
    const both = await get(
      `/v1/share-classes?feeder_fund_id=${fund.id}&abbreviation=${encodeURIComponent(ofFund[0]!.abbreviation)}`,
    );
    expect(both.body.data).toHaveLength(1);
  });

  it('pages with skip and limit', async () => {
    const all = world.share_classes.map((s) => s.id);
    const page = await get('/v1/share-classes?skip=1&limit=2');
    expect(page.body.data.map((s: { id: string }) => s.id)).toEqual(all.slice(1, 3));
    const past = await get(`/v1/share-classes?skip=${all.length}`);
    expect(past.body.data).toEqual([]);
  });
});

describe('GET /v1/share-classes/{isin}', () => {
  it('answers the share class of the asset in the get-by-ISIN representation', async () => {
    const asset = world.assets[0]!;
    const response = await get(`/v1/share-classes/${asset.isin}`);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(asset.share_class_id);
    expect(response.body).toHaveProperty('redemption_cycle');
    expect(response.body).toHaveProperty('lock_up_duration');
    expect(response.body).toHaveProperty('next_redemption_date');
    expect(response.body).not.toHaveProperty('lock_up');
    expect(response.body).not.toHaveProperty('redemption_window');
  });

  it('answers 404 not_found for an ISIN no asset has', async () => {
    const response = await get('/v1/share-classes/US0378331005');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
    expect(response.body.detail).toContain('US0378331005');
  });
});

describe('GET /v1/assets', () => {
  it('shows each asset with its custom offerings', async () => {
    const response = await get('/v1/assets?limit=1000');
    expect(response.body.data).toHaveLength(world.assets.length);
    for (const asset of response.body.data) {
      const offerings = world.custom_offerings
        .filter((o) => o.asset_id === asset.id)
        .map(({ id, name }) => ({ id, name }));
      expect(asset.custom_offerings).toEqual(offerings);
    }
  });

  it.each(['subscribeable', 'redeemable', 'tradeable'] as const)('filters by %s=true and =false', async (flag) => {
    for (const value of [true, false]) {
      const response = await get(`/v1/assets?${flag}=${value}&limit=1000`);
      const expected = world.assets.filter((a) => a[flag] === value).map((a) => a.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(response.body.data.map((a: { id: string }) => a.id)).toEqual(expected);
    }
  });

  it('filters by isin, currency and share_class_id', async () => {
    const asset = world.assets[3]!;
    expect((await get(`/v1/assets?isin=${asset.isin}`)).body.data.map((a: { id: string }) => a.id)).toEqual([asset.id]);
    const byCurrency = (await get(`/v1/assets?currency=${asset.currency}`)).body.data;
    expect(byCurrency.map((a: { id: string }) => a.id)).toEqual(
      world.assets.filter((a) => a.currency === asset.currency).map((a) => a.id),
    );
    const byClass = (await get(`/v1/assets?share_class_id=${asset.share_class_id}`)).body.data;
    expect(byClass.map((a: { id: string }) => a.id)).toEqual(
      world.assets.filter((a) => a.share_class_id === asset.share_class_id).map((a) => a.id),
    );
  });
});

describe('GET /v1/orders over the seeded orders', () => {
  const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((o) => o.id);

  it('lists orders in creation order without the cancel-response fields', async () => {
    const response = await get('/v1/orders?limit=1000');
    expect(ids(response)).toEqual(world.orders.map((o) => o.id));
    expect(response.body.data[0]).not.toHaveProperty('sender_payment_method_details');
    expect(response.body.data[0]).not.toHaveProperty('recipient_wallet_address');
    expect(response.body.data[0]).toHaveProperty('settlement_transaction_hash');
  });

  it.each([
    ['side', 'SELL', (o: World['orders'][number]) => o.side === 'SELL'],
    ['market', 'SECONDARY', (o: World['orders'][number]) => o.market === 'SECONDARY'],
    ['order_status', 'AWAITING_PAYMENT', (o: World['orders'][number]) => o.status === 'AWAITING_PAYMENT'],
  ] as const)('filters by %s', async (name, value, keep) => {
    const expected = world.orders.filter(keep).map((o) => o.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(await get(`/v1/orders?${name}=${value}&limit=1000`))).toEqual(expected);
  });

  it('filters by account_type through the order’s account', async () => {
    for (const type of ['individual', 'business'] as const) {
      const accounts = new Set(world.accounts.filter((a) => a.type === type).map((a) => a.id));
      const expected = world.orders.filter((o) => accounts.has(o.account_id)).map((o) => o.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(await get(`/v1/orders?account_type=${type}&limit=1000`))).toEqual(expected);
    }
  });

  it('filters by account_id, currency and isin, and combines filters with AND', async () => {
    const order = world.orders[5]!;
    expect(ids(await get(`/v1/orders?account_id=${order.account_id}&limit=1000`))).toEqual(
      world.orders.filter((o) => o.account_id === order.account_id).map((o) => o.id),
    );
    expect(ids(await get(`/v1/orders?currency=${order.currency}&limit=1000`))).toEqual(
      world.orders.filter((o) => o.currency === order.currency).map((o) => o.id),
    );
    expect(ids(await get(`/v1/orders?isin=${order.isin}&limit=1000`))).toEqual(
      world.orders.filter((o) => o.isin === order.isin).map((o) => o.id),
    );
    const combined = await get(
      `/v1/orders?isin=${order.isin}&side=${order.side}&order_status=${order.status}&limit=1000`,
    );
    expect(ids(combined)).toEqual(
      world.orders
        .filter((o) => o.isin === order.isin && o.side === order.side && o.status === order.status)
        .map((o) => o.id),
    );
    expect(ids(combined)).toContain(order.id);
  });

  it('pages: default limit 100, skip and limit cut the same sequence', async () => {
    const all = world.orders.map((o) => o.id);
    const pages = [];
    for (let skip = 0; skip < all.length; skip += 7) pages.push(...ids(await get(`/v1/orders?skip=${skip}&limit=7`)));
    expect(pages).toEqual(all);
  });

  it('answers an empty list, not a 404, when nothing matches', async () => {
    const response = await get('/v1/orders?isin=XS0000000000');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [] });
  });
});
