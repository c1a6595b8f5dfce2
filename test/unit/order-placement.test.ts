import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { placeOrder, type OrderPlacement } from '../../src/domain/order-placement.js';
import { PLATFORM_PAYMENT_DETAILS } from '../../src/domain/platform.js';
import type { Account, AssetRecord } from '../../src/api/types.js';
import type { WorldStore } from '../../src/store/world-store.js';
import { failure, seededTenant } from '../support/world.js';
import type { Tenant } from '../../src/domain/tenants.js';

const NOW = '2026-03-04T05:06:07.000Z';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

let store: WorldStore;
let tenant: Tenant;

beforeEach(() => {
  // Real time stands still, and the tenant's clock is set apart from it: `created` must come from the tenant's clock.
  vi.useFakeTimers({ toFake: ['Date'] });
  tenant = seededTenant();
  tenant.clock.set(new Date(NOW));
  store = tenant.store;
});
afterEach(() => {
  vi.useRealTimers();
});

const minInvestmentOf = (asset: AssetRecord) => store.shareClassById.get(asset.share_class_id)!.min_investment;
const primaryWalletOf = (account: Account) => store.walletsByAccount.get(account.id)?.find((w) => w.is_primary);
const primaryPaymentMethodOf = (account: Account) =>
  store.paymentMethodsByAccount.get(account.id)?.find((p) => p.is_primary);
const offeringsOf = (asset: AssetRecord) => store.customOfferingsByAsset.get(asset.id) ?? [];

function asset(where: (a: AssetRecord) => boolean): AssetRecord {
  const found = store.assets.find(where);
  if (!found) throw new Error('the seed-1 world has no such asset');
  return found;
}

function account(where: (a: Account) => boolean): Account {
  const found = store.accounts.find(where);
  if (!found) throw new Error('the seed-1 world has no such account');
  return found;
}

const trader = () => account((a) => primaryWalletOf(a) !== undefined && primaryPaymentMethodOf(a) !== undefined);
const withoutPrimaryWallet = () => account((a) => primaryWalletOf(a) === undefined);
/** An account that had a primary payment method, now without one (the seed-1 world has no such account). */
function withoutPrimaryPaymentMethod(): Account {
  const target = trader();
  for (const details of store.paymentMethodsByAccount.get(target.id) ?? []) details.is_primary = false;
  return target;
}

/** A valid placement for `target`: value at the share class's minimum when there is one. */
function placement(target: AssetRecord, fields: Partial<OrderPlacement> = {}): OrderPlacement {
  return {
    account_id: trader().id,
    isin: target.isin,
    side: 'BUY',
    market: 'PRIMARY',
    amount_of_units: 3,
    value: minInvestmentOf(target) ?? 100_000,
    ...fields,
  };
}

/** Expects `input` to be refused with a 422 naming one body field, and nothing in the store to change. */
function expectRefused(input: OrderPlacement, code: string, path: string): void {
  const before = JSON.stringify(store.snapshot());
  const error = failure(() => placeOrder(tenant, input));
  expect(error).toMatchObject({ status: 422, code, errors: [{ location: 'body', path, message: expect.any(String) }] });
  expect(JSON.stringify(store.snapshot())).toBe(before);
}

const subscribeable = () => asset((a) => a.subscribeable);

describe('placeOrder: a valid order', () => {
  it('a primary BUY starts PLACED, created now, paid from the primary payment method to the platform, delivered to the primary wallet', () => {
    const target = subscribeable();
    const buyer = trader();
    const order = placeOrder(tenant, placement(target, { account_id: buyer.id, amount_of_units: 7 }));
    const paymentMethod = primaryPaymentMethodOf(buyer)!;
    expect(order).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      side: 'BUY',
      market: 'PRIMARY',
      status: 'PLACED',
      amount_of_units: 7,
      value: minInvestmentOf(target) ?? 100_000,
      currency: target.currency,
      isin: target.isin,
      account_id: buyer.id,
      created: NOW,
      settlement_transaction_hash: null,
      payment_transaction_reference: null,
      custom_offering_id: null,
      sender_payment_method_details: {
        type: 'sepa',
        iban: paymentMethod.iban,
        account_holder_name: paymentMethod.account_holder_name,
      },
      recipient_payment_method_details: { ...PLATFORM_PAYMENT_DETAILS },
      recipient_wallet_address: primaryWalletOf(buyer)!.wallet_address,
    });
  });

  it('is stored last in creation order and found by id', () => {
    const order = placeOrder(tenant, placement(subscribeable()));
    expect(store.orders.at(-1)).toEqual(order);
    expect(store.orderById.get(order.id)).toEqual(order);
  });

  it('answers a copy: changing it, down to its payment sides, changes nothing stored', () => {
    const order = placeOrder(tenant, placement(subscribeable()));
    const stored = structuredClone(store.orderById.get(order.id));
    order.status = 'COMPLETED';
    order.sender_payment_method_details!.iban = 'changed';
    order.recipient_payment_method_details!.account_holder_name = 'changed';
    expect(store.orderById.get(order.id)).toEqual(stored);
  });

  it('two placements get different ids', () => {
    const target = subscribeable();
    expect(placeOrder(tenant, placement(target)).id).not.toBe(placeOrder(tenant, placement(target)).id);
  });

  it('uses the wallet and payment method flagged primary, not the first ones registered', () => {
    const buyer = account(
      (a) =>
        (store.walletsByAccount.get(a.id)?.length ?? 0) > 1 &&
        (store.paymentMethodsByAccount.get(a.id)?.length ?? 0) > 1,
    );
    const [firstWallet, laterWallet] = store.walletsByAccount.get(buyer.id)!;
    const [firstDetails, laterDetails] = store.paymentMethodsByAccount.get(buyer.id)!;
    [firstWallet!.is_primary, laterWallet!.is_primary, firstDetails!.is_primary, laterDetails!.is_primary] = [
      false,
      true,
      false,
      true,
    ];
    const order = placeOrder(tenant, placement(subscribeable(), { account_id: buyer.id }));
    expect(order.recipient_wallet_address).toBe(laterWallet!.wallet_address);
    expect(order.sender_payment_method_details?.iban).toBe(laterDetails!.iban);
    const sell = placeOrder(
      tenant,
      placement(
        asset((a) => a.redeemable),
        { side: 'SELL', account_id: buyer.id },
      ),
    );
    expect(sell.recipient_payment_method_details?.iban).toBe(laterDetails!.iban);
  });

  it('a SELL is paid by the platform to the primary payment method, with no wallet', () => {
    const seller = trader();
    const order = placeOrder(
      tenant,
      placement(
        asset((a) => a.redeemable),
        { side: 'SELL', account_id: seller.id },
      ),
    );
    const paymentMethod = primaryPaymentMethodOf(seller)!;
    expect(order.sender_payment_method_details).toEqual(PLATFORM_PAYMENT_DETAILS);
    expect(order.recipient_payment_method_details).toEqual({
      type: 'sepa',
      iban: paymentMethod.iban,
      account_holder_name: paymentMethod.account_holder_name,
    });
    expect(order.recipient_wallet_address).toBeNull();
  });

  it('a SELL of an account without a primary payment method has no recipient', () => {
    const seller = withoutPrimaryPaymentMethod();
    const order = placeOrder(
      tenant,
      placement(
        asset((a) => a.redeemable),
        { side: 'SELL', account_id: seller.id },
      ),
    );
    expect(order.recipient_payment_method_details).toBeNull();
    expect(order.sender_payment_method_details).toEqual(PLATFORM_PAYMENT_DETAILS);
  });

  it('a SELL needs no primary wallet', () => {
    const seller = withoutPrimaryWallet();
    expect(
      placeOrder(
        tenant,
        placement(
          asset((a) => a.redeemable),
          { side: 'SELL', account_id: seller.id },
        ),
      ).status,
    ).toBe('PLACED');
  });

  it('a custom offering of the asset is kept on the order', () => {
    const target = asset((a) => a.subscribeable && offeringsOf(a).length > 0);
    const offering = offeringsOf(target)[0]!;
    expect(placeOrder(tenant, placement(target, { custom_offering_id: offering.id })).custom_offering_id).toBe(
      offering.id,
    );
  });

  it('the currency defaults to the asset’s, in every currency of the catalog', () => {
    const currencies = [...new Set(store.assets.filter((a) => a.tradeable).map((a) => a.currency))];
    expect(currencies.length).toBeGreaterThan(1);
    for (const currency of currencies) {
      const target = asset((a) => a.tradeable && a.currency === currency);
      expect(placeOrder(tenant, placement(target, { market: 'SECONDARY' })).currency).toBe(currency);
    }
  });

  it('the asset’s own currency, given explicitly, is accepted', () => {
    const target = subscribeable();
    expect(placeOrder(tenant, placement(target, { currency: target.currency })).currency).toBe(target.currency);
  });
});

describe('placeOrder: market rules', () => {
  it('a primary BUY needs a subscribeable asset: 422 asset_not_subscribeable', () => {
    const target = asset((a) => !a.subscribeable && a.redeemable && a.tradeable);
    expectRefused(placement(target), 'asset_not_subscribeable', '/isin');
  });

  it('a primary SELL needs a redeemable asset: 422 asset_not_redeemable', () => {
    const target = asset((a) => !a.redeemable && a.subscribeable && a.tradeable);
    expectRefused(placement(target, { side: 'SELL' }), 'asset_not_redeemable', '/isin');
  });

  it('the secondary market needs a tradeable asset, on both sides: 422 asset_not_tradeable', () => {
    const target = asset((a) => !a.tradeable && a.subscribeable && a.redeemable);
    expectRefused(placement(target, { market: 'SECONDARY' }), 'asset_not_tradeable', '/isin');
    expectRefused(placement(target, { market: 'SECONDARY', side: 'SELL' }), 'asset_not_tradeable', '/isin');
  });

  it('the secondary market asks nothing but tradeable', () => {
    const target = asset((a) => a.tradeable && !a.subscribeable && !a.redeemable);
    expect(placeOrder(tenant, placement(target, { market: 'SECONDARY', value: 1 })).status).toBe('PLACED');
    expect(placeOrder(tenant, placement(target, { market: 'SECONDARY', side: 'SELL', value: 1 })).status).toBe(
      'PLACED',
    );
  });
});

describe('placeOrder: amounts, currency and offering', () => {
  it('a currency other than the asset’s: 422 currency_mismatch', () => {
    const target = subscribeable();
    const other = target.currency === 'EUR' ? 'USD' : 'EUR';
    expectRefused(placement(target, { currency: other }), 'currency_mismatch', '/currency');
  });

  it('a primary BUY below the share class’s min_investment: 422 below_min_investment; at the minimum it is placed', () => {
    const target = asset((a) => a.subscribeable && minInvestmentOf(a) !== null);
    const minimum = minInvestmentOf(target)!;
    expectRefused(placement(target, { value: minimum - 1 }), 'below_min_investment', '/value');
    expect(placeOrder(tenant, placement(target, { value: minimum })).value).toBe(minimum);
  });

  it('the minimum binds neither a primary SELL nor the secondary market, nor a share class without one', () => {
    const sellable = asset((a) => a.redeemable && minInvestmentOf(a) !== null);
    expect(placeOrder(tenant, placement(sellable, { side: 'SELL', value: 1 })).status).toBe('PLACED');
    const tradeable = asset((a) => a.tradeable && minInvestmentOf(a) !== null);
    expect(placeOrder(tenant, placement(tradeable, { market: 'SECONDARY', value: 1 })).status).toBe('PLACED');
    const open = asset((a) => a.subscribeable && minInvestmentOf(a) === null);
    expect(placeOrder(tenant, placement(open, { value: 1 })).status).toBe('PLACED');
  });

  it('units and value must be positive integers: 422 validation_error (the library reaches the domain without the schema)', () => {
    const target = subscribeable();
    expectRefused(placement(target, { amount_of_units: 0 }), 'validation_error', '/amount_of_units');
    expectRefused(placement(target, { value: 1.5 }), 'validation_error', '/value');
  });

  it('a custom offering of another asset, or an unknown one: 422 custom_offering_mismatch', () => {
    const host = asset((a) => offeringsOf(a).length > 0);
    const target = asset((a) => a.subscribeable && a.id !== host.id);
    expectRefused(
      placement(target, { custom_offering_id: offeringsOf(host)[0]!.id }),
      'custom_offering_mismatch',
      '/custom_offering_id',
    );
    expectRefused(
      placement(target, { custom_offering_id: UNKNOWN_ID }),
      'custom_offering_mismatch',
      '/custom_offering_id',
    );
  });
});

describe('placeOrder: the account', () => {
  it('a BUY of an account without a primary wallet: 422 no_primary_wallet', () => {
    expectRefused(
      placement(subscribeable(), { account_id: withoutPrimaryWallet().id }),
      'no_primary_wallet',
      '/account_id',
    );
  });

  it('a BUY of an account without a primary payment method: 422 no_primary_payment_method', () => {
    expectRefused(
      placement(subscribeable(), { account_id: withoutPrimaryPaymentMethod().id }),
      'no_primary_payment_method',
      '/account_id',
    );
  });

  it('an unknown account or ISIN: 404 not_found, nothing placed', () => {
    const count = store.orders.length;
    expect(failure(() => placeOrder(tenant, placement(subscribeable(), { account_id: UNKNOWN_ID })))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(failure(() => placeOrder(tenant, { ...placement(subscribeable()), isin: 'XX0000000000' }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(store.orders).toHaveLength(count);
  });
});
