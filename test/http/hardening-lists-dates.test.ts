import { beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../../src/api/types.js';
import { nextRedemptionDate } from '../../src/domain/redemption.js';
import { http, type SignedIn, signedIn, testApp, tokenFor } from '../support/test-app.js';

let world: World;
let get: SignedIn['get'];
const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((d) => d.id);

beforeAll(async () => {
  ({ world, get } = await signedIn());
});

describe('document lists page like every list', () => {
  it('fund documents take skip and limit, and the pages add up to the whole list', async () => {
    const fund = world.feeder_funds.find((f) => world.documents.filter((d) => d.feeder_fund_id === f.id).length >= 2)!;
    const path = `/v1/funds/${fund.abbreviation}/documents`;
    const all = ids(await get(path));
    expect(all.length).toBeGreaterThanOrEqual(2);
    const first = await get(`${path}?limit=1`);
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(all.slice(0, 1));
    expect(ids(await get(`${path}?skip=1&limit=1000`))).toEqual(all.slice(1));
    expect(ids(await get(`${path}?skip=${all.length}`))).toEqual([]);
  });

  it('custom offering documents take skip and limit', async () => {
    const offering =
      world.custom_offerings.find((o) => world.documents.filter((d) => d.custom_offering_id === o.id).length >= 2) ??
      world.custom_offerings.find((o) => world.documents.some((d) => d.custom_offering_id === o.id))!;
    const isin = world.assets.find((a) => a.id === offering.asset_id)!.isin;
    const path = `/v1/assets/${isin}/custom-offerings/${offering.id}/documents`;
    const all = ids(await get(path));
    expect(ids(await get(`${path}?skip=0&limit=1`))).toEqual(all.slice(0, 1));
    expect(ids(await get(`${path}?skip=1`))).toEqual(all.slice(1));
  });

  it.each(['skip=-1', 'limit=0', 'limit=1001', 'skip=x', 'page=2'])(
    'out-of-range paging (%s) answers 422 as on other lists',
    async (query) => {
      const fund = world.feeder_funds[0]!;
      const response = await get(`/v1/funds/${fund.abbreviation}/documents?${query}`);
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('validation_error');
    },
  );
});

describe('next_redemption_date', () => {
  const classOf = (isin: string) => get(`/v1/share-classes/${isin}`);
  const regular = () => {
    const shareClass =
      world.share_classes.find((s) => s.redemption_window === 'quarterly') ??
      world.share_classes.find((s) => s.redemption_cycle && s.redemption_cycle !== 'none')!;
    return { shareClass, isin: world.assets.find((a) => a.share_class_id === shareClass.id)!.isin };
  };

  it('is never in the past of the tenant’s clock, for every share class of the world', async () => {
    const now = Date.now();
    for (const asset of world.assets) {
      const { body } = await classOf(asset.isin);
      if (body.next_redemption_date !== null)
        expect(Date.parse(body.next_redemption_date), asset.isin).toBeGreaterThan(now);
    }
  });

  it('moves with the tenant’s clock, backwards and forwards', async () => {
    const { isin } = regular();
    const tenant = testApp();
    // a token lives by the tenant's clock too: one per clock setting
    const read = async () =>
      (
        await http(tenant)
          .get(`/v1/share-classes/${isin}`)
          .set({ Authorization: `Bearer ${await tokenFor(tenant)}` })
      ).body.next_redemption_date as string;
    await http(tenant).post('/__control/clock').send({ now: '2030-02-10T12:00:00Z' }).expect(200);
    const in2030 = await read();
    expect(Date.parse(in2030)).toBeGreaterThan(Date.parse('2030-02-10T12:00:00Z'));
    await http(tenant).post('/__control/clock').send({ now: '2024-05-20T08:00:00Z' }).expect(200);
    const in2024 = await read();
    expect(Date.parse(in2024)).toBeGreaterThan(Date.parse('2024-05-20T08:00:00Z'));
    expect(Date.parse(in2024)).toBeLessThan(Date.parse('2025-06-01T00:00:00Z'));
  });

  it('agrees with the list representation: the list’s redemption_window and the get’s redemption_cycle name one schedule', async () => {
    const listed = (await get('/v1/share-classes?limit=1000')).body.data as { id: string; redemption_window: string }[];
    for (const asset of world.assets) {
      const byIsin = (await classOf(asset.isin)).body;
      const item = listed.find((s) => s.id === byIsin.id)!;
      expect(byIsin.next_redemption_date).toBe(
        nextRedemptionDate(
          { redemption_window: item.redemption_window, redemption_cycle: byIsin.redemption_cycle },
          new Date(Date.now()),
        ),
      );
      if (byIsin.redemption_cycle) expect(item.redemption_window).toBe(byIsin.redemption_cycle);
    }
  });
});

describe('the redemption schedule', () => {
  const at = (iso: string) => new Date(iso);
  const next = (window: string, now: string, cycle: World['share_classes'][number]['redemption_cycle'] = null) =>
    nextRedemptionDate({ redemption_window: window, redemption_cycle: cycle }, at(now));

  it.each([
    ['daily', '2025-03-31T23:59:59Z', '2025-04-01T00:00:00.000Z'],
    ['weekly', '2025-03-31T00:00:00Z', '2025-04-07T00:00:00.000Z'], // a Monday: the next one
    ['weekly', '2025-04-06T10:00:00Z', '2025-04-07T00:00:00.000Z'], // a Sunday
    ['monthly', '2025-12-15T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['quarterly', '2025-03-31T12:00:00Z', '2025-04-01T00:00:00.000Z'],
    ['quarterly', '2025-04-01T00:00:00Z', '2025-07-01T00:00:00.000Z'], // on the day itself: the next one
    ['semi-annually', '2025-08-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['annually', '2024-02-29T00:00:00Z', '2025-01-01T00:00:00.000Z'],
  ])('%s at %s is %s', (window, now, expected) => {
    expect(next(window, now)).toBe(expected);
  });

  it('a closed class or an unknown word without a cycle has none; an unknown word follows the cycle', () => {
    expect(next('none', '2025-01-01T00:00:00Z', 'none')).toBeNull();
    expect(next('on request', '2025-01-01T00:00:00Z')).toBeNull();
    expect(next('on request', '2025-01-10T00:00:00Z', 'monthly')).toBe('2025-02-01T00:00:00.000Z');
  });
});
