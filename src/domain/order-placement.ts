// Placing an order (control plane and library only: placement is not in the public interface), with its rules.
import { ensureRoomFor } from './limits.js';
import { findAsset } from './catalog.js';
import { findAccount } from './account-lookup.js';
import { DomainError } from '../api/errors.js';
import { toOrderDetails } from './order-lifecycle.js';
import { PLATFORM_PAYMENT_DETAILS, toPaymentSide } from './platform.js';
import type {
  Account,
  AssetRecord,
  ClientSettings,
  OrderMarket,
  OrderRecord,
  OrderSide,
  PaymentMethodDetails,
  Schemas,
  Wallet,
} from '../api/types.js';
import type { OrderProgression, PlacedBy } from './order-progression.js';
import { ORDER_GROWTH_BYTES, recordBytes, type WorldStore } from '../store/world-store.js';
import { UNDRAWN_ID } from '../store/ids.js';

export type OrderPlacement = Schemas['OrderPlacement'];

/** What placing an order needs of a tenant (a Tenant is one). */
export interface PlacementTarget {
  readonly store: WorldStore;
  readonly progression: Pick<OrderProgression, 'placed'>;
  readonly client: { readonly settings: ClientSettings };
  now(): number;
}

type MarketFlag = 'subscribeable' | 'redeemable' | 'tradeable';

/** A 422 naming the body field at fault. */
const rejected = (code: string, path: string, detail: string): DomainError =>
  new DomainError(422, code, detail, [{ location: 'body', path, message: detail }]);

/** The market rules of the interface: the asset flag a side needs on a market. */
export function flagNeeded(side: OrderSide, market: OrderMarket): MarketFlag {
  if (market === 'SECONDARY') return 'tradeable';
  return side === 'BUY' ? 'subscribeable' : 'redeemable';
}

// The schema checks these over HTTP; the library helpers reach the domain without it.
function checkPositiveIntegers(input: OrderPlacement): void {
  for (const field of ['amount_of_units', 'value'] as const) {
    const n = input[field];
    if (!Number.isSafeInteger(n) || n < 1) {
      throw rejected('validation_error', `/${field}`, `${field} must be a positive integer, got ${JSON.stringify(n)}.`);
    }
  }
}

function checkMarketRule(asset: AssetRecord, side: OrderSide, market: OrderMarket): void {
  const flag = flagNeeded(side, market);
  if (!asset[flag]) {
    throw rejected(
      `asset_not_${flag}`,
      '/isin',
      `A ${market} ${side} needs a ${flag} asset; ${asset.isin} is not ${flag}.`,
    );
  }
}

function currencyOf(asset: AssetRecord, requested: string | undefined): string {
  if (requested !== undefined && requested !== asset.currency) {
    throw rejected('currency_mismatch', '/currency', `${asset.isin} trades in ${asset.currency}, not ${requested}.`);
  }
  return asset.currency;
}

function customOfferingOf(store: WorldStore, asset: AssetRecord, offeringId: string | null | undefined): string | null {
  if (offeringId == null) return null;
  if (store.customOfferingById.get(offeringId)?.asset_id !== asset.id) {
    throw rejected(
      'custom_offering_mismatch',
      '/custom_offering_id',
      `${asset.isin} has no custom offering with id "${offeringId}".`,
    );
  }
  return offeringId;
}

function checkMinInvestment(store: WorldStore, asset: AssetRecord, input: OrderPlacement): void {
  if (input.side !== 'BUY' || input.market !== 'PRIMARY') return;
  const minimum = store.shareClassById.get(asset.share_class_id)?.min_investment ?? null;
  if (minimum !== null && input.value < minimum) {
    throw rejected(
      'below_min_investment',
      '/value',
      `A primary BUY of ${asset.isin} is at least its share class's min_investment of ${minimum} (smallest currency unit); value is ${input.value}.`,
    );
  }
}

type PaymentParties = Pick<
  OrderRecord,
  'sender_payment_method_details' | 'recipient_payment_method_details' | 'recipient_wallet_address'
>;

/** The account an order is placed for: its id, and the primaries its payment sides are drawn from. */
export interface Buyer {
  id: string;
  wallet: Pick<Wallet, 'wallet_address'> | undefined;
  paymentMethod: PaymentMethodDetails | undefined;
}

/** An account of the store as a buyer: its primary wallet and payment method details. */
function buyerOf(store: WorldStore, account: Account): Buyer {
  return {
    id: account.id,
    wallet: store.walletsByAccount.get(account.id)?.find((w) => w.is_primary),
    paymentMethod: store.paymentMethodsByAccount.get(account.id)?.find((p) => p.is_primary),
  };
}

/** A BUY pays from the account's primary payment method and delivers to its primary wallet; a SELL pays out to it. */
function paymentParties(buyer: Buyer, side: OrderSide): PaymentParties {
  const { paymentMethod, wallet } = buyer;
  if (side === 'SELL') {
    return {
      sender_payment_method_details: { ...PLATFORM_PAYMENT_DETAILS },
      recipient_payment_method_details: paymentMethod ? toPaymentSide(paymentMethod) : null,
      recipient_wallet_address: null,
    };
  }
  if (!wallet) {
    throw rejected(
      'no_primary_wallet',
      '/account_id',
      `A BUY delivers to the account's primary wallet; account ${buyer.id} has none.`,
    );
  }
  if (!paymentMethod) {
    throw rejected(
      'no_primary_payment_method',
      '/account_id',
      `A BUY is paid from the account's primary payment method; account ${buyer.id} has none.`,
    );
  }
  return {
    sender_payment_method_details: toPaymentSide(paymentMethod),
    recipient_payment_method_details: { ...PLATFORM_PAYMENT_DETAILS },
    recipient_wallet_address: wallet.wallet_address,
  };
}

/** The rules of a placement after its numbers and account: the order as it will be stored, its id not drawn. */
function orderOf(store: WorldStore, input: OrderPlacement, at: number, buyer: Buyer): OrderRecord {
  const asset = findAsset(store, input.isin);
  checkMarketRule(asset, input.side, input.market);
  const currency = currencyOf(asset, input.currency);
  const customOfferingId = customOfferingOf(store, asset, input.custom_offering_id);
  checkMinInvestment(store, asset, input);
  const parties = paymentParties(buyer, input.side);
  return {
    // measured before its id is drawn: a refused placement leaves the tenant's sequence of ids as it was
    id: UNDRAWN_ID,
    side: input.side,
    market: input.market,
    status: 'PLACED',
    amount_of_units: input.amount_of_units,
    value: input.value,
    currency,
    isin: asset.isin,
    account_id: buyer.id,
    created: new Date(at).toISOString(),
    settlement_transaction_hash: null,
    payment_transaction_reference: null,
    custom_offering_id: customOfferingId,
    ...parties,
  };
}

/**
 * Every rule of a placement for a buyer the caller is about to create (a provider state's account), nothing written:
 * the order as it will be stored, its id and account id to be set when they are drawn.
 */
export function draftOrder(store: WorldStore, input: OrderPlacement, at: number, buyer: Buyer): OrderRecord {
  checkPositiveIntegers(input);
  return orderOf(store, input, at, buyer);
}

/** What an order counts against the budgets when placed: its JSON, and room for the rest of its lifecycle. */
export const placedOrderBytes = (order: OrderRecord): number => recordBytes(order) + ORDER_GROWTH_BYTES;

/** Stores an order whose every rule held and whose room was found: its id drawn, its progression begun. */
export function storeOrder(tenant: PlacementTarget, order: OrderRecord, by: PlacedBy): OrderRecord {
  order.id = tenant.store.newId();
  tenant.store.addOrder(order);
  tenant.progression.placed(order, tenant.client.settings, by);
  return toOrderDetails(order);
}

/**
 * Places an order in PLACED status, after every rule: positive integers, unknown account or ISIN (404), market
 * rule, currency, custom offering, minimum investment, primary wallet and payment method (422). Nothing is
 * written unless every rule holds. `at`: when it was placed (ms, tenant clock); an investor's order is placed at
 * its own instant, which a clock jump may have passed. `by`: who placed it, the first entry of its status history.
 */
export function placeOrder(
  tenant: PlacementTarget,
  input: OrderPlacement,
  at: number = tenant.now(),
  by: PlacedBy = 'control',
): OrderRecord {
  const { store } = tenant;
  checkPositiveIntegers(input);
  const account = findAccount(store, input.account_id);
  const order = orderOf(store, input, at, buyerOf(store, account));
  ensureRoomFor(store, 1, placedOrderBytes(order));
  return storeOrder(tenant, order, by);
}
