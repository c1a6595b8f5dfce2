import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { gapShare, InvestorActivity, MOST_ORDERS_PER_READ } from '../../src/domain/investor-activity.js';
import { WorldStore } from '../../src/store/world-store.js';

const START = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;
const world = new WorldStore(generateWorld({ seed: 5 }));

/** Every instant due when the clock is read at each of `reads` (ms after START), in one list. */
function instantsAt(activity: InvestorActivity, perHour: number, reads: readonly number[]): number[] {
  return reads.flatMap((read) => activity.due(world, perHour, START + read).map((d) => d.at));
}

describe('InvestorActivity', () => {
  it('draws the same instants however often it is read between two clock readings (below the cap of one read)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 * HOUR }), { maxLength: 20 }),
        fc.integer({ min: 1, max: 300 }),
        (reads, perHour) => {
          const stepwise = instantsAt(new InvestorActivity('seed:a', START), perHour, [
            ...reads.sort((a, b) => a - b),
            2 * HOUR,
          ]);
          const once = instantsAt(new InvestorActivity('seed:a', START), perHour, [2 * HOUR]);
          expect(stepwise).toEqual(once);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('places orders at strictly later instants, after the start and by the reading, at the rate asked on average', () => {
    const activity = new InvestorActivity('seed:rate', START);
    const instants: number[] = [];
    for (let hour = 1; hour <= 100; hour++) instants.push(...instantsAt(activity, 9, [hour * HOUR]));
    // 900 expected over 100 hours; a Poisson count's standard deviation is 30
    expect(instants.length).toBeGreaterThan(800);
    expect(instants.length).toBeLessThan(1000);
    expect(instants[0]).toBeGreaterThan(START);
    for (let i = 1; i < instants.length; i++) expect(instants[i]).toBeGreaterThan(instants[i - 1]!);
  });

  it('differs by seed, and places nothing at rate 0 or on a world without accounts', () => {
    const a = instantsAt(new InvestorActivity('seed:1', START), 60, [HOUR]);
    const b = instantsAt(new InvestorActivity('seed:2', START), 60, [HOUR]);
    expect(a).not.toEqual(b);
    expect(new InvestorActivity('seed:1', START).due(world, 0, START + HOUR)).toEqual([]);
    const empty = new WorldStore(generateWorld({ seed: 5, scale: { accounts: 0, orders: 0 } }));
    expect(new InvestorActivity('seed:1', START).due(empty, 60, START + HOUR)).toEqual([]);
  });

  it('asks for primary BUYs of subscribeable assets, at or above their minimum, on the world’s accounts', () => {
    for (const { order } of new InvestorActivity('seed:orders', START).due(world, 600, START + HOUR)) {
      expect(order).toMatchObject({ side: 'BUY', market: 'PRIMARY' });
      expect(world.accountById.has(order.account_id)).toBe(true);
      const asset = world.assetByIsin.get(order.isin)!;
      expect(asset.subscribeable).toBe(true);
      expect(order.value).toBeGreaterThanOrEqual(world.shareClassById.get(asset.share_class_id)?.min_investment ?? 0);
      expect(order.amount_of_units).toBeGreaterThanOrEqual(1);
    }
  });

  it('a long jump gives the first MOST_ORDERS_PER_READ instants and counts on from the reading', () => {
    const activity = new InvestorActivity('seed:jump', START);
    const year = 365 * 24 * HOUR;
    const first = activity.due(world, 3600, START + year);
    expect(first).toHaveLength(MOST_ORDERS_PER_READ);
    expect(first.at(-1)!.at).toBeLessThan(START + 2 * MOST_ORDERS_PER_READ * 1000);
    const next = activity.due(world, 3600, START + year + HOUR);
    expect(next.length).toBeGreaterThan(0);
    expect(next[0]!.at).toBeGreaterThan(START + year);
  });

  it('a restored state draws on as the original does; a clock moved back counts from there', () => {
    const original = new InvestorActivity('seed:kept', START);
    instantsAt(original, 120, [HOUR]);
    const restored = new InvestorActivity('seed:kept', 0);
    restored.restoreState(JSON.parse(JSON.stringify(original.exportState())));
    expect(instantsAt(restored, 120, [2 * HOUR])).toEqual(instantsAt(original, 120, [2 * HOUR]));

    const moved = new InvestorActivity('seed:back', START + HOUR);
    expect(instantsAt(moved, 120, [0])).toEqual([]);
    expect(Math.min(...instantsAt(moved, 120, [HOUR]))).toBeGreaterThan(START);
  });

  it('draws each gap about the mean (3/4 to 5/4 of it), the first after a start within 3/8 to 5/8 of it, for any seed and rate', () => {
    expect([gapShare(0, true), gapShare(1, true), gapShare(0, false), gapShare(1, false)]).toEqual([
      0.375, 0.625, 0.75, 1.25,
    ]);
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.integer({ min: 1, max: 3600 }), (seed, perHour) => {
        const mean = HOUR / perHour;
        const instants = instantsAt(new InvestorActivity(seed, START), perHour, [Math.min(50 * mean, 2 * HOUR)]);
        const gaps = instants.map((at, i) => at - (i === 0 ? START : instants[i - 1]!));
        gaps.forEach((gap, i) => {
          const [low, high] = i === 0 ? [0.375, 0.625] : [0.75, 1.25];
          expect(gap).toBeGreaterThanOrEqual(Math.max(1, Math.round(low * mean)) - 1);
          expect(gap).toBeLessThanOrEqual(Math.round(high * mean) + 1);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('places every order on an account able to buy (a primary wallet and payment method), however few there are', () => {
    const source = generateWorld({ seed: 5 });
    const able = source.accounts.filter(
      (a) =>
        source.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
        source.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
    );
    expect(able.length).toBeGreaterThan(0);
    // only one account keeps its primaries
    const only = able[0]!.id;
    const sparse = new WorldStore({
      ...source,
      wallets: source.wallets.filter((w) => w.account_id === only || !w.is_primary),
      payment_method_details: source.payment_method_details.filter((p) => p.account_id === only || !p.is_primary),
    });
    const due = new InvestorActivity('seed:able', START).due(sparse, 600, START + HOUR);
    expect(due.length).toBeGreaterThan(500);
    expect(new Set(due.map((d) => d.order.account_id))).toEqual(new Set([only]));
  });
});
