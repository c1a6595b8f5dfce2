// The demo partner (docs/control-plane.md, "The demo partner"): a partner's session run against the fake over HTTP,
// one round every few seconds, so a demo's console shows a partner in Overview, Requests and Readiness at once. It
// behaves as a careful client does (a kept token, lists read to their last page, orders polled with backoff, an order
// read before it is cancelled) but for the mistakes it makes now and then on purpose, each one a readiness rule names.
// Its world stays bounded: a "day" ends after DAY_ROUNDS rounds, or when the tenant says it is full (409
// limit_reached), and the next day starts from the fixtures (its own tenant reset through the control plane).
import type { Schemas } from '../api/types.js';
import { uniform as draw } from '../domain/investor-activity.js';
import { ibanOf, pick, walletAddressOf } from './partner-draws.js';
import { PartnerCallError, PartnerHttp, type PartnerCredentials } from './partner-http.js';

type Order = Schemas['Order'];

/** Rounds of one day: about ten minutes at the default interval. */
export const DAY_ROUNDS = 150;
/** Accounts the partner opens in a day at most (each with a payment method, a wallet and an investor's first order). */
export const ACCOUNTS_PER_DAY = 6;
/** The first wait of a poll whose answer changed, and the longest once nothing changes (doubling in between). */
const POLL_FIRST_MS = 6_000;
const POLL_LONGEST_MS = 60_000;
/** The mistakes it makes, and the readiness rule that names each. */
export const MISTAKES = { first_page_only: 'first_page_only', cancel_again: 'cancel_not_cancellable' } as const;
type Mistake = keyof typeof MISTAKES;
/** The round of the first run's first mistake: early, so Readiness has a finding within 30 s of the start. */
const FIRST_MISTAKE_ROUND = 2;
const CANCELLABLE = new Set<Order['status']>(['PLACED', 'AWAITING_PAYMENT']);
const FINAL = new Set<Order['status']>(['COMPLETED', 'CANCELLED']);
const NAMES = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Edsger', 'Dijkstra'],
  ['Barbara', 'Liskov'],
  ['Donald', 'Knuth'],
] as const;

export interface DemoPartnerOptions {
  /** Where the fake listens, as this process reaches it. */
  baseUrl: string;
  /** The audience its tokens ask for: the host of the fake's public base URL. */
  audience: string;
  credentials: () => PartnerCredentials;
  /** Draws every choice: the world's seed and the client id. */
  seed: string;
  /** Between the end of one round and the start of the next; default 4,000 ms. */
  intervalMs?: number;
  /** Told of a round that failed (the fake is the partner's own: a failed round is retried by the next). */
  onError?: (error: unknown) => void;
}

/** What the partner polls: a list query, when it is next due, and what its last answer showed. */
interface Watch {
  query: Record<string, string>;
  dueAt: number;
  waitMs: number;
  seen: string;
}

/** One day's state: a reset of the tenant forgets it all. */
interface Day {
  number: number;
  round: number;
  /** What it buys with, read at the day's start (again in the next round when that failed). */
  catalog: { isin: string; minimum: number }[] | undefined;
  accounts: string[];
  watches: Map<string, Watch>;
  /** The orders as last read, by id. */
  orders: Map<string, Order>;
  cancelled: string[];
}

export class DemoPartner {
  private readonly http: PartnerHttp;
  private readonly abort = new AbortController();
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Rounds since the start, over every day: the index of each round's draws. */
  private rounds = 0;
  private day: Day = newDay(0);

  constructor(private readonly options: DemoPartnerOptions) {
    this.intervalMs = options.intervalMs ?? 4_000;
    this.http = new PartnerHttp({
      baseUrl: options.baseUrl,
      audience: options.audience,
      credentials: options.credentials,
      signal: this.abort.signal,
      now: Date.now,
    });
  }

  /** Runs a round now and one `intervalMs` after each; no timer of it keeps the process alive. */
  start(): this {
    this.schedule(0);
    return this;
  }

  /** Stops: no round starts again, and the one under way ends after its request in flight (aborted after `graceMs`). */
  async close(graceMs = 2_000): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const running = this.running;
    if (!running) return;
    const late = setTimeout(() => this.abort.abort(), graceMs);
    late.unref();
    await running;
    clearTimeout(late);
  }

  /** One round of the session; a failure is told to `onError` and left to the next round. */
  private async round(): Promise<void> {
    if (this.closed) return;
    const index = this.rounds++;
    const day = this.day;
    // counted first: a round that fails still counts toward the day's end
    const round = day.round++;
    try {
      if (day.catalog === undefined) await this.startDay(day);
      if (this.opensAccount(day, round, index)) await this.openAccount(day);
      await this.pollDue(day);
      if (draw(this.options.seed, index, 'cancel') < 0.3) await this.cancelOne(day, index);
      const mistake = this.mistakeOf(day, index);
      if (mistake) await this.make(mistake, day, index);
      if (day.round >= DAY_ROUNDS) await this.nextDay();
    } catch (error) {
      if (this.closed) return;
      // the tenant is full: a new day starts from the fixtures
      if (error instanceof PartnerCallError && error.code === 'limit_reached')
        await this.nextDay().catch((e: unknown) => this.options.onError?.(e));
      else this.options.onError?.(error);
    }
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.running = this.round().finally(() => {
        this.running = undefined;
        this.schedule(this.intervalMs);
      });
    }, ms);
    this.timer.unref();
  }

  /** What it buys with: the subscribeable assets and their minimum investment, every page of both lists. */
  private async startDay(day: Day): Promise<void> {
    const [assets, classes] = [
      await this.http.readAll<Schemas['Asset']>('/v1/assets'),
      await this.http.readAll<Schemas['ShareClass']>('/v1/share-classes'),
    ];
    const minimum = new Map(classes.map((c) => [c.id, c.min_investment ?? 100_000]));
    day.catalog = assets
      .filter((a) => a.subscribeable)
      .map((a) => ({ isin: a.isin, minimum: minimum.get(a.share_class_id) ?? 100_000 }));
    // the orders its end investors place: followed from the start of the day
    this.watch(day, { order_status: 'PLACED' });
  }

  private opensAccount(day: Day, round: number, index: number): boolean {
    if (day.accounts.length >= ACCOUNTS_PER_DAY) return false;
    return round === 0 || draw(this.options.seed, index, 'open') < 0.1;
  }

  /**
   * An investor signs up in the partner's app: an account with its payment method, then its wallet; then the
   * investor's first order, which only the platform's app can place (the test rig's control-plane call, with the
   * partner's own token of scope `control`). The account is polled until its orders are final.
   */
  private async openAccount(day: Day): Promise<void> {
    const n = `${day.number}-${day.accounts.length + 1}`;
    const externalId = `demo-partner-${n}`;
    // looked for first, as a careful client does before a create it may have made already (a restart with STATE_DIR
    // keeps the tenant's world): one found is followed as it is
    const [existing] = await this.http.readAll<Schemas['Account']>('/v1/accounts', { external_id: externalId });
    if (existing) {
      day.accounts.push(existing.id);
      this.watch(day, { account_id: existing.id });
      return;
    }
    const [first_name, last_name] = pick(NAMES, this.options.seed, day.accounts.length, `name-${day.number}`);
    const account = await this.http.expect<Schemas['Account']>(201, 'api', 'POST', '/v1/accounts', {
      type: 'individual',
      external_id: externalId,
      first_name,
      last_name,
      country: 'DE',
      payment_methods: [
        {
          type: 'sepa',
          iban: ibanOf(this.options.seed, n),
          account_holder_name: `${first_name} ${last_name}`,
          is_primary: true,
        },
      ],
    });
    day.accounts.push(account.id);
    await this.http.expect(201, 'api', 'POST', `/v1/accounts/${account.id}/wallets`, {
      wallet_address: walletAddressOf(this.options.seed, n),
      is_primary: true,
    });
    const asset =
      day.catalog && day.catalog.length > 0
        ? pick(day.catalog, this.options.seed, day.accounts.length, `asset-${day.number}`)
        : undefined;
    if (asset) {
      const units = 1 + Math.floor(draw(this.options.seed, day.accounts.length, `units-${day.number}`) * 20);
      await this.http.expect(201, 'control', 'POST', '/__control/orders', {
        account_id: account.id,
        isin: asset.isin,
        side: 'BUY',
        market: 'PRIMARY',
        amount_of_units: units,
        value: asset.minimum * units,
      });
    }
    this.watch(day, { account_id: account.id });
  }

  /** Starts following a list at once. */
  private watch(day: Day, query: Record<string, string>): void {
    const key = new URLSearchParams(query).toString();
    if (!day.watches.has(key)) day.watches.set(key, { query, dueAt: 0, waitMs: POLL_FIRST_MS, seen: '' });
  }

  /**
   * The lists whose time has come, each read to its last page: when the answer changed the next read comes soon,
   * while it stays the same the wait doubles up to a minute (never less than 5 s apart: `over_polling`). An account
   * whose orders are all final is no longer polled.
   */
  private async pollDue(day: Day): Promise<void> {
    for (const [key, watch] of day.watches) {
      if (Date.now() < watch.dueAt || this.closed) continue;
      const orders = await this.http.readAll<Order>('/v1/orders', watch.query);
      for (const order of orders) day.orders.set(order.id, order);
      const seen = orders.map((o) => `${o.id}:${o.status}`).join(',');
      watch.waitMs = seen === watch.seen ? Math.min(watch.waitMs * 2, POLL_LONGEST_MS) : POLL_FIRST_MS;
      watch.seen = seen;
      watch.dueAt = Date.now() + watch.waitMs;
      if (watch.query.account_id !== undefined && orders.length > 0 && orders.every((o) => FINAL.has(o.status)))
        day.watches.delete(key);
    }
  }

  /** An order its investor wants cancelled: read first, cancelled only while it still can be. */
  private async cancelOne(day: Day, index: number): Promise<void> {
    const open = [...day.orders.values()].filter((o) => CANCELLABLE.has(o.status));
    if (open.length === 0) return;
    const chosen = pick(open, this.options.seed, index, 'cancel-which');
    const fresh = (await this.http.readAll<Order>('/v1/orders', { account_id: chosen.account_id })).find(
      (o) => o.id === chosen.id,
    );
    if (fresh) day.orders.set(fresh.id, fresh);
    if (!fresh || !CANCELLABLE.has(fresh.status)) return;
    const answer = await this.http.send('api', 'DELETE', `/v1/orders/${fresh.id}/`);
    if (answer.status === 200) {
      day.orders.set(fresh.id, answer.body as Order);
      day.cancelled.push(fresh.id);
    }
  }

  /** The first run's third round, then about one round in twelve. */
  private mistakeOf(day: Day, index: number): Mistake | undefined {
    if (index !== FIRST_MISTAKE_ROUND && draw(this.options.seed, index, 'mistake') >= 1 / 12) return undefined;
    return day.cancelled.length > 0 && draw(this.options.seed, index, 'mistake-which') < 0.5
      ? 'cancel_again'
      : 'first_page_only';
  }

  /**
   * `first_page_only`: a short page of accounts read as if it were all of them (the next page never asked for).
   * `cancel_again`: an order it cancelled before, cancelled again from memory without reading it: 409
   * order_not_cancellable (each one once, so it is never the same request three times: that is another rule).
   */
  private async make(mistake: Mistake, day: Day, index: number): Promise<void> {
    if (mistake === 'first_page_only') {
      await this.http.send('api', 'GET', '/v1/accounts?limit=5');
      return;
    }
    const at = Math.floor(draw(this.options.seed, index, 'cancel-again') * day.cancelled.length);
    const [orderId] = day.cancelled.splice(at, 1);
    await this.http.send('api', 'DELETE', `/v1/orders/${orderId}/`);
  }

  /** A new day: the tenant back to its fixtures (its own reset, by its `control` token), the session forgotten. */
  private async nextDay(): Promise<void> {
    await this.http.expect(204, 'control', 'POST', '/__control/reset', {});
    this.day = newDay(this.day.number + 1);
  }
}

const newDay = (number: number): Day => ({
  number,
  round: 0,
  catalog: undefined,
  accounts: [],
  watches: new Map(),
  orders: new Map(),
  cancelled: [],
});
