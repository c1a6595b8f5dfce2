import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import type { Account, OrderRecord, PaymentMethodDetails, Wallet, World } from '../../src/api/types.js';
import { createAccount } from '../../src/domain/accounts.js';
import { placeOrder } from '../../src/domain/order-placement.js';
import { replaceWorld } from '../../src/domain/world.js';
import { sequenceUuid } from '../../src/store/ids.js';
import { failure } from '../support/world.js';

// Sized to the use (docs/configuration.md, "Memory budgets"): a tenant alone at the defaults holds a world of MAX_RECORDS_PER_TENANT records;
// the demo runs for weeks. Domain calls on a default instance (what the HTTP handlers call, without 12,000 requests).
const id = (kind: string, i: number): string => sequenceUuid(`sized:${kind}`, i);

/** The default world with `orders` orders in all: its own, and copies of its first BUY's. */
function worldWithOrders(world: World, orders: number): World {
  const model = world.orders.find((o) => o.side === 'BUY')!;
  const copies: OrderRecord[] = Array.from({ length: orders - world.orders.length }, (_, i) => ({
    ...model,
    id: id('order', i),
  }));
  return { ...world, orders: [...world.orders, ...copies] };
}

/** The default world with `accounts` accounts in all, each copy with a wallet and a payment method, as the generator makes them. */
function worldWithAccounts(world: World, accounts: number): World {
  const account = world.accounts.find((a) => a.type === 'individual')!;
  const wallet = world.wallets[0]!;
  const method = world.payment_method_details[0]!;
  const added = Array.from({ length: accounts - world.accounts.length }, (_, i) => i);
  return {
    ...world,
    accounts: [
      ...world.accounts,
      ...added.map((i): Account => ({ ...account, id: id('account', i), external_id: `ext-${i}` })),
    ],
    wallets: [
      ...world.wallets,
      ...added.map(
        (i): Wallet => ({
          ...wallet,
          id: id('wallet', i),
          account_id: id('account', i),
          is_primary: true,
          wallet_address: `0xc${i.toString(16).padStart(39, '0')}`,
        }),
      ),
    ],
    payment_method_details: [
      ...world.payment_method_details,
      ...added.map(
        (i): PaymentMethodDetails => ({
          ...method,
          id: id('method', i),
          account_id: id('account', i),
          is_primary: true,
        }),
      ),
    ],
  };
}

describe('a tenant alone, at the defaults', () => {
  it('creates 12,000 accounts (before: refused past ~1,900, a thousandth of the heap’s share)', {
    timeout: 60_000,
  }, () => {
    const ctx = createContext();
    const tenant = ctx.tenants.get('sandbox-client');
    for (let i = 0; i < 12_000; i++)
      createAccount(tenant, { type: 'individual', first_name: `Investor ${i}`, last_name: 'Lovelace', city: 'London' });
    expect(tenant.store.accounts.length).toBeGreaterThan(12_000);
    expect(tenant.share!.use.borrowed).toBeGreaterThan(0);
  });

  it('holds a world of MAX_RECORDS_PER_TENANT records (100,000, nearly all orders), and then refuses by records, not bytes', {
    timeout: 60_000,
  }, () => {
    const ctx = createContext();
    const tenant = ctx.tenants.get('sandbox-client');
    const world = tenant.store.snapshot();
    const records = world.accounts.length + world.wallets.length + world.payment_method_details.length;
    replaceWorld(tenant, worldWithOrders(world, 100_000 - records - 1));
    const buy = tenant.store.orders[0]!;
    placeOrder(tenant, {
      account_id: buy.account_id,
      isin: buy.isin,
      side: buy.side,
      market: buy.market,
      amount_of_units: 1,
      value: buy.value,
    });
    expect(tenant.store.recordCount).toBe(100_000);
    const refused = failure(() =>
      placeOrder(tenant, {
        account_id: buy.account_id,
        isin: buy.isin,
        side: buy.side,
        market: buy.market,
        amount_of_units: 1,
        value: buy.value,
      }),
    );
    expect(refused.code).toBe('limit_reached');
    expect(refused.detail).toContain('MAX_RECORDS_PER_TENANT');
  });

  it('starts with the world FIXTURE_ACCOUNTS=20000 makes (20,000 accounts with a wallet and payment method each, ~19 MB) and takes writes', {
    timeout: 60_000,
  }, () => {
    const seeded = createContext().tenants.get('sandbox-client').store.snapshot();
    const ctx = createContext({ fixtures: worldWithAccounts(seeded, 20_000) });
    const tenant = ctx.tenants.get('sandbox-client');
    expect(tenant.store.bytes).toBeGreaterThan(9_000_000);
    const account = createAccount(tenant, { type: 'individual', first_name: 'Ada' });
    expect(tenant.store.accountById.get(account.id)).toBeDefined();
  });
});

describe('the demo', () => {
  it('runs for weeks of its clock: its investors still place orders four weeks on, and four weeks at their rate fit its room', {
    timeout: 60_000,
  }, () => {
    const ctx = createContext({ demo: true });
    const tenant = ctx.tenants.get('sandbox-client');
    const placedIn = (hours: number): number => {
      const before = tenant.store.orders.length;
      tenant.changeClock({ advance_seconds: hours * 3600 });
      tenant.settle();
      return tenant.store.orders.length - before;
    };
    // a day at a time: each read places at most 1,000 investors' orders (MOST_ORDERS_PER_READ), of the 2,880 a day
    const [ordersBefore, bytesBefore] = [tenant.store.orders.length, tenant.store.bytes];
    for (let day = 0; day < 27; day++) placedIn(24);
    expect(placedIn(24)).toBe(1000);
    const placed = tenant.store.orders.length - ordersBefore;
    expect(placed).toBe(28_000);
    // a demo left running places 120 an hour: four weeks of them fit what is left of its room, and of its records
    const perOrder = (tenant.store.bytes - bytesBefore) / placed;
    const rest = 120 * 24 * 28 - placed;
    expect(ctx.tenants.worldBudget!.totals.free).toBeGreaterThan(rest * perOrder);
    expect(tenant.store.recordCount + rest).toBeLessThan(ctx.budgets.maxRecordsPerTenant);
  });
});
