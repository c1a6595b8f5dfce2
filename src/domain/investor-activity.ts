// Investor activity (CONTRACT §13): end investors place orders in the platform's app, on the tenant's own accounts,
// at instants of the tenant's clock drawn from a generator seeded by the world's seed and the client id. Nothing runs
// on a timer: whoever reads or writes the tenant first places the orders whose instants have passed, each created at
// its own instant, so a reset and the same clock moves give the same orders.
import { createHash } from 'node:crypto';
import type { WorldStore } from '../store/world-store.js';
import type { OrderPlacement } from './order-placement.js';

/** The most orders one read places: of a clock moved a year ahead at 3,600 an hour, the first 1,000 (documented). */
export const MOST_ORDERS_PER_READ = 1_000;

/** What the activity reads of a world. */
type ActivityWorld = Pick<WorldStore, 'accounts' | 'assets' | 'shareClassById'>;

/** What a tenant file keeps of it (STATE_DIR). */
export interface ActivityState {
  since: number;
  drawn: number;
}

/** A number in [0, 1) drawn from the seed, the draw's index and what it is for. */
function uniform(seed: string, index: number, purpose: string): number {
  return createHash('sha256').update(`${seed}:${index}:${purpose}`).digest().readUIntBE(0, 6) / 2 ** 48;
}

/**
 * One tenant's investor activity: the instant it started counting (switched on, or the world reset) and how many
 * instants it has drawn since. Instants form a Poisson process of `perHour` orders an hour.
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

  /** The next instant: an exponential gap after the last one. */
  private peek(perHour: number): number {
    this.nextAt ??= this.since + Math.max(1, Math.round((-Math.log(1 - uniform(this.seed, this.drawn, 'gap')) * 3_600_000) / perHour));
    return this.nextAt;
  }

  /** A primary BUY of a subscribeable asset, at or above its minimum, on an account drawn from the tenant's. */
  private orderOf(world: ActivityWorld, assets: ActivityWorld['assets'], index: number): OrderPlacement | undefined {
    if (world.accounts.length === 0 || assets.length === 0) return undefined;
    const pick = <T>(items: readonly T[], purpose: string): T => items[Math.floor(uniform(this.seed, index, purpose) * items.length)]!;
    const account = pick(world.accounts, 'account');
    const asset = pick(assets, 'asset');
    const minimum = world.shareClassById.get(asset.share_class_id)?.min_investment ?? 100_000;
    const units = 1 + Math.floor(uniform(this.seed, index, 'units') * 50);
    return { account_id: account.id, isin: asset.isin, side: 'BUY', market: 'PRIMARY', amount_of_units: units, value: minimum * (1 + Math.floor(uniform(this.seed, index, 'value') * 4)) };
  }
}
