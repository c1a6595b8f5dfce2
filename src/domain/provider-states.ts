// Pact's provider states made true in a tenant (`POST /__control/pact/provider-states`), through the rules the API
// and the control plane use: creating an account with its wallets or payment methods, placing and forcing an order.
import { DomainError, type FieldError } from '../api/errors.js';
import type { OrderMarket, OrderSide, Schemas } from '../api/types.js';
import {
  KNOWN_STATE_NAMES,
  orderStateName,
  orderStatusOf,
  STATE_NAMES,
  type InjectedValues,
} from '../records/provider-state-names.js';
import { createAccount, GIVEN_ACCOUNT_FIELDS, prepareAccount, type AccountCreate } from './accounts.js';
import { draftOrder, flagNeeded, placedOrderBytes, storeOrder } from './order-placement.js';
import { setOrderStatus } from './order-actions.js';
import { ensureRoomFor } from './limits.js';
import { UNDRAWN_ID } from '../store/ids.js';
import type { Tenant } from './tenants.js';

export type ProviderStateChange = Schemas['ProviderStateChange'];

/** The document's check of a part of `params` (`AccountCreate`, `WalletRegister`…): its field errors, at `at`. */
export type ParamsCheck = (
  schema: 'AccountCreate' | 'WalletRegister' | 'PaymentMethodDetailsCreate' | 'OrderPlacement',
  value: unknown,
) => FieldError[];

type Params = Record<string, unknown>;

const isObject = (value: unknown): value is Params =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A valid IBAN for the payment method an order's account needs when the state names none (ISO 13616's example). */
const EXAMPLE_IBAN = 'DE89370400440532013000';

function checked<T>(check: ParamsCheck, schema: Parameters<ParamsCheck>[0], value: unknown, at: string): T {
  const errors = check(schema, value).map((e) => ({ ...e, path: `/params${at}${e.path === '/' ? '' : e.path}` }));
  if (errors.length > 0) {
    throw new DomainError(
      422,
      'validation_error',
      `The state's params are not ${schema === 'AccountCreate' ? 'an account' : `a ${schema}`}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
      errors,
    );
  }
  return value as T;
}

const pick = (params: Params, keys: readonly string[]): Params =>
  Object.fromEntries(keys.filter((key) => params[key] !== undefined).map((key) => [key, params[key]]));

/** The account a state asks for: its fields from `params` (or `params.account`), an individual when none are given. */
function accountInput(params: unknown, check: ParamsCheck, at: string): AccountCreate {
  const fields = isObject(params) ? pick(params, GIVEN_ACCOUNT_FIELDS) : {};
  return checked<AccountCreate>(check, 'AccountCreate', { type: 'individual', ...fields }, at);
}

/** What a setup answers (the values its contract injects) and what of its params it used, for the journal. */
export interface StateMade {
  values: InjectedValues;
  /** The params the state read, as it read them: a replay of the setup given these makes the same records. */
  used: Params;
}

function setUpWallet(tenant: Tenant, params: Params, check: ParamsCheck): StateMade {
  const wallet = checked<Schemas['WalletRegister']>(
    check,
    'WalletRegister',
    pick(params, ['wallet_address', 'chain', 'is_primary']),
    '',
  );
  // the verifier sets states up for each interaction: a wallet already there is the one asked for
  const existing = tenant.store.walletByAddress.get(wallet.wallet_address.toLowerCase());
  if (existing) return { values: { accountId: existing.account_id, walletId: existing.id }, used: { ...wallet } };
  const account = accountInput(params.account, check, '/account');
  const made = createAccount(tenant, { ...account, wallets: [wallet] });
  const created = tenant.store.walletsByAccount.get(made.id)![0]!;
  return { values: { accountId: made.id, walletId: created.id }, used: { ...wallet, account } };
}

function setUpPaymentMethod(tenant: Tenant, params: Params, check: ParamsCheck): StateMade {
  const method = checked<Schemas['PaymentMethodDetailsCreate']>(
    check,
    'PaymentMethodDetailsCreate',
    { type: 'sepa', ...pick(params, ['type', 'iban', 'account_holder_name', 'is_primary']) },
    '',
  );
  const account = accountInput(params.account, check, '/account');
  const made = createAccount(tenant, { ...account, payment_methods: [method] });
  return {
    values: { accountId: made.id, paymentMethodDetailsId: tenant.store.paymentMethodsByAccount.get(made.id)![0]!.id },
    used: { ...method, account },
  };
}

/** An address no wallet of the tenant has: lower case, so no checksum applies. */
function freshWalletAddress(tenant: Tenant): string {
  for (let n = tenant.store.wallets.length; ; n++) {
    const address = `0xfac7${n.toString(16).padStart(36, '0')}`;
    if (!tenant.store.walletByAddress.has(address)) return address;
  }
}

/**
 * An order in the named status: the asset named if this world has it and the market rule lets it, else the first
 * that does; an account made for it with a primary wallet and payment method (a BUY needs both); placed, then forced.
 * Every rule of the account and of the placement, and the room for its four records, are checked before any is made:
 * a refused state leaves nothing behind.
 */
function setUpOrder(
  tenant: Tenant,
  params: Params,
  status: NonNullable<ReturnType<typeof orderStatusOf>>,
  check: ParamsCheck,
): StateMade {
  const side: OrderSide = params.side === 'SELL' ? 'SELL' : 'BUY';
  const market: OrderMarket = params.market === 'SECONDARY' ? 'SECONDARY' : 'PRIMARY';
  const flag = flagNeeded(side, market);
  const { store } = tenant;
  const named = typeof params.isin === 'string' ? store.assetByIsin.get(params.isin) : undefined;
  const asset = named?.[flag] ? named : store.assets.find((a) => a[flag]);
  if (!asset)
    throw new DomainError(
      422,
      'provider_state_unavailable',
      `This world has no ${flag} asset for a ${market} ${side}: the state "${orderStateName(status)}" cannot be made here.`,
    );
  const minimum =
    side === 'BUY' && market === 'PRIMARY' ? (store.shareClassById.get(asset.share_class_id)?.min_investment ?? 1) : 1;
  const value = Math.max(typeof params.value === 'number' ? params.value : 1, minimum);
  const amount = typeof params.amount_of_units === 'number' ? params.amount_of_units : 1;
  const placement = checked<Schemas['OrderPlacement']>(
    check,
    'OrderPlacement',
    { account_id: UNDRAWN_ID, isin: asset.isin, side, market, amount_of_units: amount, value },
    '',
  );
  const accountFields = accountInput(params.account, check, '/account');
  const account = prepareAccount(tenant, {
    ...accountFields,
    wallets: [{ wallet_address: freshWalletAddress(tenant), is_primary: true }],
    payment_methods: [{ type: 'sepa', iban: EXAMPLE_IBAN, account_holder_name: 'Provider State', is_primary: true }],
  });
  const order = draftOrder(store, placement, tenant.now(), { id: UNDRAWN_ID, ...account.primaries });
  ensureRoomFor(store, account.records + 1, account.bytes + placedOrderBytes(order));
  // every rule held and the room is there: from here on nothing is refused
  const made = account.commit();
  const placed = storeOrder(tenant, { ...order, account_id: made.id }, 'control');
  if (status !== 'PLACED') setOrderStatus(tenant, placed.id, status);
  return {
    values: { orderId: placed.id, accountId: made.id },
    used: { side, market, isin: asset.isin, amount_of_units: amount, value, account: accountFields },
  };
}

/** The catalog is the world's own: a state names what it has, the one asked for when it is there. */
function catalogState(tenant: Tenant, name: string, params: Params): StateMade {
  const { assetByIsin, assets, feederFundByAbbreviation, feederFunds, customOfferingById, customOfferings } =
    tenant.store;
  const unavailable = (what: string) =>
    new DomainError(
      422,
      'provider_state_unavailable',
      `This world has no ${what}: the state "${name}" cannot be made here.`,
    );
  if (name === STATE_NAMES.asset) {
    const asset = (typeof params.isin === 'string' && assetByIsin.get(params.isin)) || assets[0];
    if (!asset) throw unavailable('asset');
    return { values: { isin: asset.isin }, used: { isin: asset.isin } };
  }
  if (name === STATE_NAMES.feederFund) {
    const fund =
      (typeof params.abbreviation === 'string' && feederFundByAbbreviation.get(params.abbreviation)) || feederFunds[0];
    if (!fund) throw unavailable('feeder fund');
    return { values: { abbreviation: fund.abbreviation }, used: { abbreviation: fund.abbreviation } };
  }
  const offering =
    (typeof params.custom_offering_id === 'string' && customOfferingById.get(params.custom_offering_id)) ||
    customOfferings.find((o) => assets.some((a) => a.id === o.asset_id));
  const asset = offering && assets.find((a) => a.id === offering.asset_id);
  if (!offering || !asset) throw unavailable('custom offering');
  return { values: { isin: asset.isin, customOfferingId: offering.id }, used: { custom_offering_id: offering.id } };
}

/**
 * Makes a state true (`setup`) and answers the values its contract injects, with the params it used (what the journal
 * keeps of it); `teardown`, and a call naming no state, change nothing (undefined). A state this fake does not know
 * answers 422 naming those it knows. A refused setup changes nothing.
 */
export function changeProviderState(
  tenant: Tenant,
  change: ProviderStateChange,
  check: ParamsCheck,
): StateMade | undefined {
  const name = change.state ?? '';
  if (name === '' || change.action === 'teardown') return undefined;
  const params: Params = change.params ?? {};
  if (name === STATE_NAMES.account) {
    const account = accountInput(params, check, '');
    return { values: { accountId: createAccount(tenant, account).id }, used: account };
  }
  if (name === STATE_NAMES.wallet) return setUpWallet(tenant, params, check);
  if (name === STATE_NAMES.paymentMethod) return setUpPaymentMethod(tenant, params, check);
  const status = orderStatusOf(name);
  if (status) return setUpOrder(tenant, params, status, check);
  if (name === STATE_NAMES.asset || name === STATE_NAMES.feederFund || name === STATE_NAMES.customOffering)
    return catalogState(tenant, name, params);
  throw new DomainError(
    422,
    'unknown_provider_state',
    `No provider state is named "${name.slice(0, 200)}". Known states: ${KNOWN_STATE_NAMES.map((known) => `"${known}"`).join(', ')}.`,
  );
}
