// Investor activity (docs/control-plane.md, "Testing a client that follows orders"): end investors place orders in the
// platform's app, on the tenant's own accounts, at instants of the tenant's clock drawn from a generator seeded by the
// world's seed and the client id. Nothing runs on a timer: whoever reads or writes the tenant first places the orders
// whose instants have passed, each created at its own instant: a reset and the same clock moves give the same orders.
import { createHash } from 'node:crypto';
import type { WorldStore } from '../store/world-store.js';
import type { OrderPlacement } from './order-placement.js';

/** The most orders one read places: of a clock moved a year ahead at 3,600 an hour, the first 1,000 (documented). */
export const MOST_ORDERS_PER_READ = 1_000;

/** What the activity reads of a world. */
type ActivityWorld = Pick<
  WorldStore,
  'accounts' | 'assets' | 'shareClassById' | 'walletsByAccount' | 'paymentMethodsByAccount'
>;

/** What a tenant file keeps of it (STATE_DIR). */
export interface ActivityState {
  since: number;
  drawn: number;
}

/** A number in [0, 1) drawn from the seed, the draw's index and what it is for (the demo partner's draws too). */
export function uniform(seed: string, index: number, purpose: string): number {
  return createHash('sha256').update(`${seed}:${index}:${purpose}`).digest().readUIntBE(0, 6) / 2 ** 48;
}

/**
 * The gap before an instant, as a share of the mean gap (an hour / `perHour`), from a uniform draw `u`: about the
 * mean, never twice as long (from 3/4 to 5/4 of it), so a demo at 120 an hour shows an order about every 30 s; the
 * first after a start comes within half a mean gap (3/8 to 5/8 of it: within 20 s at 120 an hour).
 */
export function gapShare(u: number, first: boolean): number {
  return first ? 0.375 + 0.25 * u : 0.75 + 0.5 * u;
}

/**
 * One tenant's investor activity: the instant it started counting (switched on, or the world reset) and how many
 * instants it has drawn since. Instants come about every hour / `perHour`, each gap drawn around that mean.
 */
export class InvestorActivity {
  private since: number;
  private drawn = 0;
  private nextAt: number | undefined;

  constructor(
    private readonly seed: string,
    now: number,
  ) {
    this.since = now;
  }

  /** Starts counting again from `now` (the rate changed, the world was reset or replaced). */
  restart(now: number): void {
    this.drawn = 0;
    this.restartFrom(now);
  }

  private restartFrom(now: number): void {
    this.since = now;
    this.nextAt = undefined;
  }

  /**
   * Every instant due by `now`, oldest first, each with the order the investor asks for (which the caller places under
   * the market rules, or skips when the account cannot take it). At most MOST_ORDERS_PER_READ; the rest are passed.
   */
  due(world: ActivityWorld, perHour: number, now: number): { at: number; order: OrderPlacement }[] {
    if (now < this.since) this.restartFrom(now); // the clock moved back: investors act from there
    if (perHour <= 0 || this.peek(perHour) > now) return [];
    const out: { at: number; order: OrderPlacement }[] = [];
    const assets = world.assets.filter((a) => a.subscribeable);
    for (let instants = 0, at = this.peek(perHour); at <= now; instants++, at = this.peek(perHour)) {
      if (instants === MOST_ORDERS_PER_READ) {
        // the rest of a long jump is passed without drawing each instant: time counts again from now
        this.restartFrom(now);
        break;
      }
      const order = this.orderOf(world, assets, this.drawn);
      this.drawn++;
      this.since = at;
      this.nextAt = undefined;
      if (order) out.push({ at, order });
    }
    return out;
  }

  exportState(): ActivityState {
    return { since: this.since, drawn: this.drawn };
  }

  restoreState(state: ActivityState): void {
    this.since = state.since;
    this.drawn = state.drawn;
    this.nextAt = undefined;
  }

  /** The next instant: a gap about the mean after the last one (the first after a start: about half of it). */
  private peek(perHour: number): number {
    this.nextAt ??=
      this.since +
      Math.max(
        1,
        Math.round((gapShare(uniform(this.seed, this.drawn, 'gap'), this.drawn === 0) * 3_600_000) / perHour),
      );
    return this.nextAt;
  }

  /**
   * A primary BUY of a subscribeable asset, at or above its minimum, on an account drawn from the tenant's: the first
   * from the drawn one on (in the world's order, round) that can pay and take delivery (a primary payment method and
   * a primary wallet), so an investor's order is not lost to an account that cannot buy.
   */
  private orderOf(world: ActivityWorld, assets: ActivityWorld['assets'], index: number): OrderPlacement | undefined {
    if (world.accounts.length === 0 || assets.length === 0) return undefined;
    const draw = (count: number, purpose: string): number => Math.floor(uniform(this.seed, index, purpose) * count);
    const pick = <T>(items: readonly T[], purpose: string): T => items[draw(items.length, purpose)]!;
    const { accounts } = world;
    const canBuy = (id: string): boolean =>
      (world.walletsByAccount.get(id)?.some((w) => w.is_primary) ?? false) &&
      (world.paymentMethodsByAccount.get(id)?.some((p) => p.is_primary) ?? false);
    const from = draw(accounts.length, 'account');
    let account = accounts[from]!;
    for (let i = 0; i < accounts.length && !canBuy(account.id); i++)
      account = accounts[(from + i + 1) % accounts.length]!;
    const asset = pick(assets, 'asset');
    const minimum = world.shareClassById.get(asset.share_class_id)?.min_investment ?? 100_000;
    const units = 1 + Math.floor(uniform(this.seed, index, 'units') * 50);
    return {
      account_id: account.id,
      isin: asset.isin,
      side: 'BUY',
      market: 'PRIMARY',
      amount_of_units: units,
      value: minimum * (1 + Math.floor(uniform(this.seed, index, 'value') * 4)),
    };
  }
}
